"""Time compute_window_analysis on the sample day and on a store holding a year of history.

The analysis reads only by indexed time ranges and item numbers, so the year store should cost
about the same as the day store for the same window. Run: ``python bench/bench_analysis.py``
(``--days N`` for a shorter history, ``--repeat K`` for more samples).
"""

from __future__ import annotations

import statistics
import time
from datetime import timedelta
from pathlib import Path

from _common import load_store, run_stores
from devdigest.analysis import WindowData, analyze_window, compute_window_analysis, read_window
from devdigest.config import Config
from devdigest.sample.model import Dataset
from devdigest.window import Window


def timed(func, repeat: int) -> tuple[float, object]:
    samples, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = func()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), result


def rows_read(data: WindowData) -> int:
    """Records the reads returned: the cost that must not grow with the stored history."""
    return (
        len(data.items)
        + len(data.comments)
        + sum(len(rows) for rows in data.history.values())
        + len(data.previous)
        + len(data.linked)
    )


def measure(label: str, ds: Dataset, db: Path, repeat: int) -> None:
    store, load = load_store(ds, db)
    config = Config(db=str(db))
    assert ds.end is not None
    window = Window(ds.end - timedelta(days=1), ds.end, "Asia/Shanghai")
    project = config.project(ds.repo)
    rules = config.categories_for(project)
    total, analysis = timed(lambda: compute_window_analysis(store, config, ds.repo, window), repeat)
    reads, data = timed(lambda: read_window(store, ds.repo, window), repeat)
    pure, _ = timed(lambda: analyze_window(data, project, rules, window), repeat)
    store.close()
    print(
        f"{label:<22} items={len(ds.items):>6} comments+reviews="
        f"{len(ds.comments) + len(ds.review_comments) + len(ds.reviews):>7}  "
        f"load {load:6.2f} s | analysis {total * 1000:7.1f} ms "
        f"(reads {reads * 1000:6.1f} ms, compute {pure * 1000:6.1f} ms) "
        f"rows read {rows_read(data):>6}  "
        f"counts {analysis.counts.model_dump()}"
    )


if __name__ == "__main__":
    run_stores(__doc__.splitlines()[0], measure, repeat=5)
