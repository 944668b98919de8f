"""sync_repo against the fake GitHub server: the store must equal the oracle, whatever happens."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest
import sqlalchemy as sa

from devdigest.config import load_config
from devdigest.errors import AuthError, GitHubError, NotFound
from devdigest.github.client import GitHubClient
from devdigest.github.sync import (
    CLIENT_OVERRIDES,
    MARGIN,
    covered_from,
    ensure_synced,
    sync_repo,
)
from devdigest.sample.dataset import Dataset, generate_day
from devdigest.sample.model import iso, item_state
from devdigest.store import Store
from devdigest.store import schema as t
from tests.db import scoped_store
from tests.fakes.github_server import FakeClock, FakeGitHub
from tests.fakes.oracle import expected

TOKEN = "sync-token"
HOURS = 3  # a slice of the generated day keeps every run small


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
def store(tmp_path, backend) -> Iterator[Store]:
    with scoped_store(tmp_path, "sync.sqlite3", backend) as s:
        yield s


def client(gh: FakeGitHub, clock: FakeClock, **kw: object) -> GitHubClient:
    return GitHubClient(gh.url, TOKEN, clock=clock.now, sleeper=clock.sleep, **kw)


def since_of(clock: FakeClock, hours: float = HOURS) -> datetime:
    return clock.now() - timedelta(hours=hours)


def assert_matches_oracle(
    store: Store, ds: Dataset, since: datetime, at: datetime, touched: set[int] = frozenset()
) -> None:
    """Stored items and comments are what GitHub shows, for everything since ``since``.

    ``touched``: items the fake marked as updated without changing them (their ``updated_at``
    comes from the fake's overlay, not from the dataset).
    """
    stored = {it.number: it for it in store.items_updated(ds.repo, since - timedelta(days=400))}
    wanted = {n for n, it in ds.items.items() if it.created_at <= at}
    wanted = {n for n in wanted if ds.updated_at(ds.items[n], at) >= since}
    assert wanted <= set(stored)
    for number in wanted:
        state = item_state(ds.items[number], at)
        rec = stored[number]
        assert (rec.state, rec.closed_at, rec.merged_at) == (
            state.state,
            state.closed_at,
            state.merged_at,
        ), number
        if number not in touched:
            assert rec.updated_at == ds.updated_at(ds.items[number], at)
    for start in (since, since + timedelta(hours=1), since + timedelta(minutes=97)):
        oracle = expected(ds, start, at, at=at)
        assert store.window_numbers(ds.repo, start, at) == oracle["items"]
    comments = {
        c.id
        for c in ds.comments
        if c.created_at <= at and max(c.created_at, c.updated_at or c.created_at) >= since
    }
    stored_comments = store.comments_between(ds.repo, since - timedelta(days=400), at)
    assert comments <= {c.id for c in stored_comments if c.kind == "issue_comment"}
    reviews = {
        r.id
        for r in ds.reviews
        if r.submitted_at <= at and ds.updated_at(ds.items[r.number], at) >= since
    }
    assert reviews <= {c.id for c in stored_comments}
    assert_no_duplicates(store)


def assert_no_duplicates(store: Store) -> None:
    with store.engine.connect() as c:
        rows = c.execute(sa.select(t.comments.c.kind, t.comments.c.id)).all()
        assert len(rows) == len(set(rows))


def runs(store: Store) -> list[dict]:
    with store.engine.connect() as c:
        return [dict(r) for r in c.execute(sa.select(t.sync_runs)).mappings()]


def watermark(store: Store, ds: Dataset, resource: str = "issues") -> datetime | None:
    return store.watermark(store.repo_id(ds.repo, create=False), resource)


def test_cold_sync_matches_the_oracle_and_idle_rerun_is_cheap(
    gh: FakeGitHub, clock: FakeClock, store: Store, day: Dataset
) -> None:
    since = since_of(clock)
    stats = sync_repo(store, client(gh, clock), day.repo, since)
    assert_matches_oracle(store, day, since, clock.now())
    assert stats.requests == len(gh.requests)
    review_calls = [r for r in gh.requests if r.path.endswith("/reviews")]
    touched_prs = {
        n
        for n, it in day.items.items()
        if it.is_pr and it.created_at <= clock.now() and day.updated_at(it, clock.now()) >= since
    }
    assert {int(r.path.split("/")[-2]) for r in review_calls} == touched_prs
    assert not any(r.path.endswith("/pulls") for r in gh.requests)
    for resource in ("issues", "issue_comments", "review_comments"):
        assert watermark(store, day, resource) == clock.now() - MARGIN
    assert covered_from(store, day.repo) == since

    gh.reset_log()
    idle = sync_repo(store, client(gh, clock), day.repo)
    assert len(gh.requests) == idle.requests <= 5  # repository, 3 listings, state events
    assert idle.not_modified >= 2 and idle.reviews == 0  # repository and events: 304
    listed = [r for r in gh.requests if r.query.get("since")]
    assert {r.query["since"] for r in listed} == {iso(clock.now() - MARGIN)}
    assert [r["status"] for r in runs(store)] == ["ok", "ok"]
    assert runs(store)[1]["requests"] == idle.requests


def test_hourly_runs_fetch_only_what_changed(
    gh: FakeGitHub, clock: FakeClock, store: Store, day: Dataset
) -> None:
    end = clock.now()
    clock.set(end - timedelta(hours=3))
    since = since_of(clock, 2)
    sync_repo(store, client(gh, clock), day.repo, since)
    for _ in range(3):
        clock.advance(3600)
        gh.reset_log()
        before = clock.now()
        stats = sync_repo(store, client(gh, clock), day.repo)
        assert stats.requests == len(gh.requests)
        previous_mark = iso(before - timedelta(hours=1) - MARGIN)
        assert {r.query["since"] for r in gh.requests if "since" in r.query} == {previous_mark}
    assert_matches_oracle(store, day, since, end)


FAULTS = {
    "502 burst on issues": lambda gh: gh.fail(502, times=3, path=r"/issues\?"),
    "503 on reviews": lambda gh: gh.fail(503, times=2, path="/reviews"),
    "secondary limit, Retry-After": lambda gh: gh.secondary_limit(30, path="comments"),
    "secondary limit, no Retry-After": lambda gh: gh.secondary_limit(None, times=2, at_request=5),
    "429": lambda gh: gh.too_many_requests(retry_after=11, at_request=3),
    "primary limit exhausted": lambda gh: gh.set_remaining(12, TOKEN),
    "connection reset": lambda gh: gh.reset_connection(times=2, at_request=2),
    "truncated JSON": lambda gh: gh.truncate(path=r"/issues\?", at_request=2),  # 2nd page
    "short read": lambda gh: gh.truncate(mode="short_read", path=r"/pulls/comments"),
    "item updated during paging": lambda gh: gh.touch_during_paging(r"/issues\?", 1),
}


@pytest.mark.parametrize("fault", FAULTS, ids=list(FAULTS))
def test_faults_are_survived(
    gh: FakeGitHub, clock: FakeClock, store: Store, day: Dataset, fault: str
) -> None:
    FAULTS[fault](gh)
    since = since_of(clock)
    start = clock.now()
    stats = sync_repo(store, client(gh, clock, reserve=10), day.repo, since)
    assert not gh.pending_faults() or fault == "primary limit exhausted"
    assert stats.requests == len(gh.requests)
    assert stats.slept_seconds == pytest.approx(sum(clock.slept))
    if fault == "item updated during paging":
        # the touched item moved above the pages already read: this run may miss it, and the
        # next run (from Date - margin) must pick it up with its new updated_at
        touched = next(iter(gh.touches[day.repo.lower()]))
        sync_repo(store, client(gh, clock), day.repo)
        record = store.items_by_number(day.repo, [touched])[touched]
        assert record.updated_at == clock.now()
    touched = set(gh.touches.get(day.repo.lower(), {}))
    assert_matches_oracle(store, day, since, min(clock.now(), day.end), touched)
    assert runs(store)[-1]["status"] == "ok"
    if fault == "primary limit exhausted":
        assert clock.now() >= start + timedelta(minutes=50)  # waited for the reset
        assert runs(store)[-1]["slept_seconds"] == stats.slept_seconds > 0
    else:
        assert runs(store)[-1]["retried"] == stats.retried


def test_crash_mid_listing_keeps_pages_and_rerun_converges(
    gh: FakeGitHub, clock: FakeClock, store: Store, day: Dataset
) -> None:
    since = since_of(clock)
    gh.fail(502, times=3, path=r"/issues\?", at_request=2)  # the second page
    with pytest.raises(GitHubError, match="after 3 tries"):
        sync_repo(store, client(gh, clock, max_tries=3), day.repo, since)
    assert runs(store)[-1]["status"] == "failed"
    assert watermark(store, day) is None and covered_from(store, day.repo) is None
    kept = store.items_updated(day.repo, since)
    assert len(kept) == 100  # exactly the first page
    gh.reset_log()
    sync_repo(store, client(gh, clock), day.repo, since)
    assert gh.requests[1].query["since"] == iso(since)  # re-read from the old start
    assert_matches_oracle(store, day, since, clock.now())
    assert [r["status"] for r in runs(store)] == ["failed", "ok"]


def test_interrupt_after_a_page_is_recorded_and_resumable(
    gh: FakeGitHub, clock: FakeClock, store: Store, day: Dataset
) -> None:
    since = since_of(clock)

    def progress(resource: str, rows: int) -> None:
        raise KeyboardInterrupt  # right after the first page of issues is committed

    with pytest.raises(KeyboardInterrupt):
        sync_repo(store, client(gh, clock), day.repo, since, progress=progress)
    assert runs(store)[-1]["status"] == "interrupted"
    assert watermark(store, day, "issues") is None
    first_page = store.items_updated(day.repo, since)
    assert len(first_page) == 100
    reviewed = {int(r.path.split("/")[-2]) for r in gh.requests if r.path.endswith("/reviews")}
    assert reviewed == {it.number for it in first_page if it.is_pr}
    gh.reset_log()
    sync_repo(store, client(gh, clock), day.repo, since)
    again = {int(r.path.split("/")[-2]) for r in gh.requests if r.path.endswith("/reviews")}
    assert again and not again & reviewed  # reviews of committed pages are not fetched twice
    assert_matches_oracle(store, day, since, clock.now())


def test_reviews_are_fetched_again_only_for_changed_prs(
    gh: FakeGitHub, clock: FakeClock, store: Store, day: Dataset
) -> None:
    sync_repo(store, client(gh, clock), day.repo, since_of(clock))
    pr = next(n for n, it in day.items.items() if it.is_pr and it.created_at < clock.now())
    clock.advance(600)
    gh.touch(day.repo, pr)
    gh.reset_log()
    stats = sync_repo(store, client(gh, clock), day.repo)
    reviews = [r for r in gh.requests if r.path.endswith("/reviews")]
    assert [r.path for r in reviews] == [f"/repos/{day.repo}/pulls/{pr}/reviews"]
    assert stats.requests == 6  # repository, 3 listings, 1 review, state events


def test_unknown_repository_and_bad_token_lose_nothing(
    gh: FakeGitHub, clock: FakeClock, store: Store, day: Dataset
) -> None:
    since = since_of(clock)
    sync_repo(store, client(gh, clock), day.repo, since)
    before = store.window_numbers(day.repo, since, clock.now())
    with pytest.raises(NotFound, match=r"acme/nothing not found .* DEVDIGEST_GITHUB_TOKEN"):
        sync_repo(store, client(gh, clock), "acme/nothing")
    assert store.repos() == [day.repo]
    bad = GitHubClient(gh.url, "wrong", clock=clock.now, sleeper=clock.sleep)
    with pytest.raises(AuthError, match="401"):
        sync_repo(store, bad, day.repo)
    assert store.window_numbers(day.repo, since, clock.now()) == before
    assert [r["status"] for r in runs(store)] == ["ok", "failed"]


@pytest.fixture
def config(gh: FakeGitHub, tmp_path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(CLIENT_OVERRIDES, "clock", clock.now)
    monkeypatch.setitem(CLIENT_OVERRIDES, "sleeper", clock.sleep)
    env = {"DEVDIGEST_GITHUB_TOKEN": TOKEN}
    flags = {"db": str(tmp_path / "c.sqlite3"), "github_api_url": gh.url}
    config_file = tmp_path / "devdigest.toml"
    config_file.write_text("")
    return load_config(str(config_file), flags, env)


def test_ensure_synced_reads_from_the_window_start_only_when_needed(
    gh: FakeGitHub, clock: FakeClock, store: Store, day: Dataset, config
) -> None:
    window_start = since_of(clock, 3)
    assert ensure_synced(config, store, day.repo, window_start, no_sync=True) is None
    assert gh.requests == []
    first = ensure_synced(config, store, day.repo, window_start)
    assert first is not None and first.items > 0
    assert gh.requests[1].query["since"] == iso(window_start)
    assert covered_from(store, day.repo) == window_start
    gh.reset_log()
    inside = ensure_synced(config, store, day.repo, window_start + timedelta(hours=1))
    assert inside is not None and inside.requests <= 5
    gh.reset_log()
    earlier = window_start - timedelta(hours=1)
    ensure_synced(config, store, day.repo, earlier)
    assert gh.requests[1].query["since"] == iso(earlier)
    assert covered_from(store, day.repo) == earlier
    assert_matches_oracle(store, day, earlier, clock.now())
