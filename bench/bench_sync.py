"""Sync cost on the vLLM-sized sample day, against the fake GitHub server (no network).

Prints requests for a cold sync of the day (target <= 270), an idle rerun (target <= 5), 24
hourly incremental runs over the day, the listing pages of the cold sync per listing against
the pages the same listings take when read by page number (the cost of keyset reading), the
cold sync with reviews batched over GraphQL (target <= 30 requests), wall time of a cold sync
with injected latency per request (REST and GraphQL), CPU time to normalise and store the day,
and the peak memory of a cold sync (client side: the fake server runs in a child process for
that measurement).

Run: ``python bench/bench_sync.py`` (``--latency-ms 50``, ``--seed 0``).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import sys
import tempfile
import time
import tracemalloc
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakes.github_server import FakeClock, FakeGitHub

from devdigest.github.client import GitHubClient
from devdigest.github.normalize import (
    normalize_issue_comment,
    normalize_item,
    normalize_review,
    normalize_review_comment,
)
from devdigest.github.sync import sync_repo
from devdigest.models import SyncStats
from devdigest.sample.dataset import generate_day
from devdigest.sample.model import Dataset
from devdigest.store import open_store
from devdigest.window import iso_z

TOKEN = "bench-token"
DAY = timedelta(days=1)


def run(gh: FakeGitHub, clock: FakeClock, db: str, since=None, graphql=False) -> SyncStats:
    with open_store(db) as store:
        client = GitHubClient(gh.url, TOKEN, clock=clock.now, sleeper=clock.sleep, notify=None)
        return sync_repo(store, client, gh_repo(gh), since, graphql=graphql)


def gh_repo(gh: FakeGitHub) -> str:
    return next(iter(gh.datasets.values())).repo


def requests_table(ds: Dataset, tmp: Path) -> list[tuple[str, str]]:
    rows = []
    clock = FakeClock(ds.end)
    with FakeGitHub(ds, clock=clock, tokens={TOKEN}) as gh:
        db = str(tmp / "cold.sqlite3")
        cold = run(gh, clock, db, ds.end - DAY)
        rows.append(("cold sync of the day: requests (target <= 270)", str(cold.requests)))
        reviews = sum(r.path.endswith("/reviews") for r in gh.requests)
        rows.append(("  of which reviews (one per PR touched)", str(reviews)))
        stored = f"{cold.items} / {cold.comments} / {cold.reviews}"
        rows.append(("  items / comments / reviews stored", stored))
        rows += listing_rows(gh, ds.end - DAY)
        gh.reset_log()
        idle = run(gh, clock, db)
        idle_text = f"{idle.requests} ({idle.not_modified} x 304)"
        rows.append(("idle rerun: requests (target <= 5)", idle_text))
        gh.reset_log()
        gql = run(gh, clock, str(tmp / "graphql.sqlite3"), ds.end - DAY, graphql=True)
        rows.append(("cold sync, GraphQL reviews: requests (target <= 30)", str(gql.requests)))
        queries = sum(r.method == "POST" for r in gh.requests)
        rows.append(("  of which GraphQL queries (<= 50 PRs each)", str(queries)))
        rows.append(("  reviews stored (REST / GraphQL)", f"{cold.reviews} / {gql.reviews}"))
    clock = FakeClock(ds.end - DAY)
    with FakeGitHub(ds, clock=clock, tokens={TOKEN}) as gh:
        db = str(tmp / "hourly.sqlite3")
        run(gh, clock, db, ds.end - DAY - timedelta(hours=1))
        per_run = []
        for _ in range(24):
            clock.advance(3600)
            per_run.append(run(gh, clock, db).requests)
    rows.append(("24 hourly runs: total requests", str(sum(per_run))))
    rows.append(
        (
            "  per run: min / median / max",
            f"{min(per_run)} / {statistics.median(per_run):.0f} / {max(per_run)}",
        )
    )
    return rows


LISTED = {
    "issues": "/issues",
    "issue comments": "/issues/comments",
    "review comments": "/pulls/comments",
    "state events": "/issues/events",
}


def listing_rows(gh: FakeGitHub, since) -> list[tuple[str, str]]:
    """Pages each listing took in the cold sync just run (keyset), and by page number."""
    repo = gh_repo(gh)
    keyset = {
        name: sum(r.path == f"/repos/{repo}{suffix}" for r in gh.requests)
        for name, suffix in LISTED.items()
    }
    client = GitHubClient(gh.url, TOKEN, notify=None)
    paged = {
        name: by_page_number(client, f"repos/{repo}{LISTED[name]}", since)
        for name in ("issues", "issue comments", "review comments")
    }
    client.close()
    text = ", ".join(f"{name} {keyset[name]}" for name in LISTED)
    old = sum(paged.values())
    new = sum(keyset[name] for name in paged)
    return [
        ("  listing pages, keyset (per listing)", text),
        ("  listing pages of the 3 listings: keyset / by page number", f"{new} / {old}"),
    ]


def by_page_number(client: GitHubClient, path: str, since) -> int:
    """Pages a newest-first read by page number takes down to ``since``."""
    params = {"since": iso_z(since), "sort": "updated", "direction": "desc", "per_page": 100}
    extra = {"state": "all"} if path.endswith("/issues") else {}
    return sum(1 for _ in client.paginate(path, params | extra))


def latency_row(ds: Dataset, tmp: Path, latency: float, graphql: bool = False) -> tuple[str, str]:
    clock = FakeClock(ds.end)
    with FakeGitHub(ds, clock=clock, tokens={TOKEN}, latency=latency) as gh:
        start = time.perf_counter()
        db = str(tmp / f"latency-{graphql}.sqlite3")
        stats = run(gh, clock, db, ds.end - DAY, graphql=graphql)
        wall = time.perf_counter() - start
    how = ", GraphQL reviews" if graphql else ""
    label = f"cold sync wall time{how}, {latency * 1000:.0f} ms per request"
    return label, f"{wall:.2f} s ({stats.requests} requests)"


def normalise_row(ds: Dataset, tmp: Path) -> tuple[str, str]:
    """CPU time to normalise the day's JSON and upsert it (no HTTP)."""
    at, since = ds.end, ds.end - DAY
    issues = [ds.issue_json(it, at) for it in ds.items.values() if it.created_at <= at]
    cutoff = iso_z(since)
    issues = [obj for obj in issues if obj["updated_at"] >= cutoff]
    comments = [ds.comment_json(c, at) for c in ds.comments if c.created_at >= since]
    review_comments = [
        ds.review_comment_json(c, at) for c in ds.review_comments if c.created_at >= since
    ]
    reviews = [(ds.review_json(r), r.number) for r in ds.reviews if r.submitted_at >= since]
    store = open_store(str(tmp / "normalise.sqlite3"))
    start = time.process_time()
    items = [normalize_item(obj) for obj in issues]
    records = [normalize_issue_comment(obj) for obj in comments]
    records += [normalize_review_comment(obj) for obj in review_comments]
    records += [normalize_review(obj, n) for obj, n in reviews]
    with store.transaction() as conn:
        repo_id = store.repo_id(ds.repo, conn)
        for k in range(0, len(items), 100):  # as the sync does: a page per transaction
            store.upsert_items(conn, repo_id, items[k : k + 100])
        for k in range(0, len(records), 100):
            store.upsert_comments(conn, repo_id, records[k : k + 100])
    cpu = time.process_time() - start
    store.close()
    text = f"{cpu * 1000:.0f} ms ({len(items)} items, {len(records)} comments and reviews)"
    return "CPU to normalise + store the day", text


def _serve(ds: Dataset, conn) -> None:
    clock = FakeClock(ds.end)
    with FakeGitHub(ds, clock=clock, tokens={TOKEN}) as gh:
        conn.send(gh.url)
        conn.recv()  # until the parent is done


def memory_row(ds: Dataset, tmp: Path) -> tuple[str, str]:
    parent, child = mp.Pipe()
    proc = mp.get_context("fork").Process(target=_serve, args=(ds, child), daemon=True)
    proc.start()
    url = parent.recv()
    store = open_store(str(tmp / "memory.sqlite3"))
    clock = FakeClock(ds.end)
    tracemalloc.start()
    client = GitHubClient(url, TOKEN, clock=clock.now, sleeper=clock.sleep)
    sync_repo(store, client, ds.repo, ds.end - DAY)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    client.close()
    store.close()
    parent.send("done")
    proc.join(5)
    return "cold sync peak memory (tracemalloc, client)", f"{peak / 2**20:.1f} MiB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    args = parser.parse_args()
    ds = generate_day(seed=args.seed)
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        rows = requests_table(ds, tmp)
        rows.append(latency_row(ds, tmp, args.latency_ms / 1000))
        rows.append(latency_row(ds, tmp, args.latency_ms / 1000, graphql=True))
        rows.append(normalise_row(ds, tmp))
        rows.append(memory_row(ds, tmp))
    width = max(len(label) for label, _ in rows)
    print(f"bench_sync: generate_day(seed={args.seed}), day ending {ds.end:%Y-%m-%d %H:%M}Z")
    for label, value in rows:
        print(f"  {label:<{width}}  {value}")


if __name__ == "__main__":
    main()
