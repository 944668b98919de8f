"""LLM writer cost and speed on a vLLM-sized day, against the fake OpenAI server.

Prints prompt/completion tokens per section (target ≤ 60k prompt tokens per report), the wall
time with 2 s of latency per call at the default concurrency (target ≤ 15 s), a rerun from the
cache (target 0 tokens) and the next day's incremental run (only new or changed threads sent).

    python bench/bench_llm.py [--latency 2.0] [--lang zh]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakes.openai_server import FakeOpenAI
from tests.helpers import store_from_dataset

from devdigest.analysis import compute_window_analysis
from devdigest.config import LLMSettings, load_config
from devdigest.models import DailyReport
from devdigest.sample.dataset import generate_day
from devdigest.store import Store
from devdigest.window import Window
from devdigest.writers.llm import write_llm

DAY = timedelta(days=1)


def run_once(
    store: Store, window: Window, fake: FakeOpenAI, lang: str
) -> tuple[DailyReport, float]:
    config = load_config(env={})
    analysis = compute_window_analysis(store, config, "vllm-project/vllm", window, now=window.end)
    settings = LLMSettings(base_url=fake.url, api_key="test-key", model="fake-model")
    started = time.perf_counter()
    report = write_llm(analysis, lang, settings=settings, store=store, now=window.end)
    return report, time.perf_counter() - started


def print_split(fake: FakeOpenAI, since: int) -> None:
    tokens: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for entry in fake.chat_calls()[since:]:
        chars = sum(len(m["content"]) for m in entry.body["messages"])
        tokens[entry.task or "?"][0] += 1
        tokens[entry.task or "?"][1] += chars // 4
    for task, (calls, prompt) in sorted(tokens.items()):
        print(f"    {task:<11} {calls:>3} calls {prompt:>7} prompt tokens")


def _thread_numbers(report: DailyReport) -> set[int]:
    entries = [*report.hot_discussions[:5], *report.key_changes[:5], *report.watch[:5]]
    return {e.item.number for e in entries}


def show(name: str, report: DailyReport, wall: float) -> None:
    p = report.provenance
    print(
        f"{name}: wall {wall:.2f} s, calls {p.llm_calls}, prompt {p.prompt_tokens}, "
        f"completion {p.completion_tokens}, cache hits {p.cache_hits}, "
        f"guard corrections {p.guard_corrections}, fallbacks {p.fallbacks or '-'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=2.0)
    parser.add_argument("--lang", default="zh")
    args = parser.parse_args()
    ds = generate_day(seed=0)
    assert ds.end is not None
    day2 = Window(ds.end - DAY, ds.end, "Asia/Shanghai")
    day1 = Window(ds.end - 2 * DAY, ds.end - DAY, "Asia/Shanghai")
    print(f"default max_concurrency {LLMSettings().max_concurrency}, latency {args.latency} s/call")
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI(latency=args.latency) as fake:
        db = str(Path(tmp) / "bench.sqlite3")
        store = store_from_dataset(ds, db)
        report, wall = run_once(store, day2, fake, args.lang)
        show("day (cold)", report, wall)
        print_split(fake, 0)
        mark = len(fake.chat_calls())
        report, wall = run_once(store, day2, fake, args.lang)
        show("same day again (cache)", report, wall)
        store.close()

        db2 = str(Path(tmp) / "incremental.sqlite3")
        store = store_from_dataset(ds, db2, when=day1.end)
        report, wall = run_once(store, day1, fake, args.lang)
        show("previous day (cold)", report, wall)
        before = _thread_numbers(report)
        store.close()
        store = store_from_dataset(ds, db2)  # the next sync: same database, newer data
        mark = len(fake.chat_calls())
        report, wall = run_once(store, day2, fake, args.lang)
        show("next day (incremental)", report, wall)
        sent = [e for e in fake.chat_calls()[mark:] if e.number]
        threads = (
            len(report.hot_discussions[:5]) + len(report.key_changes[:5]) + len(report.watch[:5])
        )
        shared = before & _thread_numbers(report)
        print(
            f"    per-thread calls sent {len(sent)} for {threads} threads; threads also in the "
            f"previous day's report: {sorted(shared) or '-'} (re-sent only if changed)"
        )
        print_split(fake, mark)
        store.close()


if __name__ == "__main__":
    main()
