"""Time and peak memory of producing a report (analysis + write + render) from a synced store.

Two stores: the generated vLLM-sized day, and a year of history ending at the same time. The cost
of a report must not grow with the stored history. Targets: < 2 s and < 300 MB per report.
The CPU time (``process_time``) is printed too: on a shared machine it is the steadier figure.

    python bench/bench_report.py [--days 365] [--repeat 3]
"""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import psutil

from _common import load_store, run_stores
from devdigest.analysis import compute_window_analysis
from devdigest.config import Config, load_config
from devdigest.render.markdown import render_json, render_markdown
from devdigest.report import sample_window
from devdigest.sample.model import Dataset
from devdigest.store import Store
from devdigest.writers.offline import write_offline


def produce(store: Store, config: Config, dataset: Dataset) -> int:
    """One full report in both languages; returns the Markdown size."""
    window = sample_window(dataset.end)
    analysis = compute_window_analysis(store, config, dataset.repo, window, now=dataset.end)
    size = 0
    for lang in ("zh", "en"):
        report = write_offline(analysis, lang, now=dataset.end)
        size += len(render_markdown(report)) + len(render_json(report))
    return size


def measure(label: str, dataset: Dataset, db: Path, repeat: int) -> None:
    store, load = load_store(dataset, db)
    config = load_config(env={})
    process = psutil.Process()
    produce(store, config, dataset)  # warm up (imports, template compilation)
    times, cpu = [], []
    for _ in range(repeat):
        started, cpu_started = time.perf_counter(), time.process_time()
        size = produce(store, config, dataset)
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - cpu_started)
    tracemalloc.start()  # a separate run: tracing slows Python down
    produce(store, config, dataset)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = process.memory_info().rss
    store.close()
    print(
        f"{label:<28} items={len(dataset.items):>6} load={load:6.2f}s "
        f"report(zh+en) best={min(times):.3f}s median={sorted(times)[len(times) // 2]:.3f}s "
        f"cpu best={min(cpu):.3f}s "
        f"report-peak={peak / 2**20:.1f}MB process-rss={rss / 2**20:.0f}MB(incl. dataset) "
        f"output={size / 1024:.0f}KB"
    )


if __name__ == "__main__":
    run_stores(__doc__, measure, repeat=3)
