"""Self-tests of the fake GitHub's `POST /graphql` (the one reviews query devdigest sends)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from devdigest.errors import AuthError, NotFound
from devdigest.github.client import GitHubClient
from devdigest.github.graphql import GraphQLError, graphql_url, reviews_query
from devdigest.sample.model import Dataset
from tests.fakes.github_server import FakeClock, FakeGitHub

T0 = datetime(2026, 3, 1, tzinfo=UTC)
AUTH = {"Authorization": "Bearer good"}
VARS = {"owner": "acme", "name": "widgets"}


def dataset() -> Dataset:
    ds = Dataset(repo="acme/widgets", end=T0 + timedelta(hours=10))
    ds.add_item(1, is_pr=True, created_at=T0, title="a PR")
    ds.add_item(2, created_at=T0, title="an issue")
    ds.add_item(3, is_pr=True, created_at=T0 + timedelta(hours=4), title="PR, no reviews")
    ds.add_item(4, is_pr=True, created_at=T0 + timedelta(hours=9), title="not yet created")
    ds.add_review(1, "alice", T0 + timedelta(hours=1), "CHANGES_REQUESTED", body="fix")
    ds.add_review(1, "mergify[bot]", T0 + timedelta(hours=2), "COMMENTED", body="queued")
    ds.add_review(1, None, T0 + timedelta(hours=3), "APPROVED")
    ds.add_review(1, "bob", T0 + timedelta(hours=20), "APPROVED")  # in the future
    return ds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0 + timedelta(hours=5))


@pytest.fixture
def gh(clock: FakeClock) -> Iterator[FakeGitHub]:
    with FakeGitHub(dataset(), clock=clock, tokens={"good"}, graphql_limit=3) as server:
        yield server


def post(gh: FakeGitHub, numbers: list[int], path: str = "/graphql", **kw) -> httpx.Response:
    body = {"query": reviews_query(numbers), "variables": kw.pop("variables", VARS)}
    return httpx.post(gh.url + path, json=body, headers=kw.pop("headers", AUTH), timeout=5)


def test_reviews_are_the_rest_reviews_in_graphql_shape(gh: FakeGitHub) -> None:
    resp = post(gh, [1])
    assert resp.status_code == 200 and resp.headers["X-RateLimit-Resource"] == "graphql"
    nodes = resp.json()["data"]["repository"]["p1"]["reviews"]["nodes"]
    rest = httpx.get(f"{gh.url}/repos/acme/widgets/pulls/1/reviews", headers=AUTH).json()
    assert len(nodes) == len(rest) == 3  # the review after the clock is not visible yet
    for node, review in zip(nodes, rest, strict=True):
        assert node["databaseId"] == review["id"] and node["url"] == review["html_url"]
        assert (node["state"], node["body"], node["submittedAt"]) == (
            review["state"],
            review["body"],
            review["submitted_at"],
        )
    authors = [node["author"] for node in nodes]
    assert authors == [
        {"login": "alice", "__typename": "User"},
        {"login": "mergify", "__typename": "Bot"},  # GraphQL drops the [bot] suffix
        None,
    ]


def test_unknown_numbers_resolve_to_null_with_not_found(gh: FakeGitHub) -> None:
    payload = post(gh, [1, 2, 3, 4, 99]).json()
    repository = payload["data"]["repository"]
    assert repository["p1"]["number"] == 1 and repository["p3"]["reviews"]["nodes"] == []
    assert repository["p2"] is None and repository["p4"] is None and repository["p99"] is None
    assert [(e["type"], e["path"]) for e in payload["errors"]] == [
        ("NOT_FOUND", ["repository", "p2"]),
        ("NOT_FOUND", ["repository", "p4"]),
        ("NOT_FOUND", ["repository", "p99"]),
    ]
    other = post(gh, [1], variables={"owner": "acme", "name": "nothing"}).json()
    assert other["data"]["repository"] is None and other["errors"][0]["type"] == "NOT_FOUND"


def test_separate_bucket_rate_limit_object_and_exhaustion(gh: FakeGitHub, clock) -> None:
    core = httpx.get(f"{gh.url}/rate_limit", headers=AUTH).json()["resources"]["core"]
    answers = [post(gh, [1]) for _ in range(4)]
    remaining = [a.json().get("data", {}).get("rateLimit", {}).get("remaining") for a in answers]
    assert remaining == [2, 1, 0, None]
    assert [a.headers["X-RateLimit-Remaining"] for a in answers] == ["2", "1", "0", "0"]
    assert answers[3].json()["errors"][0]["type"] == "RATE_LIMITED"
    assert answers[0].json()["data"]["rateLimit"]["cost"] == 1
    assert httpx.get(f"{gh.url}/rate_limit", headers=AUTH).json()["resources"]["core"] == core
    assert [r.charged for r in gh.requests if r.method == "POST"] == [True] * 3 + [False]
    clock.advance(3601)
    assert post(gh, [1]).json()["data"]["rateLimit"]["remaining"] == 2


def test_auth_paths_faults_and_unreadable_queries(gh: FakeGitHub) -> None:
    assert post(gh, [1], headers={"Authorization": "Bearer bad"}).status_code == 401
    assert post(gh, [1], headers={}).status_code == 401  # GraphQL needs a token
    assert post(gh, [1], path="/api/graphql").json()["data"]["repository"]["p1"]
    assert httpx.get(f"{gh.url}/graphql", headers=AUTH).status_code == 404
    gh.fail(502, path="^/graphql$")
    assert post(gh, [1], path="/api/graphql").status_code == 502
    odd = httpx.post(f"{gh.url}/graphql", json={"query": "{ viewer { login } }"}, headers=AUTH)
    assert odd.status_code == 200 and "errors" in odd.json() and "data" not in odd.json()
    logged = [(r.method, r.path, r.status) for r in gh.requests]
    assert logged[-2:] == [("POST", "/graphql", 502), ("POST", "/graphql", 200)]
    assert gh.requests[-1].body == {"query": "{ viewer { login } }"}


def test_client_graphql_against_the_fake(gh: FakeGitHub, clock: FakeClock) -> None:
    client = GitHubClient(gh.enterprise_url, "good", clock=clock.now, sleeper=clock.sleep)
    assert client.graphql_url == f"{gh.url}/api/graphql"
    assert graphql_url("https://api.github.com/") == "https://api.github.com/graphql"
    assert graphql_url("https://ghe.example.com/api/v3") == "https://ghe.example.com/api/graphql"
    data = client.graphql(reviews_query([1]), VARS)
    assert data["rateLimit"]["remaining"] == client.rates["graphql"].remaining == 2
    assert client.rate_remaining is None  # the REST bucket has not been seen
    with pytest.raises(GraphQLError, match="Could not resolve") as err:
        client.graphql(reviews_query([99]), VARS)
    assert err.value.types == {"NOT_FOUND"} and err.value.data["repository"]["p99"] is None
    bad = GitHubClient(gh.url, "bad", clock=clock.now, sleeper=clock.sleep)
    with pytest.raises(AuthError, match="401"):
        bad.graphql(reviews_query([1]), VARS)
    with FakeGitHub(dataset(), clock=clock, graphql=False) as old, pytest.raises(NotFound):
        GitHubClient(old.url, "good", clock=clock.now).graphql(reviews_query([1]), VARS)
    assert client.stats.requests == 2
