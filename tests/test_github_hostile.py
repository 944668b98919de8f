"""The GitHub client and sync against hostile or broken servers and inputs (issue 12)."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from devdigest.config import load_config
from devdigest.errors import ConfigError, GitHubError
from devdigest.github.client import GitHubClient, clean_text
from devdigest.github.sync import sync_repo
from devdigest.sample.model import Dataset
from devdigest.store import Store
from tests.db import scoped_store
from tests.fakes.github_server import FakeClock, FakeGitHub

T0 = datetime(2026, 3, 1, tzinfo=UTC)
REPO = "acme/widgets"
TOKEN = "hostile-token"


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


@pytest.fixture
def store(tmp_path) -> Iterator[Store]:
    with scoped_store(tmp_path, "hostile.sqlite3") as s:
        yield s


def client(gh: FakeGitHub, clock: FakeClock, **kw: object) -> GitHubClient:
    kw.setdefault("notify", None)
    return GitHubClient(gh.url, TOKEN, clock=clock.now, sleeper=clock.sleep, **kw)


def test_endless_next_links_stop_at_the_page_cap_naming_the_endpoint(
    gh: FakeGitHub, clock: FakeClock, store: Store
) -> None:
    gh.endless_paging(path=r"/issues\?")
    with pytest.raises(GitHubError, match=r"/repos/acme/widgets/issues after 5 pages") as err:
        sync_repo(store, client(gh, clock, max_pages=5), REPO, T0)
    assert "github_max_pages" in str(err.value)
    assert len([r for r in gh.requests if r.path.endswith("/issues")]) == 5


def test_a_response_past_the_size_cap_is_refused(gh: FakeGitHub, clock: FakeClock) -> None:
    c = client(gh, clock, max_bytes=1000)
    with pytest.raises(GitHubError, match="exceeds 0 MiB: refused"):
        c.get(f"/repos/{REPO}/issues", {"state": "all"})
    assert len(gh.requests) == 1  # not retried


def test_a_trickling_server_hits_the_request_deadline(gh: FakeGitHub, clock: FakeClock) -> None:
    ticks = itertools.count(step=10.0)  # each look at the clock: 10 s later
    gh.trickle(delay_ms=1, path=f"/repos/{REPO}$")
    c = client(gh, clock, max_tries=1, deadline=25.0, monotonic=lambda: next(ticks))
    with pytest.raises(GitHubError, match="no complete answer within 25s"):
        c.get(f"/repos/{REPO}")


def test_a_redirect_to_another_host_is_refused_and_nothing_is_stored(
    gh: FakeGitHub, clock: FakeClock, store: Store
) -> None:
    foreign = gh.url.replace("127.0.0.1", "localhost")
    gh.redirect(f"{foreign}/repos/{REPO}/issues", path=r"/issues\?")
    with pytest.raises(GitHubError, match="refusing a redirect to http://localhost"):
        sync_repo(store, client(gh, clock), REPO, T0)
    assert store.items_updated(REPO, T0) == []
    assert store.watermark(store.repo_id(REPO), "issues") is None
    assert len(gh.requests) == 2  # the repository and the redirecting page, nothing foreign


def test_a_redirect_on_the_api_host_is_followed(gh: FakeGitHub, clock: FakeClock) -> None:
    gh.redirect(f"{gh.url}/repos/{REPO}", path=r"/repositories/1$")
    assert client(gh, clock).get("/repositories/1").data["full_name"] == REPO


class _Hostile(BaseHTTPRequestHandler):
    """Answers 500 with a message full of terminal escapes, or an item without ``id``."""

    replies: ClassVar[dict[str, tuple[int, bytes]]] = {}

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        status, body = self.replies.get(path, (404, b'{"message": "Not Found"}'))
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def hostile() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hostile)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_server_messages_reach_the_terminal_without_control_characters(hostile: str) -> None:
    message = "bad\\u001b]0;pwned\\u0007 request\\r\\u001b[31mred\\u001b[0m\\u0000"
    _Hostile.replies = {"/repos/x/y": (418, f'{{"message": "{message}"}}'.encode())}
    with pytest.raises(GitHubError) as err:
        GitHubClient(hostile, None, notify=None).get("repos/x/y")
    text = str(err.value)
    assert "(bad request red)" in text
    assert not any(ord(ch) < 32 or ord(ch) == 127 for ch in text)
    assert clean_text("a\rb\x1b]2;t\x1b\\c") == "a b c"


def test_an_item_without_id_is_a_one_line_error(
    hostile: str, store: Store, clock: FakeClock
) -> None:
    item = (
        '[{"number": 1, "title": "t", "created_at": "2026-03-01T00:00:00Z",'
        ' "updated_at": "2026-03-01T00:00:00Z", "state": "open"}]'
    )
    _Hostile.replies = {
        "/repos/x/y": (200, b'{"id": 1}'),
        "/repos/x/y/issues": (200, item.encode()),
    }
    c = GitHubClient(hostile, None, clock=clock.now, notify=None)
    with pytest.raises(GitHubError, match="an element without 'id'; nothing of that page") as err:
        sync_repo(store, c, "x/y", T0)
    assert "\n" not in str(err.value)


def test_credentials_in_the_api_url_are_redacted(tmp_path, hostile: str) -> None:
    url = hostile.replace("http://", "http://me:s3cret@")
    with pytest.raises(GitHubError) as err:
        GitHubClient(url, None, notify=None, max_tries=1).get("repos/nothing/here")
    assert "s3cret" not in str(err.value) and "***@127.0.0.1" in str(err.value)
    config_file = tmp_path / "devdigest.toml"
    config_file.write_text("")
    config = load_config(str(config_file), {"github_api_url": url}, {})
    assert "s3cret" not in str(config.redacted())


def test_a_token_over_plain_http_to_another_host_is_warned_about() -> None:
    lines: list[str] = []
    GitHubClient("http://ghe.example.com/api/v3", "tok", notify=lines.append).close()
    GitHubClient("http://127.0.0.1:9/api/v3", "tok", notify=lines.append).close()
    GitHubClient("http://ghe.example.com/api/v3", None, notify=lines.append).close()
    assert len(lines) == 1 and "unencrypted over http:// to ghe.example.com" in lines[0]


@pytest.mark.parametrize("url", ["api.github.com", "localhost:8080/api/v3", "ftp://x.y"])
def test_an_api_url_without_scheme_is_a_config_error_at_once(url: str, tmp_path) -> None:
    with pytest.raises(ConfigError, match=r"https://api\.github\.com"):
        GitHubClient(url, None)
    config_file = tmp_path / "devdigest.toml"
    config_file.write_text("")
    with pytest.raises(ConfigError, match="no http:// or https:// scheme"):
        load_config(str(config_file), {"github_api_url": url}, {})
