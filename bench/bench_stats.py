"""`stats` query time on stores holding 1, 3, 6 and 12 months of vLLM-sized history.

Each store is built without HTTP (generate_history → normalize → upsert) and cached under
bench/out/. For each store: the median and worst time of ``Store.window_numbers`` over day windows
spread across the history (target < 100 ms per window at 12 months), their median CPU time,
and the time of a whole
``devdigest stats --no-sync --json`` run in-process.

Run: ``python bench/bench_stats.py`` (``--months 1 3`` for fewer stores, ``--windows 30``).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakes.oracle import expected
from tests.helpers import store_from_dataset

from devdigest.cli import main as cli_main
from devdigest.sample.dataset import DEFAULT_DAY_END, generate_history
from devdigest.store import Store, open_store
from devdigest.window import iso_z

OUT = Path(__file__).resolve().parent / "out"
DAYS = {1: 30, 3: 91, 6: 182, 12: 365}
REPO = "vllm-project/vllm"


def cached_store(days: int) -> tuple[Store, Path, float | None]:
    """The store for ``days`` of history; built (and timed) if not cached yet."""
    OUT.mkdir(exist_ok=True)
    path = OUT / f"stats_history_{days}d.sqlite3"
    if path.exists():
        return open_store(str(path)), path, None
    start = time.perf_counter()
    ds = generate_history(days)
    store = store_from_dataset(ds, str(path))
    oracle = expected(ds, ds.end - timedelta(days=1), ds.end)
    got = store.window_numbers(REPO, ds.end - timedelta(days=1), ds.end)
    assert got == oracle["items"], "the built store disagrees with the oracle"
    return store, path, time.perf_counter() - start


def time_windows(store: Store, days: int, count: int) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of ``window_numbers`` per window (CPU: what a busy machine distorts
    least, the database being in-process)."""
    wall, cpu = [], []
    for k in range(count):
        end = DEFAULT_DAY_END - timedelta(days=(days - 1) * k / max(1, count - 1))
        start_time, start_cpu = time.perf_counter(), time.process_time()
        store.window_numbers(REPO, end - timedelta(days=1), end)
        wall.append(time.perf_counter() - start_time)
        cpu.append(time.process_time() - start_cpu)
    return wall, cpu


def time_cli(path: Path) -> tuple[float, dict]:
    argv = ["--db", str(path), "stats", REPO, "--json", "--no-sync"]
    start, end = DEFAULT_DAY_END - timedelta(days=1), DEFAULT_DAY_END
    argv += ["--since", iso_z(start), "--until", iso_z(end)]
    out = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out):
        code = cli_main(argv)
    elapsed = time.perf_counter() - start
    assert code == 0
    return elapsed, json.loads(out.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--months", type=int, nargs="*", default=list(DAYS), choices=list(DAYS))
    parser.add_argument("--windows", type=int, default=30)
    args = parser.parse_args()
    print("bench_stats: Store.window_numbers on one-day windows; CLI = stats --no-sync --json")
    header = (
        f"  {'history':>8}  {'items':>7}  {'median ms':>9}  {'max ms':>7}  {'CPU ms':>7}"
        f"  {'CLI ms':>7}  build"
    )
    print(header)
    for months in args.months:
        days = DAYS[months]
        store, path, built = cached_store(days)
        with store.engine.connect() as conn:
            items = conn.exec_driver_sql("select count(*) from items").scalar_one()
        store.window_numbers(REPO, DEFAULT_DAY_END - timedelta(days=1), DEFAULT_DAY_END)  # warm
        samples, cpu = time_windows(store, days, args.windows)
        store.close()
        time_cli(path)  # warm: imports and first connection
        cli, payload = time_cli(path)
        assert sum(payload["counts"].values()) > 0
        build = f"{built:.1f} s" if built is not None else "cached"
        print(
            f"  {months:>6} m  {items:>7}  {statistics.median(samples) * 1000:>9.1f}  "
            f"{max(samples) * 1000:>7.1f}  {statistics.median(cpu) * 1000:>7.1f}  "
            f"{cli * 1000:>7.0f}  {build}"
        )


if __name__ == "__main__":
    main()
