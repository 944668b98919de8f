"""Time compute_window_analysis on the sample day and on a store holding a year of history.

The analysis reads only by indexed time ranges and item numbers, so the year store should cost
about the same as the day store for the same window. Run: ``python bench/bench_analysis.py``
(``--days N`` for a shorter history, ``--repeat K`` for more samples).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.helpers import store_from_dataset

from devdigest.analysis import WindowData, analyze_window, compute_window_analysis, read_window
from devdigest.config import Config
from devdigest.sample.dataset import generate_day, generate_history
from devdigest.sample.model import Dataset
from devdigest.store import Store
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
    start = time.perf_counter()
    store: Store = store_from_dataset(ds, str(db))
    load = time.perf_counter() - start
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=365, help="days of history (default 365)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs, median shown")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        measure("vLLM-sized day", generate_day(seed=0), Path(tmp) / "day.db", args.repeat)
        history = generate_history(args.days, seed=0)
        measure(f"{args.days} days of history", history, Path(tmp) / "year.db", args.repeat)


if __name__ == "__main__":
    main()
