"""Data fidelity of sync under partial failures, moving listings, clocks and locks (issue 12)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from devdigest.errors import GitHubError, RateLimited
from devdigest.github.client import GitHubClient
from devdigest.github.sync import MARGIN, covered_from, sync_repo
from devdigest.sample.dataset import Dataset, generate_day, generate_history
from devdigest.sample.model import item_state
from devdigest.store import Store, open_store
from tests.db import scoped_store
from tests.fakes.github_server import FakeClock, FakeGitHub
from tests.fakes.oracle import expected
from tests.helpers import store_from_dataset
from tests.test_sync import assert_matches_oracle, runs, watermark

TOKEN = "fidelity-token"


@pytest.fixture(scope="module")
def day() -> Dataset:
    return generate_day(seed=3)


@pytest.fixture
def clock(day: Dataset) -> FakeClock:
    return FakeClock(day.end)


@pytest.fixture
def gh(day: Dataset, clock: FakeClock) -> Iterator[FakeGitHub]:
    with FakeGitHub(day, clock=clock, tokens={TOKEN}) as server:
        yield server


@pytest.fixture
def store(tmp_path) -> Iterator[Store]:
    with scoped_store(tmp_path, "fidelity.sqlite3") as s:
        yield s


def client(gh: FakeGitHub, clock: FakeClock, **kw: object) -> GitHubClient:
    return GitHubClient(gh.url, TOKEN, clock=clock.now, sleeper=clock.sleep, **kw)


def reviewed(gh: FakeGitHub) -> list[int]:
    return [int(r.path.split("/")[-2]) for r in gh.requests if r.path.endswith("/reviews")]


def test_a_review_failing_for_good_keeps_the_page_and_is_read_next_run(
    gh: FakeGitHub, clock: FakeClock, store: Store, day: Dataset
) -> None:
    since = clock.now() - timedelta(hours=3)
    gh.fail(502, times=6, path="/reviews")  # the first review request, six times over
    with pytest.raises(GitHubError, match="after 6 tries"):
        sync_repo(store, client(gh, clock), day.repo, since)
    victim = reviewed(gh)[0]
    assert len(store.items_updated(day.repo, since)) == 100  # the page is kept
    assert victim in store.pending_reviews(store.repo_id(day.repo))
    gh.reset_log()
    sync_repo(store, client(gh, clock), day.repo, since)
    assert reviewed(gh)[0] == victim  # the queue left by the failed run comes first
    assert store.pending_reviews(store.repo_id(day.repo)) == []
    assert_matches_oracle(store, day, since, clock.now())


def test_an_exhausted_rate_limit_keeps_every_fetched_page(
    gh: FakeGitHub, clock: FakeClock, store: Store, day: Dataset
) -> None:
    since = clock.now() - timedelta(hours=3)
    gh.set_remaining(40, TOKEN)  # runs out among the first page's reviews
    with pytest.raises(RateLimited, match="everything fetched so far is kept"):
        sync_repo(store, client(gh, clock, wait=False, reserve=0), day.repo, since)
    kept = store.items_updated(day.repo, since)
    assert len(kept) == 100  # the claim is true: the page fetched is in the store
    assert watermark(store, day, "issues") is None  # the listing did not complete


def test_an_item_leaving_the_listing_during_paging_loses_no_other_item(
    gh: FakeGitHub, clock: FakeClock, store: Store, day: Dataset
) -> None:
    since = clock.now() - timedelta(hours=3)
    fault = gh.delete_during_paging(r"/issues\?", after_page=1)
    sync_repo(store, client(gh, clock), day.repo, since)
    assert fault.fired == 1
    gone = gh.deleted[day.repo.lower()]
    at = clock.now()
    wanted = {
        n
        for n, it in day.items.items()
        if it.created_at <= at and day.updated_at(it, at) >= since and n not in gone
    }
    stored = {it.number for it in store.items_updated(day.repo, since)}
    assert wanted <= stored


def test_listings_are_read_by_keyset_oldest_first(
    gh: FakeGitHub, clock: FakeClock, store: Store, day: Dataset
) -> None:
    since = clock.now() - timedelta(hours=3)
    sync_repo(store, client(gh, clock), day.repo, since)
    issues = [r for r in gh.requests if r.path.endswith("/issues")]
    assert len(issues) >= 2 and all(r.query["direction"] == "asc" for r in issues)
    cursors = [r.query["since"] for r in issues]
    assert cursors == sorted(cursors) and len(set(cursors)) == len(cursors)


# --- state history ---------------------------------------------------------------------------

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def flip_flop() -> Dataset:
    """An issue closed on day 1, reopened on day 3 and closed again on day 5; a PR closed
    unmerged on day 1, reopened and merged on day 2."""
    ds = Dataset(repo="acme/history", start=T0, end=T0 + timedelta(days=6))
    ds.add_item(1, created_at=T0 + timedelta(hours=1), closed_at=T0 + timedelta(days=1, hours=2))
    ds.reopen(1, T0 + timedelta(days=3))
    ds.close(1, T0 + timedelta(days=5, hours=1))
    ds.add_item(2, is_pr=True, created_at=T0 + timedelta(hours=2))
    ds.close(2, T0 + timedelta(days=1, hours=3))
    ds.reopen(2, T0 + timedelta(days=2))
    ds.merge(2, T0 + timedelta(days=2, hours=5))
    ds.add_item(3, created_at=T0 + timedelta(hours=3), closed_at=T0 + timedelta(days=4))
    return ds


def test_past_windows_count_what_a_run_at_their_end_counted(tmp_path) -> None:
    ds = flip_flop()
    clock = FakeClock(ds.end)
    with (
        FakeGitHub(ds, clock=clock, tokens={TOKEN}) as gh,
        scoped_store(tmp_path, "history.sqlite3") as store,
    ):
        sync_repo(store, client(gh, clock), ds.repo, T0)
        for d in range(6):
            start, end = T0 + timedelta(days=d), T0 + timedelta(days=d + 1)
            oracle = expected(ds, start, end)
            assert store.window_numbers(ds.repo, start, end) == oracle["items"], d
        day1 = store.window_numbers(ds.repo, T0 + timedelta(days=1), T0 + timedelta(days=2))
        assert day1["closed_issues"] == [1] and day1["closed_unmerged_prs"] == [2]
        changes = store.item_state_changes(ds.repo, T0 + timedelta(days=2), ds.end)
        assert [(e.created_at, e.number, e.event) for e in changes] == sorted(
            [
                (T0 + timedelta(days=2), 2, "reopened"),
                (T0 + timedelta(days=2, hours=5), 2, "closed"),  # a merge is both
                (T0 + timedelta(days=2, hours=5), 2, "merged"),
                (T0 + timedelta(days=3), 1, "reopened"),
                (T0 + timedelta(days=4), 3, "closed"),
                (T0 + timedelta(days=5, hours=1), 1, "closed"),
            ],
            key=lambda row: (row[0], [e.event for e in changes].index(row[2])),
        )


def test_state_events_are_read_incrementally(tmp_path) -> None:
    ds = flip_flop()
    clock = FakeClock(T0 + timedelta(days=2, hours=12))
    with (
        FakeGitHub(ds, clock=clock, tokens={TOKEN}) as gh,
        scoped_store(tmp_path, "events.sqlite3") as store,
    ):
        sync_repo(store, client(gh, clock), ds.repo, T0)
        first = len(store.item_state_changes(ds.repo, T0, ds.end))
        clock.set(ds.end)
        gh.reset_log()
        stats = sync_repo(store, client(gh, clock), ds.repo)
        assert stats.events == 3  # reopened 1, closed 3, closed 1: only what is new
        assert len(store.item_state_changes(ds.repo, T0, ds.end)) == first + 3
        assert [r.path for r in gh.requests].count(f"/repos/{ds.repo}/issues/events") == 1


# --- one clock: the server's -----------------------------------------------------------------


def test_a_wrong_local_clock_neither_skips_the_fetch_nor_claims_unread_history(
    gh: FakeGitHub, clock: FakeClock, store: Store, day: Dataset
) -> None:
    server_now = clock.now()
    local_ahead = lambda: server_now + timedelta(days=30)  # noqa: E731
    wrong = GitHubClient(gh.url, TOKEN, clock=local_ahead, sleeper=clock.sleep)
    stats = sync_repo(store, wrong, day.repo, lookback=timedelta(hours=3))
    assert stats.items > 100  # --days counted back from the server's Date
    assert covered_from(store, day.repo) == server_now - timedelta(hours=3)
    future = GitHubClient(gh.url, TOKEN, clock=local_ahead, sleeper=clock.sleep)
    sync_repo(store, future, day.repo, local_ahead() - timedelta(hours=1))
    assert covered_from(store, day.repo) <= server_now - MARGIN
    assert watermark(store, day) == server_now - MARGIN


# --- SQLite lock -----------------------------------------------------------------------------


def test_a_locked_database_is_waited_for_and_the_write_retried(tmp_path) -> None:
    path = tmp_path / "locked.sqlite3"
    open_store(str(path)).close()
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    waits: list[float] = []

    def sleeper(seconds: float) -> None:
        waits.append(seconds)
        blocker.execute("COMMIT")  # ... and releases it while we back off

    store = open_store(str(path), busy_timeout=0.05)
    store.sleep = sleeper
    repo_id = store.write(lambda conn: store.repo_id("acme/locked", conn))
    assert repo_id > 0 and len(waits) == 1
    blocker.close()
    store.close()


def test_every_day_of_a_history_counts_what_a_run_at_its_end_counted(tmp_path) -> None:
    ds = generate_history(days=10, seed=3)  # items closed, reopened and closed again included
    store = store_from_dataset(ds, str(tmp_path / "history10.sqlite3"))
    changed_days = 0
    for d in range(10):
        end = ds.end - timedelta(days=d)
        start = end - timedelta(days=1)
        oracle = expected(ds, start, end)["items"]
        assert store.window_numbers(ds.repo, start, end) == oracle, d
        changed_days += oracle != expected_by_final_state(ds, start, end)
    assert changed_days >= 3  # days a store without state history would now count differently
    store.close()


def expected_by_final_state(ds: Dataset, start: datetime, end: datetime) -> dict:
    """The counts as the latest state alone would give them (closures judged at the dataset's
    end): what the store counted before it kept the state history."""
    items = expected(ds, start, end)["items"]
    closed = [
        n
        for n, it in ds.items.items()
        if not it.is_pr
        and (st := item_state(it, ds.end)).state == "closed"
        and start <= st.closed_at < end
    ]
    return items | {"closed_issues": sorted(closed)}


def test_two_concurrent_syncs_on_one_sqlite_file_both_finish(
    gh: FakeGitHub, clock: FakeClock, tmp_path, day: Dataset
) -> None:
    db = str(tmp_path / "shared.sqlite3")
    open_store(db).close()
    since = clock.now() - timedelta(hours=1)
    errors: list[Exception] = []

    def one_sync() -> None:
        try:
            with open_store(db) as store:
                sync_repo(store, client(gh, clock), day.repo, since)
        except Exception as exc:  # any failure fails the test below
            errors.append(exc)

    threads = [threading.Thread(target=one_sync) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with open_store(db) as store:
        assert_matches_oracle(store, day, since, clock.now())
        assert [r["status"] for r in runs(store)] == ["ok", "ok"]


def test_state_events_paged_past_githubs_depth_limit_keep_what_was_read(
    gh: FakeGitHub, clock: FakeClock, store: Store, day: Dataset
) -> None:
    since = clock.now() - timedelta(days=1)
    gh.fail(422, path=r"/issues/events\?.*page=2")  # "Validation failed" for deep pages
    stats = sync_repo(store, client(gh, clock), day.repo, since)
    assert stats.events > 0 and any("state history reaches back to" in n for n in stats.notes)
    repo_id = store.repo_id(day.repo)
    reached = store.watermark(repo_id, "issue_events:from")
    assert (
        since
        < reached
        == min(e.created_at for e in store.item_state_changes(day.repo, since, clock.now()))
    )
    assert store.watermark(repo_id, "issues:from") == since  # the items are complete
