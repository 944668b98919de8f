"""The one HTTP transport of every notification platform: retries with backoff on 429, 5xx
and connection failures, honouring ``Retry-After`` (header, or the JSON ``retry_after`` that
Discord and Telegram send), and pacing successive messages to one target.

Errors never carry the URL: webhook URLs and bot API paths contain the credentials.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx

from devdigest import __version__
from devdigest.errors import NotifyError
from devdigest.tls import tls_context

Sleep = Callable[[float], None]


class Transport:
    def __init__(
        self,
        client: httpx.Client | None = None,
        *,
        sleep: Sleep = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        max_tries: int = 4,
        base_delay: float = 1.0,
        max_delay: float = 120.0,
        timeout: float = 20.0,
    ) -> None:
        self.client = client or httpx.Client(
            verify=tls_context(),
            timeout=timeout,
            headers={"user-agent": f"devdigest/{__version__}"},
        )
        self.sleep, self.clock = sleep, clock
        self.max_tries, self.base_delay, self.max_delay = max_tries, base_delay, max_delay
        self.slept: list[float] = []  # every wait, for the run summary and tests
        self._last_sent: dict[str, float] = {}

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> Transport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _wait(self, seconds: float) -> None:
        if seconds > 0:
            self.slept.append(seconds)
            self.sleep(seconds)

    def pace(self, key: str, interval: float) -> None:
        """Keep at least ``interval`` seconds between two messages to the same target."""
        last = self._last_sent.get(key)
        if last is not None:
            self._wait(interval - (self.clock() - last))
        self._last_sent[key] = self.clock()

    def post(self, url: str, *, name: str, **kwargs: Any) -> httpx.Response:
        """POST, retrying what a later try can fix; raises NotifyError naming ``name``."""
        for attempt in range(1, self.max_tries + 1):
            try:
                response = self.client.post(url, **kwargs)
            except httpx.TransportError as exc:
                problem, delay = f"connection failed ({exc.__class__.__name__})", None
            else:
                if response.status_code < 400:
                    return response
                problem = f"HTTP {response.status_code}{_detail(response)}"
                if response.status_code != 429 and response.status_code < 500:
                    raise NotifyError(f"{name}: {problem}; check the target's settings")
                delay = retry_after(response)
            if attempt == self.max_tries:
                break
            delay = self.base_delay * 2 ** (attempt - 1) if delay is None else delay
            if delay > self.max_delay:
                problem += f", asked to wait {delay:.0f} s"
                break
            self._wait(delay)
        raise NotifyError(f"{name}: {problem}; it will be retried on the next run")


def retry_after(response: httpx.Response) -> float | None:
    """Seconds to wait: the ``Retry-After`` header (seconds or HTTP date), else the body's
    ``retry_after`` (Discord: seconds, may be fractional; Telegram: parameters.retry_after)."""
    header = response.headers.get("retry-after")
    if header:
        try:
            return max(0.0, float(header))
        except ValueError:
            try:
                when = email.utils.parsedate_to_datetime(header)
            except (TypeError, ValueError):
                when = None
            if when is not None and when.tzinfo is not None:
                return max(0.0, (when - datetime.now(UTC)).total_seconds())
    try:
        body = response.json()
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    value = body.get("retry_after", (body.get("parameters") or {}).get("retry_after"))
    return float(value) if isinstance(value, int | float) else None


def _detail(response: httpx.Response) -> str:
    """A short server message (server text is untrusted: one line, bounded)."""
    text = " ".join(response.text.split())[:200]
    return f" ({text})" if text else ""
