"""GitHub REST client: conditional GETs, pagination, retries and rate limits, plus GraphQL.

Requests run serially, only to the API origin (redirects included), each answer read in chunks
within a size cap and a total deadline. Rate limits and waits are in ``devdigest.github.limits``,
message and URL safety in ``devdigest.github.safety``. The clock (``now() -> datetime``), the
sleeper (``sleep(seconds)``), the random source of the jitter and the notifier of waits are
injectable so that tests run on a simulated clock without real waiting.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from devdigest import __version__
from devdigest.errors import AuthError, GitHubError, NotFound, RateLimited, Unprocessable
from devdigest.github.graphql import graphql_error, graphql_url
from devdigest.github.limits import SECONDARY_MIN_WAIT, RateLimits, RateState
from devdigest.github.safety import (
    check_api_url,
    clean_text,
    is_loopback,
    origin,
    server_message,
    shown,
    to_stderr,
)
from devdigest.models import SyncStats
from devdigest.tls import tls_context

__all__ = ["ApiResponse", "GitHubClient", "clean_text", "shown", "token_fingerprint", "utc_now"]

Clock = Callable[[], datetime]
Sleeper = Callable[[float], None]
Notifier = Callable[[str], None]  # one line for the user (stderr by default)

MAX_PAGES = 5000  # per listing: a server whose rel="next" never ends is stopped here
MAX_BYTES = 64 * 2**20  # per response
DEADLINE = 300.0  # seconds for a whole request, however slowly the server trickles it


def utc_now() -> datetime:
    return datetime.now(UTC)


def token_fingerprint(token: str | None) -> str:
    """First 16 hex digits of sha256(token), or ``anon``: keys the HTTP cache per credential."""
    return hashlib.sha256(token.encode()).hexdigest()[:16] if token else "anon"


@dataclass(slots=True)
class ApiResponse:
    """One successful (2xx or 304) answer."""

    status: int
    url: str
    data: Any  # parsed JSON; None for 304
    headers: httpx.Headers
    next_url: str | None = None

    @property
    def not_modified(self) -> bool:
        return self.status == 304

    @property
    def etag(self) -> str | None:
        return self.headers.get("ETag")

    @property
    def last_modified(self) -> str | None:
        return self.headers.get("Last-Modified")

    @property
    def date(self) -> datetime | None:
        """The server's ``Date`` header, as an aware UTC datetime."""
        value = self.headers.get("Date")
        if not value:
            return None
        try:
            return parsedate_to_datetime(value).astimezone(UTC)
        except (TypeError, ValueError):
            return None


class _Retry(Exception):
    """A transient failure: wait ``delay`` seconds and try again."""

    def __init__(self, reason: str, delay: float) -> None:
        super().__init__(reason)
        self.reason = reason
        self.delay = delay


class GitHubClient(RateLimits):
    """A small, careful REST client for one API base URL."""

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        clock: Clock | None = None,
        sleeper: Sleeper | None = None,
        stats: SyncStats | None = None,
        reserve: int = 50,
        max_tries: int = 6,
        wait: bool = True,
        timeout: float = 30.0,
        backoff_cap: float = 60.0,
        rng: random.Random | None = None,
        transport: httpx.BaseTransport | None = None,
        notify: Notifier | None = to_stderr,
        max_pages: int = MAX_PAGES,
        max_bytes: int = MAX_BYTES,
        deadline: float = DEADLINE,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        check_api_url(base_url)
        self.base_url = base_url.rstrip("/")
        self.token = token or None
        self.token_fp = token_fingerprint(self.token)
        self.now: Clock = clock or utc_now
        self._sleeper: Sleeper = sleeper or time.sleep
        self.stats = stats if stats is not None else SyncStats()
        self.reserve = reserve
        self.max_tries = max(1, max_tries)
        self.wait = wait
        self.backoff_cap = backoff_cap
        self.rng = rng or random.Random()
        self.rates: dict[str, RateState] = {"core": RateState(), "graphql": RateState()}
        self._reached = False
        self.notify: Notifier = notify or (lambda line: None)
        self.max_pages, self.max_bytes, self.deadline = max_pages, max_bytes, deadline
        self.monotonic = monotonic
        scheme, host, _ = origin(self.base_url)
        if self.token and scheme == "http" and not is_loopback(host):
            self.notify(
                f"warning: the GitHub token is sent unencrypted over http:// to {host}; use "
                "an https:// API URL"
            )
        headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": f"devdigest/{__version__}",
        }
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        self.http = httpx.Client(
            verify=tls_context(),
            headers=headers,
            timeout=min(timeout, deadline),
            follow_redirects=True,
            transport=transport,
            event_hooks={"request": [self._same_origin]},
        )

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- rate state of the REST (core) resource ----------------------------------------------

    @property
    def rate_limit(self) -> int | None:
        return self.rates["core"].limit

    @property
    def rate_remaining(self) -> int | None:
        return self.rates["core"].remaining

    # --- public ----------------------------------------------------------------------------

    def url(self, path_or_url: str) -> str:
        """An absolute URL on the API base; refuses any other scheme, host or port."""
        if "://" not in path_or_url:
            return self.base_url + "/" + path_or_url.lstrip("/")
        if origin(path_or_url) != origin(self.base_url):
            raise GitHubError(
                f"refusing to follow {shown(path_or_url)}: it is not on the API host "
                f"{shown(self.base_url)} (the token never leaves it); check --github-api-url"
            )
        return path_or_url

    def _same_origin(self, request: httpx.Request) -> None:
        """Every request, redirects included, stays on the API host: a foreign answer is never
        taken for API data."""
        if origin(str(request.url)) != origin(self.base_url):
            raise GitHubError(
                f"refusing a redirect to {shown(request.url)}: it leaves the API host "
                f"{shown(self.base_url)}; check --github-api-url"
            )

    def get(
        self,
        path_or_url: str,
        params: dict[str, Any] | None = None,
        *,
        etag: str | None = None,
        last_modified: str | None = None,
    ) -> ApiResponse:
        """GET with retries; a 304 comes back as ``ApiResponse(status=304, data=None)``."""
        url = self.url(path_or_url)
        headers = {}
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        return self._send(_Request("GET", url, params, headers))

    def server_date(self) -> datetime:
        """The API server's clock (the ``Date`` of a ``GET /rate_limit``, which costs no
        quota), or this machine's when the server gives none or cannot be reached."""
        try:
            resp = self.http.get(self.url("rate_limit"))
        except (httpx.HTTPError, GitHubError):
            return self.now()
        return ApiResponse(resp.status_code, str(resp.url), None, resp.headers).date or self.now()

    @property
    def graphql_url(self) -> str:
        return graphql_url(self.base_url)

    def graphql(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        """POST a GraphQL query; returns its ``data``.

        ``errors`` of type ``RATE_LIMITED`` are waited out like a REST rate limit; any other
        errors raise ``GraphQLError`` (with the partial ``data``); a 401 raises ``AuthError``.
        """
        body = {"query": query, "variables": variables}
        request = _Request("POST", self.graphql_url, None, {}, body, "graphql")
        return self._send(request).data["data"]

    def _send(self, request: _Request) -> ApiResponse:
        """One request with retries, waits and the reserve of its rate-limit resource."""
        last_reason = ""
        url = shown(request.url)
        for attempt in range(1, self.max_tries + 1):
            self._respect_reserve(request.resource)
            try:
                return self._attempt(request, attempt)
            except _Retry as retry:
                last_reason = retry.reason
                if attempt == self.max_tries:
                    break
                self.stats.retried += 1
                self._announce(
                    f"GitHub: {retry.reason} for {url}; try {attempt + 1} of {self.max_tries}",
                    retry.delay,
                )
                self._sleep(retry.delay)
        if "rate limit" in last_reason:
            raise RateLimited(
                f"GitHub kept rate-limiting {url} ({last_reason}) after {self.max_tries} tries: "
                "rerun later; everything fetched so far is kept",
                self.rates[request.resource].reset,
            )
        raise GitHubError(
            f"GitHub request failed after {self.max_tries} tries ({last_reason}): {url}; "
            "rerun later, everything fetched so far is kept"
        )

    def paginate(self, path: str, params: dict[str, Any] | None = None) -> Iterator[ApiResponse]:
        """Pages of a listing, following ``Link: rel="next"`` on the API host only, at most
        ``max_pages`` of them."""
        response = self.get(path, params)
        yield response
        pages = 1
        while response.next_url:
            self.check_page_cap(path, pages)
            response = self.get(response.next_url)
            pages += 1
            yield response

    def check_page_cap(self, path: str, pages: int) -> None:
        """Stop a listing that has already taken ``max_pages`` pages."""
        if pages >= self.max_pages:
            raise GitHubError(
                f"stopped reading {shown(self.url(path).split('?')[0])} after {pages} pages "
                f"(the cap per listing): the server keeps sending more; raise "
                "github_max_pages if this repository really is that large"
            )

    # --- one attempt -----------------------------------------------------------------------

    def _attempt(self, request: _Request, attempt: int) -> ApiResponse:
        try:
            self.stats.requests += 1
            resp, content = self._fetch(request)
        except httpx.ConnectError as exc:
            if not self._reached:
                raise GitHubError(
                    f"cannot reach the GitHub API at {shown(self.base_url)} ({exc}): check the "
                    "network or --github-api-url / DEVDIGEST_GITHUB_API_URL"
                ) from exc
            raise _Retry(f"connection failed: {exc}", self._backoff(attempt)) from exc
        except httpx.TransportError as exc:  # timeouts, resets, truncated bodies
            raise _Retry(f"{exc.__class__.__name__}: {exc}", self._backoff(attempt)) from exc
        self._reached = True
        self._observe_rate(resp.headers, request.resource)
        status = resp.status_code
        if status == 304:
            self.stats.not_modified += 1
            return ApiResponse(304, str(resp.url), None, resp.headers)
        if 200 <= status < 300:
            response = self._success(resp, content, attempt)
            if request.resource == "graphql":
                self._check_graphql(response, attempt)
            return response
        self._raise_for_status(resp, content, attempt, request.resource)
        raise AssertionError("unreachable")  # pragma: no cover

    def _fetch(self, request: _Request) -> tuple[httpx.Response, bytes]:
        """Send and read the (decoded) body in chunks, within ``max_bytes`` and the ``deadline``."""
        started = self.monotonic()
        built = self.http.build_request(
            request.method,
            request.url,
            params=request.params,
            headers=request.headers,
            json=request.body,
        )
        resp = self.http.send(built, stream=True)
        try:
            body = bytearray()
            for chunk in resp.iter_bytes():
                body += chunk
                if len(body) > self.max_bytes:
                    raise GitHubError(
                        f"the answer of {shown(resp.url)} exceeds {self.max_bytes // 2**20} MiB: "
                        "refused (not a GitHub API answer?); check --github-api-url"
                    )
                if self.monotonic() - started > self.deadline:
                    raise httpx.ReadTimeout(
                        f"no complete answer within {self.deadline:.0f}s", request=built
                    )
        finally:
            resp.close()
        return resp, bytes(body)

    def _success(self, resp: httpx.Response, content: bytes, attempt: int) -> ApiResponse:
        try:
            data = json.loads(content)
        except ValueError as exc:
            raise _Retry("invalid JSON", self._backoff(attempt)) from exc
        nxt = resp.links.get("next", {}).get("url")
        if nxt:  # checked against the API origin when followed, never before
            nxt = str(resp.url.join(nxt))
        return ApiResponse(resp.status_code, str(resp.url), data, resp.headers, nxt)

    def _check_graphql(self, response: ApiResponse, attempt: int) -> None:
        """GraphQL reports failures as HTTP 200 with an ``errors`` array."""
        error = graphql_error(response.data, response.url)
        if error is not None and "RATE_LIMITED" in error.types:
            wait = self.seconds_until_reset("graphql") + 1
            delay = self._limit_delay(wait if wait > 1 else SECONDARY_MIN_WAIT, "GraphQL limit")
            raise _Retry("rate limit (GraphQL RATE_LIMITED)", delay)
        if error is not None:
            raise error

    def _raise_for_status(
        self, resp: httpx.Response, content: bytes, attempt: int, resource: str
    ) -> None:
        status, message = resp.status_code, server_message(resp, content)
        if status == 401:
            raise AuthError(
                f"GitHub rejected the token (401 {message}): check DEVDIGEST_GITHUB_TOKEN"
            )
        if status in (403, 429):
            delay = self._rate_limit_delay(resp, attempt, message, resource)
            if delay is not None:
                raise _Retry(f"rate limit ({status} {message})", delay)
            raise AuthError(
                f"GitHub refused access (403 {message}) to {shown(resp.url)}: set a "
                "DEVDIGEST_GITHUB_TOKEN that can read this repository"
            )
        if status == 404:
            raise NotFound(f"not found (404): {shown(resp.url)}")
        if status >= 500:
            raise _Retry(f"server error {status}", self._backoff(attempt))
        if status == 422:
            raise Unprocessable(f"GitHub answered 422 ({message}) for {shown(resp.url)}")
        raise GitHubError(
            f"GitHub answered {status} ({message}) for {shown(resp.url)}: check the repository "
            "and --github-api-url"
        )


@dataclass(slots=True)
class _Request:
    method: str
    url: str
    params: dict[str, Any] | None
    headers: dict[str, str]
    body: dict[str, Any] | None = None
    resource: str = "core"  # the rate-limit resource it is charged to
