"""Shared by the analysis and report benchmarks: the command line, the two stores, loading."""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from devdigest.report import upsert_sample
from devdigest.sample.dataset import generate_day, generate_history
from devdigest.sample.model import Dataset
from devdigest.store import Store, open_store

Measure = Callable[[str, Dataset, Path, int], None]


def load_store(dataset: Dataset, db: Path) -> tuple[Store, float]:
    """A store at ``db`` holding ``dataset`` (no HTTP), and the seconds loading took."""
    started = time.perf_counter()
    store = open_store(str(db))
    upsert_sample(store, dataset)
    return store, time.perf_counter() - started


def run_stores(description: str, measure: Measure, repeat: int) -> None:
    """Parse ``--days`` and ``--repeat``, then ``measure`` the sample day and the long history."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--days", type=int, default=365, help="days of history (default 365)")
    parser.add_argument("--repeat", type=int, default=repeat, help="timed runs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        measure("vLLM-sized day", generate_day(seed=0), Path(tmp) / "day.db", args.repeat)
        history = generate_history(args.days, seed=0)
        measure(f"{args.days} days of history", history, Path(tmp) / "year.db", args.repeat)
