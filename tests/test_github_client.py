"""GitHubClient against the fake GitHub server: conditional GETs, paging, retries, limits."""

from __future__ import annotations

import hashlib
import random
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import httpx
import pytest

from devdigest.errors import AuthError, GitHubError, NotFound, RateLimited
from devdigest.github.client import GitHubClient, token_fingerprint
from devdigest.sample.model import Dataset
from tests.fakes.github_server import FakeClock, FakeGitHub

T0 = datetime(2026, 3, 1, tzinfo=UTC)
REPO = "acme/widgets"
ISSUES = f"/repos/{REPO}/issues"
TOKEN = "good-token"


def small_dataset() -> Dataset:
    ds = Dataset(repo=REPO, start=T0, end=T0 + timedelta(hours=10))
    for n in range(1, 8):
        ds.add_item(n, created_at=T0 + timedelta(minutes=10 * n), is_pr=n % 2 == 0)
    return ds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0 + timedelta(hours=10))


@pytest.fixture
def gh(clock: FakeClock) -> Iterator[FakeGitHub]:
    with FakeGitHub(small_dataset(), clock=clock, tokens={TOKEN}) as server:
        yield server


class NoJitter(random.Random):
    """Backoff without its random part, so delays are the exponential bases."""

    def uniform(self, a: float, b: float) -> float:
        return a


def client(
    gh: FakeGitHub, clock: FakeClock, token: str | None = TOKEN, **kw: object
) -> GitHubClient:
    kw.setdefault("rng", NoJitter())
    return GitHubClient(gh.url, token, clock=clock.now, sleeper=clock.sleep, **kw)


def test_fingerprint_is_a_sha256_prefix_or_anon() -> None:
    assert token_fingerprint("abc") == hashlib.sha256(b"abc").hexdigest()[:16]
    assert token_fingerprint(None) == "anon"
    assert token_fingerprint("") == "anon"


def test_conditional_get_returns_304_and_costs_no_quota(gh: FakeGitHub, clock: FakeClock) -> None:
    c = client(gh, clock)
    first = c.get(f"/repos/{REPO}")
    assert first.status == 200 and first.data["full_name"] == REPO and first.etag
    assert first.date == clock.now()
    second = c.get(f"/repos/{REPO}", etag=first.etag)
    assert second.not_modified and second.data is None
    assert gh.requests[-1].headers["if-none-match"] == first.etag
    assert (c.stats.requests, c.stats.not_modified) == (2, 1)
    assert gh.charged == 1
    assert c.rate_remaining == c.rate_limit - 1 == 4999


def test_pagination_follows_next_links_to_the_end(gh: FakeGitHub, clock: FakeClock) -> None:
    c = client(gh, clock)
    params = {"state": "all", "sort": "created", "direction": "asc", "per_page": 3}
    pages = list(c.paginate(ISSUES, params))
    numbers = [obj["number"] for page in pages for obj in page.data]
    assert numbers == list(range(1, 8))
    assert len(pages) == len(gh.requests) == 3
    assert [r.query.get("page", "1") for r in gh.requests] == ["1", "2", "3"]


def test_enterprise_base_url_keeps_its_path(gh: FakeGitHub, clock: FakeClock) -> None:
    c = GitHubClient(gh.enterprise_url, TOKEN, clock=clock.now, sleeper=clock.sleep)
    pages = list(c.paginate(ISSUES, {"state": "all", "per_page": 4}))
    assert sum(len(p.data) for p in pages) == 7
    assert all(p.url.startswith(gh.enterprise_url) for p in pages)


def test_anonymous_client_sends_no_authorization(gh: FakeGitHub, clock: FakeClock) -> None:
    c = client(gh, clock, token=None)
    c.get(f"/repos/{REPO}")
    assert "authorization" not in gh.requests[0].headers
    assert c.token_fp == "anon" and c.rate_limit == 60


def test_token_is_sent_as_bearer(gh: FakeGitHub, clock: FakeClock) -> None:
    client(gh, clock).get(f"/repos/{REPO}")
    assert gh.requests[0].headers["authorization"] == f"Bearer {TOKEN}"


@pytest.mark.parametrize("status", [502, 503, 500])
def test_server_errors_back_off_exponentially(
    gh: FakeGitHub, clock: FakeClock, status: int
) -> None:
    gh.fail(status, times=3)
    c = client(gh, clock)
    assert c.get(f"/repos/{REPO}").status == 200
    assert clock.slept == [1.0, 2.0, 4.0]
    assert (c.stats.requests, c.stats.retried, c.stats.slept_seconds) == (4, 3, 7.0)


def test_server_errors_give_up_after_max_tries(gh: FakeGitHub, clock: FakeClock) -> None:
    gh.fail(503, times=10)
    c = client(gh, clock, max_tries=4)
    with pytest.raises(GitHubError, match="after 4 tries") as err:
        c.get(f"/repos/{REPO}")
    assert not isinstance(err.value, RateLimited)
    assert len(gh.requests) == 4 and clock.slept == [1.0, 2.0, 4.0]


def test_backoff_has_seeded_jitter_and_every_wait_is_announced(
    gh: FakeGitHub, clock: FakeClock
) -> None:
    delays = []
    for _ in range(2):
        gh.fail(502, times=3)
        lines: list[str] = []
        before = len(clock.slept)
        client(gh, clock, rng=random.Random(7), notify=lines.append).get(f"/repos/{REPO}")
        delays.append(clock.slept[before:])
        assert len(lines) == 3 and all("server error 502" in line for line in lines)
        assert all(" UTC (" in line and "local)" in line for line in lines)
    assert delays[0] == delays[1]  # the same seed, the same waits
    for k, delay in enumerate(delays[0]):
        assert 2**k <= delay <= 1.5 * 2**k
    assert delays[0] != [1.0, 2.0, 4.0]


def test_backoff_is_capped(gh: FakeGitHub, clock: FakeClock) -> None:
    gh.fail(502, times=5)
    client(gh, clock, backoff_cap=3.0).get(f"/repos/{REPO}")
    assert clock.slept == [1.0, 2.0, 3.0, 3.0, 3.0]


def test_secondary_limit_with_retry_after(gh: FakeGitHub, clock: FakeClock) -> None:
    gh.secondary_limit(retry_after=30)
    c = client(gh, clock)
    assert c.get(f"/repos/{REPO}").status == 200
    assert clock.slept == [30.0] and c.stats.retried == 1


def test_secondary_limit_without_retry_after_waits_a_minute_or_more(
    gh: FakeGitHub, clock: FakeClock
) -> None:
    gh.secondary_limit(retry_after=None, times=2)
    c = client(gh, clock)
    assert c.get(f"/repos/{REPO}").status == 200
    first, second = clock.slept
    assert 60 <= first <= 75 and 120 <= second <= 150  # exponential, with up to 25% jitter


def test_429_uses_retry_after(gh: FakeGitHub, clock: FakeClock) -> None:
    gh.too_many_requests(retry_after=7)
    assert client(gh, clock).get(f"/repos/{REPO}").status == 200
    assert clock.slept == [7.0]


def test_secondary_limit_that_never_ends_is_rate_limited(gh: FakeGitHub, clock: FakeClock) -> None:
    gh.secondary_limit(retry_after=5, times=10)
    with pytest.raises(RateLimited, match="rerun later"):
        client(gh, clock, max_tries=3).get(f"/repos/{REPO}")


def test_exhausted_primary_limit_waits_for_the_reset(gh: FakeGitHub, clock: FakeClock) -> None:
    gh.set_remaining(0, TOKEN)
    c = client(gh, clock)
    start = clock.now()
    response = c.get(f"/repos/{REPO}")
    assert response.status == 200
    assert [r.status for r in gh.requests] == [403, 200]
    reset = datetime.fromtimestamp(int(gh.requests[0].timestamp.timestamp()) + 3600, UTC)
    assert clock.now() >= reset > start
    assert c.stats.slept_seconds == pytest.approx((reset - start).total_seconds() + 1, abs=1)


def test_below_the_reserve_waits_before_the_next_request(gh: FakeGitHub, clock: FakeClock) -> None:
    gh.set_remaining(20, TOKEN)
    c = client(gh, clock, reserve=50)
    c.get(f"/repos/{REPO}")  # leaves 19 < 50
    assert clock.slept == []
    c.get(f"/repos/{REPO}")
    assert len(clock.slept) == 1 and clock.slept[0] > 3000
    assert [r.status for r in gh.requests] == [200, 200]
    assert c.rate_remaining == 4999  # a fresh hour


def test_no_wait_raises_a_resumable_rate_limit(gh: FakeGitHub, clock: FakeClock) -> None:
    gh.set_remaining(0, TOKEN)
    c = client(gh, clock, wait=False)
    with pytest.raises(RateLimited, match="drop --no-wait") as err:
        c.get(f"/repos/{REPO}")
    assert err.value.reset_at is not None and err.value.reset_at > clock.now().timestamp()
    assert clock.slept == []


def test_anonymous_reserve_is_a_tenth_of_the_small_limit(gh: FakeGitHub, clock: FakeClock) -> None:
    c = client(gh, clock, token=None, reserve=50)
    for _ in range(10):
        c.get(f"/repos/{REPO}")
    assert clock.slept == []  # 50 left, still above 60 // 10
    assert c.effective_reserve == 6


def test_connection_reset_is_retried(gh: FakeGitHub, clock: FakeClock) -> None:
    gh.reset_connection(times=2)
    c = client(gh, clock)
    assert c.get(f"/repos/{REPO}").status == 200
    assert c.stats.retried == 2 and len(gh.requests) == 3


@pytest.mark.parametrize("mode", ["short_body", "short_read"])
def test_truncated_json_is_retried(gh: FakeGitHub, clock: FakeClock, mode: str) -> None:
    gh.truncate(mode=mode)
    c = client(gh, clock)
    response = c.get(ISSUES, {"state": "all"})
    assert len(response.data) == 7 and c.stats.retried == 1


def test_bad_token_is_an_auth_error(gh: FakeGitHub, clock: FakeClock) -> None:
    with pytest.raises(AuthError, match=r"401 Bad credentials\): check DEVDIGEST_GITHUB_TOKEN"):
        client(gh, clock, token="wrong").get(f"/repos/{REPO}")
    assert len(gh.requests) == 1


def test_token_without_access_is_an_auth_error(clock: FakeClock) -> None:
    with (
        FakeGitHub(small_dataset(), clock=clock, no_access={TOKEN: [REPO]}) as server,
        pytest.raises(AuthError, match="403"),
    ):
        client(server, clock).get(f"/repos/{REPO}")


def test_missing_object_is_not_found(gh: FakeGitHub, clock: FakeClock) -> None:
    with pytest.raises(NotFound):
        client(gh, clock).get("/repos/acme/nothing")


def test_unreachable_api_names_the_url_and_the_setting(clock: FakeClock) -> None:
    with FakeGitHub(small_dataset(), clock=clock) as server:
        url = server.url  # the port is free once the server stops
    c = GitHubClient(url, TOKEN, clock=clock.now, sleeper=clock.sleep)
    with pytest.raises(GitHubError, match="--github-api-url") as err:
        c.get(f"/repos/{REPO}")
    assert url in str(err.value) and clock.slept == []


def test_absolute_urls_must_stay_on_the_api_origin(gh: FakeGitHub, clock: FakeClock) -> None:
    c = client(gh, clock)
    port = gh.port
    for url in (
        f"http://localhost:{port}/repos/{REPO}",
        f"https://127.0.0.1:{port}/repos/{REPO}",
        f"http://127.0.0.1:{port + 1}/repos/{REPO}",
    ):
        with pytest.raises(GitHubError, match="refusing"):
            c.get(url)
    assert gh.requests == []
    assert c.get(f"http://127.0.0.1:{port}/repos/{REPO}").status == 200


class _Relay(BaseHTTPRequestHandler):
    """Forwards to the fake, claiming another Host so its Link headers point elsewhere."""

    target = ""
    claimed_host = ""
    seen: ClassVar[list[dict[str, str]]] = []

    def do_GET(self) -> None:
        type(self).seen.append(dict(self.headers))
        if not self.target:
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"[]")
            return
        headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
        headers["Host"] = self.claimed_host
        resp = httpx.get(self.target + self.path, headers=headers)
        self.send_response(resp.status_code)
        for name in ("Content-Type", "Link", "ETag", "Date"):
            if name in resp.headers:
                self.send_header(name, resp.headers[name])
        self.send_header("Content-Length", str(len(resp.content)))
        self.end_headers()
        self.wfile.write(resp.content)

    def log_message(self, *args: object) -> None:
        pass


def _serve(handler: type[BaseHTTPRequestHandler]) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_link_to_another_host_is_refused_and_gets_no_token(
    gh: FakeGitHub, clock: FakeClock
) -> None:
    other = _serve(type("Other", (_Relay,), {"seen": []}))
    other_host = f"localhost:{other.server_address[1]}"
    relay = _serve(type("Relay", (_Relay,), {"target": gh.url, "claimed_host": other_host}))
    try:
        base = f"http://127.0.0.1:{relay.server_address[1]}"
        c = GitHubClient(base, TOKEN, clock=clock.now, sleeper=clock.sleep)
        pages = c.paginate(ISSUES, {"state": "all", "per_page": 3})
        first = next(pages)
        assert first.next_url is not None and other_host in first.next_url
        with pytest.raises(GitHubError, match="refusing to follow"):
            next(pages)
        assert other.RequestHandlerClass.seen == []
        assert len(gh.requests) == 1
    finally:
        for server in (relay, other):
            server.shutdown()
            server.server_close()
