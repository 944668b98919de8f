"""sync_repo with GraphQL batching of reviews: same rows as REST, fewer requests, REST fallback."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest
import sqlalchemy as sa

from devdigest.cli import main
from devdigest.config import load_config
from devdigest.errors import GitHubError
from devdigest.github.client import GitHubClient
from devdigest.github.graphql import BATCH
from devdigest.github.sync import CLIENT_OVERRIDES, PER_PAGE, ensure_synced, sync_repo
from devdigest.sample.dataset import Dataset
from devdigest.store import Store
from devdigest.store import schema as t
from devdigest.window import iso_z
from tests.db import scoped_store
from tests.fakes.github_server import FakeClock, FakeGitHub

TOKEN = "graphql-token"
NUMBER = re.compile(r"pullRequest\(number:(\d+)\)")


@pytest.fixture(scope="module")
def day(day_dataset: Dataset) -> Dataset:
    """The sample day plus reviews by a GitHub App and by a deleted account."""
    ds = day_dataset.copy()
    prs = sorted(n for n, it in ds.items.items() if it.is_pr and it.created_at < ds.end)
    ds.add_review(prs[-1], "mergify[bot]", ds.end - timedelta(hours=2), "COMMENTED", body="bot")
    ds.add_review(prs[-2], None, ds.end - timedelta(hours=3), "APPROVED", body="ghost")
    return ds


@pytest.fixture
def clock(day: Dataset) -> FakeClock:
    return FakeClock(day.end)


@pytest.fixture
def gh(day: Dataset, clock: FakeClock) -> Iterator[FakeGitHub]:
    with FakeGitHub(day, clock=clock, tokens={TOKEN}) as server:
        yield server


@pytest.fixture
def stores(tmp_path, backend) -> Iterator[dict[str, Store]]:
    with (
        scoped_store(tmp_path, "rest.sqlite3", backend) as rest,
        scoped_store(tmp_path, "gql.sqlite3", backend) as gql,
    ):
        yield {"rest": rest, "gql": gql}


def client(gh: FakeGitHub, clock: FakeClock, base: str | None = None, **kw) -> GitHubClient:
    return GitHubClient(base or gh.url, TOKEN, clock=clock.now, sleeper=clock.sleep, **kw)


def review_rows(store: Store) -> list[sa.Row]:
    """Every stored review, all columns, in a stable order."""
    with store.engine.connect() as c:
        query = sa.select(t.comments).where(t.comments.c.kind == "review")
        return sorted(c.execute(query).all(), key=lambda row: (row.number, row.id))


def touched_prs(ds: Dataset, since: datetime, at: datetime) -> set[int]:
    return {
        n
        for n, it in ds.items.items()
        if it.is_pr and it.created_at <= at and ds.updated_at(it, at) >= since
    }


def queried(gh: FakeGitHub) -> list[list[int]]:
    """The PR numbers of each GraphQL query the fake answered, read from the logged bodies."""
    posts = [r for r in gh.requests if r.method == "POST" and r.charged]
    return [[int(n) for n in NUMBER.findall(r.body["query"])] for r in posts]


def rest_review_calls(gh: FakeGitHub) -> list[int]:
    return [int(r.path.split("/")[-2]) for r in gh.requests if r.path.endswith("/reviews")]


def expected_review_ids(ds: Dataset, prs: set[int], at: datetime) -> set[int]:
    return {r.id for r in ds.reviews if r.number in prs and r.submitted_at <= at}


def test_cold_sync_of_the_day_stores_what_rest_stores_in_few_requests(
    gh: FakeGitHub, clock: FakeClock, stores: dict[str, Store], day: Dataset
) -> None:
    since = clock.now() - timedelta(days=1)
    rest = sync_repo(stores["rest"], client(gh, clock), day.repo, since)
    gh.reset_log()
    gql = sync_repo(stores["gql"], client(gh, clock), day.repo, since, graphql=True)
    assert gql.requests == len(gh.requests) <= 30 < rest.requests
    assert rest_review_calls(gh) == [] and gql.notes == []
    batches = queried(gh)
    assert all(0 < len(batch) <= BATCH for batch in batches)
    numbers = [n for batch in batches for n in batch]
    assert len(numbers) == len(set(numbers))
    assert set(numbers) == touched_prs(day, since, clock.now())
    pages = sum(r.path.endswith("/issues") for r in gh.requests)
    assert len(batches) <= 2 * pages  # a page has at most PER_PAGE PRs
    assert PER_PAGE <= 2 * BATCH
    rows = review_rows(stores["gql"])
    assert rows == review_rows(stores["rest"])
    assert {row.id for row in rows} == expected_review_ids(day, set(numbers), clock.now())
    authors = {(row.author, row.author_type) for row in rows}
    assert {("mergify[bot]", "Bot"), ("ghost", "User")} <= authors
    assert gql.reviews == rest.reviews == len(rows)

    gh.reset_log()
    idle = sync_repo(stores["gql"], client(gh, clock), day.repo, graphql=True)
    assert idle.requests == len(gh.requests) <= 5 and idle.reviews == 0


def test_enterprise_server_without_graphql_falls_back_to_rest(
    day: Dataset, clock: FakeClock, stores: dict[str, Store]
) -> None:
    since = clock.now() - timedelta(hours=3)
    with FakeGitHub(day, clock=clock, tokens={TOKEN}, graphql=False) as gh:
        c = client(gh, clock, base=gh.enterprise_url)
        assert c.graphql_url == f"{gh.url}/api/graphql"
        stats = sync_repo(stores["gql"], c, day.repo, since, graphql=True)
        posts = [r for r in gh.requests if r.method == "POST"]
        assert [(r.path, r.status) for r in posts] == [("/graphql", 404)]
        prs = touched_prs(day, since, clock.now())
        assert sorted(rest_review_calls(gh)) == sorted(prs)
    assert len(stats.notes) == 1 and "REST" in stats.notes[0] and "404" in stats.notes[0]
    ids = {row.id for row in review_rows(stores["gql"])}
    assert ids == expected_review_ids(day, prs, clock.now())


def test_a_pr_with_more_than_100_reviews_is_read_over_rest(
    day: Dataset, stores: dict[str, Store]
) -> None:
    ds = day.copy()
    clock = FakeClock(ds.end)
    since = ds.end - timedelta(hours=2)
    busy = max(touched_prs(ds, since, ds.end))
    for k in range(105):
        ds.add_review(busy, f"reviewer{k}", ds.end - timedelta(minutes=k + 1), "COMMENTED")
    with FakeGitHub(ds, clock=clock, tokens={TOKEN}) as gh:
        stats = sync_repo(stores["gql"], client(gh, clock), ds.repo, since, graphql=True)
        assert busy in {n for batch in queried(gh) for n in batch}
        assert rest_review_calls(gh) == [busy, busy]  # two REST pages of 100
        prs = touched_prs(ds, since, ds.end)
    assert stats.notes == []
    ids = {row.id for row in review_rows(stores["gql"])}
    assert ids == expected_review_ids(ds, prs, ds.end)
    assert len([r for r in ds.reviews if r.number == busy]) > 105


def test_a_502_on_the_graphql_endpoint_is_retried(
    gh: FakeGitHub, clock: FakeClock, stores: dict[str, Store], day: Dataset
) -> None:
    since = clock.now() - timedelta(hours=3)
    gh.fail(502, times=2, path="^/graphql")
    stats = sync_repo(stores["gql"], client(gh, clock), day.repo, since, graphql=True)
    assert not gh.pending_faults() and stats.retried == 2 and stats.notes == []
    assert [r.status for r in gh.requests if r.method == "POST"][:3] == [502, 502, 200]
    assert rest_review_calls(gh) == []
    prs = touched_prs(day, since, clock.now())
    assert {row.id for row in review_rows(stores["gql"])} == expected_review_ids(
        day, prs, clock.now()
    )


def test_graphql_rate_limit_is_waited_out_on_its_own_bucket(
    gh: FakeGitHub, clock: FakeClock, stores: dict[str, Store], day: Dataset
) -> None:
    gh.set_remaining(0, TOKEN, resource="graphql")
    start = clock.now()
    since = start - timedelta(hours=1)
    c = client(gh, clock)
    stats = sync_repo(stores["gql"], c, day.repo, since, graphql=True)
    posts = [r for r in gh.requests if r.method == "POST"]
    assert [r.charged for r in posts] == [False] + [True] * (len(posts) - 1)  # RATE_LIMITED
    assert stats.retried == 1 and clock.now() - start >= timedelta(minutes=50)
    assert c.rates["graphql"].limit == 5000 and c.rate_limit == 5000
    assert c.rates["graphql"].remaining == 5000 - len(queried(gh))
    assert len(clock.slept) == 1  # only GraphQL waited: the REST bucket is another one
    assert rest_review_calls(gh) == []


def test_crash_and_interrupt_then_rerun_converge(
    gh: FakeGitHub, clock: FakeClock, stores: dict[str, Store], day: Dataset
) -> None:
    since = clock.now() - timedelta(hours=3)
    sync_repo(stores["rest"], client(gh, clock), day.repo, since)
    store = stores["gql"]

    def interrupt(resource: str, rows: int) -> None:
        raise KeyboardInterrupt  # right after the first issues page is committed

    gh.reset_log()
    with pytest.raises(KeyboardInterrupt):
        sync_repo(store, client(gh, clock), day.repo, since, progress=interrupt, graphql=True)
    first_page = store.items_updated(day.repo, since)
    assert len(first_page) == PER_PAGE
    first = {n for batch in queried(gh) for n in batch}
    assert first == {it.number for it in first_page if it.is_pr}
    assert {row.number for row in review_rows(store)} <= first

    gh.fail(502, times=3, path=r"/issues\?", at_request=2)  # the second page
    gh.reset_log()
    with pytest.raises(GitHubError, match="after 3 tries"):
        sync_repo(store, client(gh, clock, max_tries=3), day.repo, since, graphql=True)
    assert not {n for batch in queried(gh) for n in batch} & first  # committed: not re-read

    gh.reset_log()
    sync_repo(store, client(gh, clock), day.repo, since, graphql=True)
    assert review_rows(store) == review_rows(stores["rest"])
    assert store.window_numbers(day.repo, since, clock.now()) == stores["rest"].window_numbers(
        day.repo, since, clock.now()
    )


def test_setting_from_the_environment_reaches_ensure_synced(
    gh: FakeGitHub, clock: FakeClock, stores: dict[str, Store], day: Dataset, tmp_path, monkeypatch
) -> None:
    monkeypatch.setitem(CLIENT_OVERRIDES, "clock", clock.now)
    monkeypatch.setitem(CLIENT_OVERRIDES, "sleeper", clock.sleep)
    config_file = tmp_path / "devdigest.toml"
    config_file.write_text("")
    flags = {"github_api_url": gh.url}
    env = {"DEVDIGEST_GITHUB_TOKEN": TOKEN}
    assert load_config(str(config_file), flags, env).github_graphql is False
    config = load_config(str(config_file), flags, env | {"DEVDIGEST_GITHUB_GRAPHQL": "1"})
    assert config.github_graphql is True
    stats = ensure_synced(config, stores["gql"], day.repo, clock.now() - timedelta(hours=1))
    assert stats is not None and stats.reviews > 0
    assert queried(gh) and rest_review_calls(gh) == []


def test_cli_flag_beats_the_environment(
    gh: FakeGitHub, clock: FakeClock, day: Dataset, tmp_path, monkeypatch, capsys
) -> None:
    monkeypatch.setitem(CLIENT_OVERRIDES, "clock", clock.now)
    monkeypatch.setitem(CLIENT_OVERRIDES, "sleeper", clock.sleep)
    for name in ("GITHUB_TOKEN", "DEVDIGEST_DB", "DEVDIGEST_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DEVDIGEST_GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("DEVDIGEST_GITHUB_GRAPHQL", "1")
    (tmp_path / "devdigest.toml").write_text("")
    since = iso_z(clock.now() - timedelta(hours=1))
    argv = ["--config", str(tmp_path / "devdigest.toml"), "--github-api-url", gh.url]
    for flag, db in (("--no-graphql", "a"), ("--graphql", "b")):
        gh.reset_log()
        db_flag = ["--db", str(tmp_path / f"{db}.sqlite3")]
        assert main([*argv, *db_flag, "sync", day.repo, "--since", since, flag]) == 0
        assert bool(queried(gh)) is (flag == "--graphql")
        assert bool(rest_review_calls(gh)) is (flag == "--no-graphql")
    gh.fail(404, times=1, path="^/graphql")
    db_flag = ["--db", str(tmp_path / "c.sqlite3")]
    capsys.readouterr()
    assert main([*argv, *db_flag, "stats", day.repo, "--since", since, "--json"]) == 0
    assert "note: GraphQL failed, reviews read over REST instead" in capsys.readouterr().err


def test_without_a_token_reviews_stay_on_rest(
    gh: FakeGitHub, clock: FakeClock, stores: dict[str, Store], day: Dataset
) -> None:
    since = clock.now() - timedelta(minutes=20)
    anonymous = GitHubClient(gh.url, None, clock=clock.now, sleeper=clock.sleep)
    stats = sync_repo(stores["gql"], anonymous, day.repo, since, graphql=True)
    assert not any(r.method == "POST" for r in gh.requests)
    assert sorted(rest_review_calls(gh)) == sorted(touched_prs(day, since, clock.now()))
    assert stats.notes == ["GraphQL needs a token: reviews read over REST instead"]
