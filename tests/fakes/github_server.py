"""A semantic fake of the GitHub REST API, serving a `Dataset` as of a simulated clock.

    with FakeGitHub(dataset, clock=FakeClock(t0)) as gh:
        httpx.get(f"{gh.url}/repos/vllm-project/vllm/issues", params={"state": "all"})

`gh.url` is `http://127.0.0.1:PORT`; the same routes are served under `/api/v3` as well
(`gh.enterprise_url`), as on GitHub Enterprise Server. Faults are scripted with `gh.fail`,
`gh.secondary_limit`, `gh.too_many_requests`, `gh.reset_connection`, `gh.truncate`, `gh.slow`,
`gh.touch_during_paging`, `gh.delete_during_paging`, `gh.redirect`, `gh.trickle`,
`gh.endless_paging`; each fires a given number of times and is then used up.

`GET /repos/{o}/{r}/issues/events` lists the dataset's closed, reopened and merged events, newest
first (a merge is a `merged` and a `closed` event, as on GitHub).

`POST /graphql` (and `/api/graphql`) answers the one GraphQL query devdigest sends (see
`tests/fakes/graphql.py`), with its own rate-limit bucket; `graphql=False` makes it absent (404),
as on an old GitHub Enterprise Server.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import re
import socket
import struct
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime, parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from devdigest.sample.dataset import DEFAULT_DAY_END, Dataset
from devdigest.sample.model import iso
from tests.fakes import graphql
from tests.fakes.routes import Response, error, page_args, route
from tests.fakes.views import Views

DOCS = "https://docs.github.com/rest"
SECONDARY_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
)
LOGGED_HEADERS = (
    "authorization",
    "if-none-match",
    "if-modified-since",
    "accept",
    "user-agent",
    "x-github-api-version",
)


class FakeClock:
    """A simulated UTC clock; `sleep` advances it instantly (inject it as the client's sleeper)."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = (start or DEFAULT_DAY_END).astimezone(UTC)
        self._lock = threading.Lock()
        self.slept: list[float] = []

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def time(self) -> float:
        return self.now().timestamp()

    def set(self, when: datetime) -> None:
        with self._lock:
            self._now = when.astimezone(UTC)

    def advance(self, seconds: float) -> datetime:
        with self._lock:
            self._now += timedelta(seconds=seconds)
            return self._now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.advance(max(0.0, seconds))

    async def asleep(self, seconds: float) -> None:
        self.sleep(seconds)


@dataclass
class Fault:
    """A scripted fault. It matches requests from index `at_request` on (0-based, counting every
    request) whose path+query matches the regex `path`; it fires `times` times."""

    kind: str  # status | secondary | reset | truncate | slow | touch | delete | redirect
    # | trickle | endless
    path: str | None = None
    at_request: int | None = None
    times: int = 1
    status: int = 502
    retry_after: int | None = None
    delay_ms: int = 0
    mode: str = "short_body"  # truncate: short_body (consistent length) | short_read
    after_page: int = 1  # touch: fires after this page of a matching listing was served
    number: int | None = None  # touch: the item to touch (default: first item of the next page)
    # delete: the item to delete (default: the first item of the page just served)
    location: str = ""  # redirect: where to
    fired: int = 0

    @property
    def pending(self) -> bool:
        return self.fired < self.times

    def matches(self, index: int, target: str) -> bool:
        if not self.pending or (self.at_request is not None and index < self.at_request):
            return False
        return self.path is None or re.search(self.path, target) is not None


@dataclass
class RequestRecord:
    index: int
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    status: int = 0
    was_304: bool = False
    timestamp: datetime | None = None
    charged: bool = False
    fault: str | None = None
    body: Any = None  # the parsed JSON body of a POST


@dataclass
class _Bucket:
    limit: int
    used: int = 0
    reset: float = 0.0


class FakeGitHub:
    """The fake server. Start it with `with FakeGitHub(...) as gh:` or `start()` / `stop()`."""

    def __init__(
        self,
        dataset: Dataset | Iterable[Dataset],
        clock: FakeClock | None = None,
        *,
        tokens: Iterable[str] | None = None,
        no_access: dict[str, Iterable[str]] | None = None,
        limit: int = 5000,
        anonymous_limit: int = 60,
        latency: float = 0.0,
        jitter: float = 0.0,
        graphql_limit: int = 5000,
        graphql: bool = True,
    ) -> None:
        sets = [dataset] if isinstance(dataset, Dataset) else list(dataset)
        self.datasets = {ds.repo.lower(): ds for ds in sets}
        self.clock = clock or FakeClock(sets[0].end)
        self.tokens = None if tokens is None else set(tokens)
        self.no_access = {
            tok: {r.lower() for r in repos} for tok, repos in (no_access or {}).items()
        }
        self.limit, self.anonymous_limit, self.latency = limit, anonymous_limit, latency
        self.jitter = jitter  # each answer waits latency + uniform(0, jitter) seconds
        self.graphql_limit, self.graphql_enabled = graphql_limit, graphql
        self.faults: list[Fault] = []
        self.requests: list[RequestRecord] = []
        self.touches: dict[str, dict[int, float]] = {}
        self.deleted: dict[str, set[int]] = {}  # items gone from the listings (deleted, moved)
        self._buckets: dict[str, _Bucket] = {}
        self._views: dict[str, Views] = {}
        self._lock = threading.RLock()
        self._count = 0
        self._server: ThreadingHTTPServer | None = None

    # ---- lifecycle ---------------------------------------------------------------------------

    def start(self) -> FakeGitHub:
        handler = type("Handler", (_Handler,), {"app": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def enterprise_url(self) -> str:
        return f"{self.url}/api/v3"

    # ---- scripting -------------------------------------------------------------------------

    def add_fault(self, fault: Fault) -> Fault:
        with self._lock:
            self.faults.append(fault)
        return fault

    def fail(self, status: int = 502, times: int = 1, **match: Any) -> Fault:
        """Answer with a 5xx (or any) status."""
        return self.add_fault(Fault("status", status=status, times=times, **match))

    def secondary_limit(self, retry_after: int | None = None, times: int = 1, **match) -> Fault:
        """403 'secondary rate limit', with `Retry-After` if given."""
        return self.add_fault(
            Fault("secondary", status=403, retry_after=retry_after, times=times, **match)
        )

    def too_many_requests(self, retry_after: int | None = 30, times: int = 1, **match) -> Fault:
        """429 with the secondary-limit message, with `Retry-After` if given."""
        return self.add_fault(
            Fault("secondary", status=429, retry_after=retry_after, times=times, **match)
        )

    def reset_connection(self, times: int = 1, **match: Any) -> Fault:
        """Close the socket (RST) without answering."""
        return self.add_fault(Fault("reset", times=times, **match))

    def truncate(self, mode: str = "short_body", times: int = 1, **match: Any) -> Fault:
        """Send half of the JSON body: `short_body` with a matching Content-Length, or
        `short_read` declaring the full length and closing early."""
        return self.add_fault(Fault("truncate", mode=mode, times=times, **match))

    def slow(self, delay_ms: int, times: int = 1, **match: Any) -> Fault:
        return self.add_fault(Fault("slow", delay_ms=delay_ms, times=times, **match))

    def touch_during_paging(
        self,
        path: str = r"/issues\?",
        after_page: int = 1,
        number: int | None = None,
        times: int = 1,
    ) -> Fault:
        """After page `after_page` of a matching listing is served, update an item (now), so it
        moves to the top of `sort=updated&direction=desc` and later pages shift by one."""
        return self.add_fault(
            Fault("touch", path=path, after_page=after_page, number=number, times=times)
        )

    def delete_during_paging(
        self, path: str = r"/issues\?", after_page: int = 1, number: int | None = None
    ) -> Fault:
        """After page `after_page` of a matching listing is served, an item leaves the listings
        (deleted or transferred): later pages shift up by one."""
        return self.add_fault(Fault("delete", path=path, after_page=after_page, number=number))

    def redirect(self, location: str, times: int = 1, **match: Any) -> Fault:
        """Answer 302 to `location` (another host, say)."""
        return self.add_fault(Fault("redirect", location=location, times=times, **match))

    def trickle(self, delay_ms: int = 1, times: int = 1, **match: Any) -> Fault:
        """Send the body one byte at a time, `delay_ms` apart."""
        return self.add_fault(Fault("trickle", delay_ms=delay_ms, times=times, **match))

    def endless_paging(self, times: int = 10**9, **match: Any) -> Fault:
        """Every matching request gets the listing's first page, linking a next page."""
        return self.add_fault(Fault("endless", times=times, **match))

    def touch(self, repo: str, number: int, at: datetime | None = None) -> None:
        """Mark an item as updated at `at` (default now) without changing the dataset."""
        with self._lock:
            when = (at or self.clock.now()).timestamp()
            self.touches.setdefault(repo.lower(), {})[number] = when

    def set_remaining(
        self, remaining: int, token: str | None = None, resource: str = "core"
    ) -> None:
        with self._lock:
            bucket = self._bucket(token, "127.0.0.1", resource)
            bucket.used = bucket.limit - remaining

    def reset_log(self) -> None:
        with self._lock:
            self.requests.clear()

    def pending_faults(self) -> list[Fault]:
        return [f for f in self.faults if f.pending]

    @property
    def charged(self) -> int:
        """Requests that counted against the primary rate limit."""
        return sum(r.charged for r in self.requests)

    # ---- request handling ------------------------------------------------------------------

    def _bucket(self, token: str | None, ip: str, resource: str = "core") -> _Bucket:
        key = (f"token:{token}" if token else f"ip:{ip}") + ("" if resource == "core" else resource)
        bucket = self._buckets.get(key)
        if bucket is None:
            limit = self.limit if token else self.anonymous_limit
            bucket = self._buckets[key] = _Bucket(
                self.graphql_limit if resource != "core" else limit
            )
        now = self.clock.time()
        if now >= bucket.reset:
            bucket.used, bucket.reset = 0, float(int(now) + 3600)
        return bucket

    def handle(self, h: _Handler) -> None:
        split = urlsplit(h.path)
        prefix = "/api/v3" if split.path.startswith("/api/v3/") else ""
        if split.path.rstrip("/") == "/api/graphql":
            prefix = "/api"
        path = split.path[len(prefix) :].rstrip("/") or "/"
        query = dict(parse_qsl(split.query))
        with self._lock:
            index = self._count
            self._count += 1
            target = path + ("?" + split.query if split.query else "")
            fault = next(
                (
                    f
                    for f in self.faults
                    if f.kind not in ("touch", "delete") and f.matches(index, target)
                ),
                None,
            )
            if fault is not None:
                fault.fired += 1
            record = RequestRecord(index, h.command, path, query, _logged(h.headers))
            record.body = _json_or_none(h.body) if h.command == "POST" else None
            record.fault = fault.kind if fault else None
            self.requests.append(record)
        delay = self.latency + random.uniform(0, self.jitter)
        delay += fault.delay_ms / 1000 if fault and fault.kind == "slow" else 0.0
        if delay:
            time.sleep(delay)
        if fault is not None and fault.kind == "reset":
            record.timestamp = self.clock.now()
            h.reset()
            return
        with self._lock:
            endless = fault is not None and fault.kind == "endless"
            if endless:  # the same page, whatever page is asked for
                query = {k: v for k, v in query.items() if k != "page"}
            resp = self._respond(h, path, query, fault)
            record.status, record.timestamp = resp.status, self.clock.now()
            record.was_304, record.charged = resp.status == 304, resp.charge
            if resp.status == 200 and resp.listing is not None:
                self._paging_faults(path, target, query, resp.listing, index)
            host = h.headers.get("Host", f"127.0.0.1:{self.port}")
            if resp.listing is not None and resp.status in (200, 304):
                total = 10**9 if endless else len(resp.listing)
                link = _link(host, prefix + path, query, total)
                if link:
                    resp.headers["Link"] = link
            if fault is not None and fault.kind == "redirect":
                headers = {"Location": fault.location, "Content-Length": "0"}
                resp = Response(302, None, headers, charge=False)
        truncate = fault.mode if fault is not None and fault.kind == "truncate" else None
        if fault is not None and fault.kind == "trickle":
            truncate = f"trickle:{fault.delay_ms}"
        h.send(resp, truncate)

    def _respond(self, h: _Handler, path: str, query: dict[str, str], fault: Fault | None):
        token = _token(h.headers.get("Authorization", ""))
        now = self.clock.now()
        if token is not None and self.tokens is not None and token not in self.tokens:
            return Response(
                401, {"message": "Bad credentials", "documentation_url": DOCS}, charge=False
            )
        if h.command == "POST" or path == "/graphql":
            return self._graphql(h, path, token, fault)
        bucket = self._bucket(token, h.client_address[0])
        if fault is not None and fault.kind in ("status", "secondary"):
            resp = _fault_response(fault)
        elif bucket.used >= bucket.limit and path != "/rate_limit":
            message = f"API rate limit exceeded for {'user' if token else h.client_address[0]}."
            resp = Response(403, {"message": message, "documentation_url": DOCS}, charge=False)
        elif path == "/rate_limit":
            resp = Response(200, _rate_body(bucket), charge=False)
        else:
            resp = self._conditional(h, route(self, path, query, token, now))
        if resp.charge:
            bucket.used += 1
        return _rate_headers(resp, bucket, "core")

    def _graphql(self, h: _Handler, path: str, token: str | None, fault: Fault | None):
        """`POST /graphql`: GitHub requires a token; errors come as HTTP 200 with `errors`."""
        if path != "/graphql" or h.command != "POST" or not self.graphql_enabled:
            return error(404, "Not Found")
        if token is None:
            message = "This endpoint requires you to be authenticated."
            return Response(401, {"message": message, "documentation_url": DOCS}, charge=False)
        bucket = self._bucket(token, h.client_address[0], "graphql")
        if fault is not None and fault.kind in ("status", "secondary"):
            resp = _fault_response(fault)
        elif bucket.used + graphql.COST > bucket.limit:
            resp = graphql.rate_limited(token)
        else:
            remaining = max(0, bucket.limit - bucket.used - graphql.COST)
            reset = iso(datetime.fromtimestamp(bucket.reset, UTC))
            rate = {"cost": graphql.COST, "remaining": remaining, "resetAt": reset}
            resp = graphql.answer(self, h.body, token, self.clock.now(), rate)
        if resp.charge:
            bucket.used += graphql.COST
        return _rate_headers(resp, bucket, "graphql")

    def _conditional(self, h: _Handler, resp: Response) -> Response:
        if resp.status != 200:
            return resp
        resp.raw = json.dumps(resp.body, separators=(",", ":")).encode()
        etag = '"' + hashlib.sha256(resp.raw).hexdigest() + '"'
        resp.headers["ETag"] = etag
        resp.headers["Cache-Control"] = "private, max-age=60, s-maxage=60"
        resp.headers["Vary"] = "Accept, Authorization, Cookie, X-GitHub-OTP"
        if resp.last_modified is not None:
            resp.headers["Last-Modified"] = format_datetime(resp.last_modified, usegmt=True)
        tags = {t.strip().removeprefix("W/") for t in h.headers.get("If-None-Match", "").split(",")}
        not_modified = etag in tags or "*" in tags
        since = h.headers.get("If-Modified-Since")
        if since and resp.listing is None and resp.last_modified is not None:
            with contextlib.suppress(TypeError, ValueError):
                not_modified = not_modified or resp.last_modified <= parsedate_to_datetime(since)
        if not_modified:
            return Response(304, None, resp.headers, charge=False, listing=resp.listing)
        return resp

    def _paging_faults(self, path: str, target: str, query: dict[str, str], rows: list, idx: int):
        page, per_page = page_args(query)
        for fault in self.faults:
            kind = fault.kind
            if kind not in ("touch", "delete") or not fault.matches(idx, target):
                continue
            if page != fault.after_page:
                continue
            if kind == "delete":
                served = rows[(page - 1) * per_page : page * per_page]
                number = fault.number or (served[0].number if served else None)
                if number is not None:
                    self.deleted.setdefault("/".join(path.split("/")[2:4]).lower(), set()).add(
                        number
                    )
                    fault.fired += 1
                continue
            number = fault.number
            if number is None:
                later = rows[page * per_page :]
                number = later[0].number if later and hasattr(later[0], "number") else None
            if number is None:
                continue
            repo = "/".join(path.split("/")[2:4])
            self.touch(repo, number)
            fault.fired += 1

    def views(self, ds: Dataset) -> Views:
        views = self._views.get(ds.repo)
        if views is None or views.version != ds.version:
            views = self._views[ds.repo] = Views(ds)
        return views


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "GitHub.com"
    sys_version = ""
    disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms stalls
    app: FakeGitHub

    body: bytes = b""

    def do_GET(self) -> None:
        self.body = b""
        self.app.handle(self)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.body = self.rfile.read(length) if length > 0 else b""
        self.app.handle(self)

    def date_time_string(self, timestamp: float | None = None) -> str:
        return format_datetime(self.app.clock.now(), usegmt=True)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def reset(self) -> None:
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()

    def send(self, resp: Response, truncate: str | None) -> None:
        body = resp.raw
        if body is None and resp.body is not None:
            if isinstance(resp.body, str):
                body = resp.body.encode()
            else:
                body = json.dumps(resp.body, separators=(",", ":")).encode()
        self.send_response(resp.status)
        ctype = "text/html" if isinstance(resp.body, str) else "application/json; charset=utf-8"
        if body is not None:
            self.send_header("Content-Type", ctype)
        for name, value in resp.headers.items():
            self.send_header(name, value)
        if body is None:
            self.end_headers()
            return
        if truncate and truncate.startswith("trickle:"):
            self._trickle(body, int(truncate.split(":")[1]))
            return
        sent = body
        if truncate:
            sent = body[: max(1, len(body) // 2)]
        self.send_header("Content-Length", str(len(body if truncate == "short_read" else sent)))
        if truncate == "short_read":
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(sent)
        self.wfile.flush()

    def _trickle(self, body: bytes, delay_ms: int) -> None:
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(OSError):  # the client may give up and close
            for k in range(len(body)):
                self.wfile.write(body[k : k + 1])
                self.wfile.flush()
                time.sleep(delay_ms / 1000)


def _token(header: str) -> str | None:
    scheme, _, value = header.strip().partition(" ")
    if scheme.lower() in ("bearer", "token") and value.strip():
        return value.strip()
    return None


def _logged(headers: Any) -> dict[str, str]:
    return {k: headers[k] for k in LOGGED_HEADERS if headers.get(k) is not None}


def _link(host: str, path: str, query: dict[str, str], total: int) -> str:
    page, per_page = page_args(query)
    last = max(1, -(-total // per_page))
    if last == 1 and page == 1:
        return ""

    def url(k: int) -> str:
        return f"http://{host}{path}?{urlencode({**query, 'page': str(k)})}"

    rels = []
    if page > 1:
        rels.append((min(page - 1, last), "prev"))
    if page < last:
        rels.append((page + 1, "next"))
        rels.append((last, "last"))
    if page > 1:
        rels.append((1, "first"))
    return ", ".join(f'<{url(k)}>; rel="{rel}"' for k, rel in rels)


def _json_or_none(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


def _rate_headers(resp: Response, bucket: _Bucket, resource: str) -> Response:
    resp.headers.update(
        {
            "X-RateLimit-Limit": str(bucket.limit),
            "X-RateLimit-Remaining": str(max(0, bucket.limit - bucket.used)),
            "X-RateLimit-Used": str(bucket.used),
            "X-RateLimit-Reset": str(int(bucket.reset)),
            "X-RateLimit-Resource": resource,
        }
    )
    return resp


def _fault_response(fault: Fault) -> Response:
    if fault.kind == "secondary":
        headers = {"Retry-After": str(fault.retry_after)} if fault.retry_after is not None else {}
        body = {"message": SECONDARY_MESSAGE, "documentation_url": DOCS}
        return Response(fault.status, body, headers, charge=False)
    if fault.status == 502:
        return Response(502, "<html><body><h1>502 Bad Gateway</h1></body></html>", charge=False)
    return Response(fault.status, {"message": "Server Error"}, charge=False)


def _rate_body(bucket: _Bucket) -> dict[str, Any]:
    core = {
        "limit": bucket.limit,
        "used": bucket.used,
        "remaining": max(0, bucket.limit - bucket.used),
        "reset": int(bucket.reset),
    }
    return {"resources": {"core": core, "search": dict(core, limit=30)}, "rate": core}


__all__ = ["FakeClock", "FakeGitHub", "Fault", "RequestRecord", "iso"]
