"""A Celery run over many synthetic repositories with 1, 2 and 4 workers (one task slot each).

The fake GitHub server (this process) answers every request after 50–150 ms and serves a handful
of vLLM-sized repositories and many small ones; 4 tokens; PostgreSQL and Redis from the local
services (a fresh schema and queue prefix per measurement). Each measurement enqueues the day's
run from an empty store and waits for it: total requests, requests per repository-day, wall time
from enqueue to the run's end, rate-limit answers (403/429), peak resident memory of any worker
process, and when the large and the small repositories' reports were done (fairness).

Run: ``python bench/bench_distributed.py`` (defaults: ``--repos 1000 --large 5 --workers 4,2,1``).
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil
import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.db import pg_schema
from tests.distributed_case import (
    TOKENS,
    base_day,
    cluster,
    many_repositories,
    rows,
    run_ended,
    run_id_of,
    run_status,
)
from tests.fakes.github_server import FakeClock, FakeGitHub
from tests.run_case import END

from devdigest.store import schema as t

POOL = (*TOKENS, "tok-d")  # 4 tokens


def repositories(count: int, large: int) -> list:
    """``large`` repositories of a whole generated vLLM-sized day; the others as in the
    end-to-end tests: one in ten medium (about 85 items), the rest 20 items or fewer."""
    sets = many_repositories(count)
    for k, ds in enumerate(sets):
        if k < large:
            ds = sets[k] = copy.deepcopy(base_day())
        ds.repo = f"bench/{'large' if k < large else 'small'}{k:04d}"
    return sets


def measure(datasets: list, workers: int, tmp: Path) -> dict:
    with (
        FakeGitHub(
            datasets, clock=FakeClock(END), tokens=set(POOL), latency=0.05, jitter=0.1
        ) as gh,
        pg_schema() as db,
        cluster(tmp, db, gh.url, [ds.repo for ds in datasets], "redis://127.0.0.1:6379/0") as nodes,
    ):
        nodes.tokens = POOL
        nodes.visibility = 3600  # the production default: no redelivery of a long sync
        procs = [nodes.start_worker(concurrency=1) for _ in range(workers)]
        time.sleep(3)  # let the workers start before the clock starts
        peak, stop = {p.pid: 0 for p in procs}, threading.Event()
        threading.Thread(target=_sample, args=(procs, peak, stop), daemon=True).start()
        started = time.perf_counter()
        run = run_id_of(nodes.enqueue())
        while not run_ended(db, run):
            time.sleep(0.5)
        wall = time.perf_counter() - started
        stop.set()
        done = _finish_times(db)
        assert run_status(db, run) == "ok"
    return {
        "workers": workers,
        "requests": len(gh.requests),
        "charged": gh.charged,  # without GET /rate_limit, which GitHub does not charge
        "per_repo_day": len(gh.requests) / len(datasets),
        "wall": wall,
        "limited": sum(r.status in (403, 429) for r in gh.requests),
        "peak_mb": max(peak.values()) / 2**20,
        "large_done": max(done["large"]) - min(done["all"]),
        "small_median": statistics.median(done["small"]) - min(done["all"]),
        "small_done": max(done["small"]) - min(done["all"]),
    }


def _sample(procs: list, peak: dict, stop: threading.Event) -> None:
    while not stop.is_set():
        for proc in procs:
            try:
                tree = psutil.Process(proc.pid)
                members = [tree, *tree.children(recursive=True)]
                peak[proc.pid] = max(peak[proc.pid], *(m.memory_info().rss for m in members))
            except psutil.Error:
                continue
        time.sleep(0.2)


def _finish_times(db: str) -> dict[str, list[float]]:
    c = t.tasks.c
    query = sa.select(c.repo, c.finished_at).where(c.name == "reports", c.status == "ok")
    found: dict[str, list[float]] = {"large": [], "small": [], "all": []}
    start = rows(db, sa.select(sa.func.min(c.started_at)))[0][0].timestamp()
    found["all"].append(start)
    for repo, finished in rows(db, query):
        found["large" if "/large" in repo else "small"].append(finished.timestamp())
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", type=int, default=1000)
    parser.add_argument("--large", type=int, default=5)
    parser.add_argument("--workers", default="4,2,1")
    args = parser.parse_args()
    datasets = repositories(args.repos, args.large)
    print(f"{args.repos} repositories ({args.large} vLLM-sized), 4 tokens, 50-150 ms per request")
    print(
        "workers  requests  charged  req/repo-day  wall s  rate-limited  peak MB/worker  "
        "large done s  small median s  small done s"
    )
    for workers in (int(w) for w in args.workers.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            m = measure(datasets, workers, Path(tmp))
        print(
            f"{m['workers']:7d}  {m['requests']:8d}  {m['charged']:7d}  "
            f"{m['per_repo_day']:12.1f}  {m['wall']:6.1f}  "
            f"{m['limited']:12d}  {m['peak_mb']:14.0f}  {m['large_done']:12.1f}  "
            f"{m['small_median']:14.1f}  {m['small_done']:13.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
