"""Self-tests of the sample dataset, the fake GitHub server and the oracle."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime

import httpx
import pytest

from devdigest.sample.dataset import Dataset, generate_day, generate_history
from tests.fakes.fixtures import day_dataset, fake_clock, fake_github  # noqa: F401
from tests.fakes.github_server import FakeClock, FakeGitHub
from tests.fakes.oracle import expected

REPO = "/repos/vllm-project/vllm"
T0 = datetime(2026, 3, 1, tzinfo=UTC)
AUTH = {"Authorization": "Bearer good"}


def h(hours: float) -> datetime:
    return T0 + timedelta(hours=hours)


def small_dataset() -> Dataset:
    ds = Dataset(repo="acme/widgets", end=h(48))
    ds.add_item(1, created_at=h(-10), title="old issue closed inside", closed_at=h(2))
    ds.add_item(2, is_pr=True, created_at=h(-5), title="merged at start", merged_at=h(0))
    ds.add_item(3, is_pr=True, created_at=h(1), title="merged at end", merged_at=h(24))
    ds.add_item(4, created_at=h(3), title="closed then reopened", closed_at=h(4))
    ds.reopen(4, h(5))
    ds.add_item(5, is_pr=True, created_at=h(2), title="closed unmerged", closed_at=h(6))
    ds.add_item(6, created_at=h(30), title="created after the window")
    ds.add_item(7, created_at=h(0), title="created exactly at start")
    ds.add_item(8, is_pr=True, created_at=h(-30), title="closed, reopened, closed again")
    ds.close(8, h(-20))
    ds.reopen(8, h(1))
    ds.close(8, h(10))
    ds.add_comment(1, "alice", h(20), "late comment")
    ds.add_review(3, "bob", h(12), "APPROVED")
    return ds


@pytest.fixture
def tiny():
    ds = small_dataset()
    clock = FakeClock(h(48))
    with FakeGitHub(
        ds, clock=clock, tokens={"good", "limited"}, no_access={"limited": ["acme/widgets"]}
    ) as gh:
        yield gh, httpx.Client(base_url=gh.url, headers=AUTH, timeout=5)


# ---- dataset -------------------------------------------------------------------------------


def test_generate_day_is_deterministic_and_sized(day_dataset):  # noqa: F811
    again = generate_day(seed=0)
    end = day_dataset.end
    items = sorted(day_dataset.items)[-50:]
    assert [day_dataset.issue_json(day_dataset.items[n], end) for n in items] == [
        again.issue_json(again.items[n], end) for n in items
    ]
    assert generate_day(seed=1).items.keys() != day_dataset.items.keys()
    counts = expected(day_dataset, end - timedelta(days=1), end)["counts"]
    assert 15 <= counts["new_issues"] <= 35 and 65 <= counts["new_prs"] <= 105
    assert 30 <= counts["merged_prs"] <= 50 and 25 <= counts["closed_unmerged_prs"] <= 45
    assert 15 <= counts["closed_issues"] <= 35
    start = end - timedelta(days=1)
    touched = [it for it in day_dataset.items.values() if day_dataset.updated_at(it, end) >= start]
    assert 330 <= len(touched) <= 480
    assert 150 <= sum(it.is_pr for it in touched) <= 300
    talk = sum(c.created_at >= start for c in day_dataset.comments + day_dataset.review_comments)
    assert 650 <= talk <= 950
    assert 200 <= sum(r.submitted_at >= start for r in day_dataset.reviews) <= 300
    earlier = expected(day_dataset, start - timedelta(days=3), start)["counts"]
    assert earlier["new_prs"] > 100  # previous days exist for trends


def test_generate_day_contains_hazards_and_conventions(day_dataset):  # noqa: F811
    start = day_dataset.end - timedelta(days=1)
    today = [it for it in day_dataset.items.values() if it.created_at >= start]
    assert any(it.author is None for it in today)
    assert any("{{ site.title }}" in it.title and "<script>" in it.title for it in today)
    assert any("Ignore previous instructions" in (it.body or "") for it in today)
    assert any(it.draft for it in today)
    assert any(e.kind == "reopened" and e.at >= start for it in today for e in it.events)
    rocm = [it for it in today if "rocm" in it.labels]
    assert 0.05 <= len(rocm) / len(today) <= 0.25
    assert any(
        it.author_association == "FIRST_TIME_CONTRIBUTOR" for it in day_dataset.items.values()
    )
    assert any("Fixes #" in (it.body or "") for it in today)
    bots = {c.author for c in day_dataset.comments if c.author_type == "Bot"}
    assert {"github-actions[bot]", "mergify[bot]"} <= bots
    ids = [c.id for c in day_dataset.comments + day_dataset.review_comments + day_dataset.reviews]
    assert len(ids) == len(set(ids))
    replies = {rc.in_reply_to for rc in day_dataset.review_comments if rc.in_reply_to}
    assert replies <= {rc.id for rc in day_dataset.review_comments}


def test_generate_history_small():
    ds = generate_history(days=10, seed=3)
    assert 900 <= len(ds.items) <= 1600
    assert len(ds.comments) + len(ds.review_comments) + len(ds.reviews) > 6000


def test_as_of_materialisation():
    ds = small_dataset()
    four = ds.items[4]
    assert ds.issue_json(four, h(4.5))["state"] == "closed"
    after = ds.issue_json(four, h(6))
    assert after["state"] == "open" and after["closed_at"] is None
    assert after["state_reason"] == "reopened"
    assert ds.issue_json(ds.items[1], h(21))["comments"] == 1
    assert ds.issue_json(ds.items[1], h(19))["comments"] == 0
    assert ds.issue_json(ds.items[1], h(21))["updated_at"] == "2026-03-01T20:00:00Z"
    assert ds.issue_json(ds.items[3], h(13))["updated_at"] == "2026-03-01T12:00:00Z"
    pr = ds.pull_json(ds.items[3], h(30))
    assert pr["merged_at"] == "2026-03-02T00:00:00Z" and pr["state"] == "closed"
    assert ds.pull_json(ds.items[3], h(23))["merged_at"] is None


# ---- server --------------------------------------------------------------------------------


def test_listing_pagination_link_and_since(fake_github, day_dataset):  # noqa: F811
    client = httpx.Client(base_url=fake_github.enterprise_url, headers=AUTH)
    since = day_dataset.end - timedelta(days=1)
    params = {
        "state": "all",
        "since": since.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "sort": "updated",
        "direction": "desc",
        "per_page": 100,
    }
    resp = client.get(f"{REPO}/issues", params=params)
    assert resp.status_code == 200 and len(resp.json()) == 100
    assert resp.links["next"]["url"].startswith(fake_github.enterprise_url)
    assert "page=2" in resp.links["next"]["url"] and "last" in resp.links
    seen = resp.json()
    while "next" in resp.links:
        resp = client.get(resp.links["next"]["url"])
        seen += resp.json()
    numbers = [row["number"] for row in seen]
    assert len(numbers) == len(set(numbers))
    stamps = [row["updated_at"] for row in seen]
    assert stamps == sorted(stamps, reverse=True) and min(stamps) >= params["since"]
    want = [
        n
        for n, it in day_dataset.items.items()
        if day_dataset.updated_at(it, day_dataset.end) >= since
    ]
    assert sorted(numbers) == sorted(want)
    assert any("pull_request" in row for row in seen)
    big = client.get(f"{REPO}/issues", params={"per_page": 500, "state": "all"})
    assert len(big.json()) == 100
    default = client.get(f"{REPO}/issues/comments")
    assert len(default.json()) == 30
    assert default.json()[0]["created_at"] <= default.json()[-1]["created_at"]
    pulls = client.get(
        f"{REPO}/pulls", params={"state": "all", "sort": "updated", "direction": "desc"}
    )
    assert all(row["head"]["ref"] for row in pulls.json()) and "merge_commit_sha" in pulls.json()[0]


def test_as_of_clock_and_date_header(tiny):
    gh, client = tiny
    gh.clock.set(h(2))
    rows = client.get(
        f"{REPO.replace('vllm-project/vllm', 'acme/widgets')}/issues", params={"state": "all"}
    ).json()
    assert 6 not in [r["number"] for r in rows]
    assert {r["number"]: r["state"] for r in rows}[1] == "closed"
    gh.clock.advance(30 * 3600)
    resp = client.get("/repos/acme/widgets/issues", params={"state": "open"})
    assert 6 in [r["number"] for r in resp.json()]
    assert parsedate_to_datetime(resp.headers["Date"]) == h(32)
    reviews = client.get("/repos/acme/widgets/pulls/3/reviews").json()
    assert [r["state"] for r in reviews] == ["APPROVED"]
    assert client.get("/repos/acme/widgets/pulls/1").status_code == 404


def test_etag_304_is_free(tiny):
    gh, client = tiny
    gh.clock.set(h(20))
    first = client.get("/repos/acme/widgets/issues")
    remaining = int(first.headers["X-RateLimit-Remaining"])
    again = client.get(
        "/repos/acme/widgets/issues", headers={"If-None-Match": first.headers["ETag"]}
    )
    assert again.status_code == 304 and again.content == b""
    assert int(again.headers["X-RateLimit-Remaining"]) == remaining
    assert gh.requests[-1].was_304 and not gh.requests[-1].charged
    gh.clock.advance(3600 * 12)  # item 6 appears: the listing changes
    changed = client.get(
        "/repos/acme/widgets/issues", headers={"If-None-Match": first.headers["ETag"]}
    )
    assert changed.status_code == 200


def test_rate_limit_exhaustion_and_reset():
    ds = small_dataset()
    clock = FakeClock(h(48))
    with FakeGitHub(ds, clock=clock, anonymous_limit=2) as gh:
        client = httpx.Client(base_url=gh.url)
        assert client.get("/repos/acme/widgets").status_code == 200
        assert client.get("/repos/acme/widgets").headers["X-RateLimit-Remaining"] == "0"
        blocked = client.get("/repos/acme/widgets")
        assert blocked.status_code == 403 and "rate limit exceeded" in blocked.json()["message"]
        reset = int(blocked.headers["X-RateLimit-Reset"])
        clock.sleep(reset - clock.time() + 1)
        assert client.get("/repos/acme/widgets").status_code == 200
        assert client.get("/rate_limit").json()["resources"]["core"]["remaining"] == 1


def test_auth_failures(tiny):
    gh, client = tiny
    bad = client.get("/repos/acme/widgets", headers={"Authorization": "token nope"})
    assert bad.status_code == 401 and bad.json()["message"] == "Bad credentials"
    denied = client.get("/repos/acme/widgets", headers={"Authorization": "token limited"})
    assert denied.status_code == 403 and int(denied.headers["X-RateLimit-Remaining"]) > 0
    assert client.get("/repos/acme/nothing").json()["message"] == "Not Found"
    gh.datasets["acme/widgets"].private = True
    assert httpx.get(f"{gh.url}/repos/acme/widgets").status_code == 404
    assert client.get("/repos/acme/widgets").status_code == 200
    gh.datasets["acme/widgets"].private = False


def test_faults_fire_as_scripted(tiny):
    gh, client = tiny
    url = "/repos/acme/widgets/issues"
    burst = gh.fail(503, times=2, path=r"/issues")
    assert [client.get(url).status_code for _ in range(3)] == [503, 503, 200]
    assert burst.fired == 2 and not burst.pending
    gh.fail(502)
    assert client.get(url).status_code == 502
    gh.secondary_limit(retry_after=7)
    with_retry = client.get(url)
    assert with_retry.status_code == 403 and with_retry.headers["Retry-After"] == "7"
    assert "secondary rate limit" in with_retry.json()["message"]
    assert int(with_retry.headers["X-RateLimit-Remaining"]) > 0
    gh.secondary_limit()
    assert "Retry-After" not in client.get(url).headers
    gh.too_many_requests(retry_after=3)
    assert client.get(url).status_code == 429
    gh.reset_connection()
    with pytest.raises(httpx.TransportError):
        client.get(url)
    gh.truncate("short_body")
    with pytest.raises(json.JSONDecodeError):
        client.get(url).json()
    gh.truncate("short_read")
    with pytest.raises(httpx.RemoteProtocolError):
        client.get(url)
    gh.slow(120, at_request=len(gh.requests))
    started = time.perf_counter()
    assert client.get(url).status_code == 200
    assert time.perf_counter() - started >= 0.1
    assert client.get(url).status_code == 200
    assert gh.pending_faults() == []
    assert [r.fault for r in gh.requests if r.fault] == [
        "status",
        "status",
        "status",
        "secondary",
        "secondary",
        "secondary",
        "reset",
        "truncate",
        "truncate",
        "slow",
    ]


def test_item_updated_during_paging_duplicates_never_skips(fake_github, day_dataset):  # noqa: F811
    client = httpx.Client(base_url=fake_github.url, headers=AUTH)
    fault = fake_github.touch_during_paging(path=r"/issues\?", after_page=1)
    params = {
        "state": "all",
        "sort": "updated",
        "direction": "desc",
        "per_page": 50,
        "since": "2026-03-12T03:24:00Z",
    }
    resp = client.get(f"{REPO}/issues", params=params)
    rows = resp.json()
    while "next" in resp.links:
        resp = client.get(resp.links["next"]["url"])
        rows += resp.json()
    assert fault.fired == 1
    numbers = [r["number"] for r in rows]
    assert numbers[49] == numbers[50]  # last of page 1 shifted to the top of page 2
    top = client.get(f"{REPO}/issues", params=params).json()[0]
    assert top["updated_at"] == "2026-03-13T03:24:00Z"
    day = {
        n
        for n, it in day_dataset.items.items()
        if day_dataset.updated_at(it, day_dataset.end).isoformat() >= "2026-03-12T03:24"
    }
    assert day - set(numbers) <= {top["number"]}


def test_oracle_boundaries():
    ds = small_dataset()
    result = expected(ds, h(0), h(24))
    assert result["items"] == {
        "new_issues": [4, 7],
        "closed_issues": [1],
        "new_prs": [3, 5],
        "merged_prs": [2],
        "closed_unmerged_prs": [5, 8],
    }
    assert result["counts"]["merged_prs"] == 1
    assert expected(ds, h(0), h(24), at=h(4.5))["items"]["closed_issues"] == [1, 4]
