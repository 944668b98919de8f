"""A month (30-day) period report on stores holding 1, 6 and 12 months of vLLM-sized history.

The same period, the 30 days ending 2026-03-13 03:24Z (the end of every generated history), is
reported on each store: analysis (all store reads and rankings), both languages written and
rendered (Markdown, JSON, SVG). Its cost must not grow with the history beyond the period (the
previous periods are read by COUNT queries only). Stores are shared with bench_stats.py and
cached under bench/out/. Target: under 3 s at 12 months.

Run: ``python bench/bench_period.py`` (``--months 1 6`` for fewer stores, ``--repeat 3``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_stats import REPO, cached_store
from devdigest.analysis.period import compute_period_analysis
from devdigest.config import load_config
from devdigest.render.period import (
    render_period_chart,
    render_period_json,
    render_period_markdown,
)
from devdigest.sample.dataset import DEFAULT_DAY_END
from devdigest.window import Window
from devdigest.writers.period import write_period_report

DAYS = {1: 30, 6: 182, 12: 365}
NOW = datetime(2026, 3, 13, 4, 0, tzinfo=UTC)


def one_report(store, config, window: Window) -> tuple[float, float, float]:
    """(analysis seconds, write + render seconds for zh and en, CPU seconds of the process)."""
    started, cpu = time.perf_counter(), time.process_time()
    analysis = compute_period_analysis(store, config, REPO, window)
    analysed = time.perf_counter()
    for lang in ("zh", "en"):
        report = write_period_report(analysis, lang, now=NOW)
        render_period_markdown(report), render_period_json(report), render_period_chart(report)
    done = time.perf_counter()
    return analysed - started, done - analysed, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--months", type=int, nargs="*", default=list(DAYS), choices=list(DAYS))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    config = load_config(env={})
    window = Window(DEFAULT_DAY_END - timedelta(days=30), DEFAULT_DAY_END, "UTC")
    print(f"bench_period: period report of {window.label}, median of {args.repeat} runs")
    head = f"  {'history':>8}  {'items':>7}  {'analysis s':>10}  {'write s':>8}  {'total s':>8}"
    print(head + f"  {'CPU s':>6}")
    for months in args.months:
        store, _, _ = cached_store(DAYS[months])
        with store.engine.connect() as conn:
            items = conn.exec_driver_sql("select count(*) from items").scalar_one()
        one_report(store, config, window)  # warm: imports, templates, page cache
        runs = [one_report(store, config, window) for _ in range(args.repeat)]
        store.close()
        analysis = statistics.median(r[0] for r in runs)
        write = statistics.median(r[1] for r in runs)
        total = statistics.median(r[0] + r[1] for r in runs)
        cpu = statistics.median(r[2] for r in runs)
        print(
            f"  {months:>6} m  {items:>7}  {analysis:>10.2f}  {write:>8.2f}  {total:>8.2f}"
            f"  {cpu:>6.2f}"
        )


if __name__ == "__main__":
    main()
