"""Rate limits and waiting, as a mixin of ``GitHubClient``.

REST and GraphQL have separate rate limits (``X-RateLimit-Resource`` core and graphql); each is
tracked and respected on its own. Every wait is announced (what is awaited, until when in UTC and
local time) before the injectable sleeper runs.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import httpx

from devdigest.errors import RateLimited
from devdigest.models import SyncStats

SECONDARY_MIN_WAIT = 60.0
SECONDARY_MAX_WAIT = 900.0


@dataclass(slots=True)
class RateState:
    """What the last response of one rate-limit resource said."""

    limit: int | None = None
    remaining: int | None = None
    reset: float | None = None


class RateLimits:
    """Rate state, reserve, limit delays, backoff with jitter and announced waits."""

    rates: dict[str, RateState]
    reserve: int
    wait: bool
    backoff_cap: float
    rng: random.Random
    stats: SyncStats
    now: Callable[[], datetime]
    notify: Callable[[str], None]
    _sleeper: Callable[[float], None]

    def _observe_rate(self, headers: httpx.Headers, resource: str) -> None:
        state = self.rates.setdefault(resource, RateState())
        for name, attr in (
            ("X-RateLimit-Limit", "limit"),
            ("X-RateLimit-Remaining", "remaining"),
            ("X-RateLimit-Reset", "reset"),
        ):
            value = headers.get(name)
            if value is not None:
                try:
                    setattr(state, attr, float(value) if attr == "reset" else int(value))
                except ValueError:
                    continue

    @property
    def effective_reserve(self) -> int:
        """The reserve, kept to a tenth of the limit (the anonymous limit is only 60/hour)."""
        return self._reserve_for("core")

    def _reserve_for(self, resource: str) -> int:
        limit = self.rates[resource].limit
        return self.reserve if limit is None else min(self.reserve, limit // 10)

    def seconds_until_reset(self, resource: str = "core") -> float:
        reset = self.rates[resource].reset
        if reset is None:
            return 0.0
        return max(0.0, reset - self.now().timestamp())

    def _respect_reserve(self, resource: str = "core") -> None:
        """Below the reserve, wait for the reset (or stop, when waiting is disabled)."""
        state = self.rates[resource]
        if state.remaining is None or state.remaining >= self._reserve_for(resource):
            return
        delay = self.seconds_until_reset(resource)
        if delay <= 0:
            return
        self._wait_for_limit(delay + 1, f"{state.remaining} {resource} requests left")
        state.remaining = None

    def _rate_limit_delay(
        self, resp: httpx.Response, attempt: int, message: str, resource: str = "core"
    ) -> float | None:
        """Seconds to wait for a 403/429 rate limit; ``None`` if it is not a rate limit."""
        retry_after = resp.headers.get("Retry-After")
        if retry_after is not None:
            try:
                delay = max(0.0, float(retry_after))
            except ValueError:
                delay = SECONDARY_MIN_WAIT
            return self._limit_delay(delay, f"Retry-After {retry_after}")
        if resp.headers.get("X-RateLimit-Remaining") == "0":
            wait = self.seconds_until_reset(resource) + 1
            return self._limit_delay(wait, "primary limit exhausted")
        if resp.status_code == 429 or "rate limit" in message.lower():
            base = min(SECONDARY_MAX_WAIT, SECONDARY_MIN_WAIT * 2 ** (attempt - 1))
            return self._limit_delay(base + self.rng.uniform(0, base / 4), "secondary limit")
        return None

    def _limit_delay(self, delay: float, why: str) -> float:
        if not self.wait:
            self._wait_for_limit(delay, why)
        return delay

    def _wait_for_limit(self, delay: float, why: str) -> None:
        if not self.wait:
            reset = datetime.fromtimestamp(self.now().timestamp() + delay, UTC)
            raise RateLimited(
                f"GitHub rate limit reached ({why}); it resets at {reset:%H:%M} UTC: rerun "
                "then (everything fetched so far is kept) or drop --no-wait",
                reset.timestamp(),
            )
        self._announce(f"GitHub rate limit ({why})", delay)
        self._sleep(delay)

    # --- waiting ---------------------------------------------------------------------------

    def _backoff(self, attempt: int) -> float:
        """Exponential, capped, with up to half again of random jitter (``rng``: seedable)."""
        base = min(self.backoff_cap, 2.0 ** (attempt - 1))
        return base + self.rng.uniform(0, base / 2)

    def _announce(self, what: str, delay: float) -> None:
        """Say what is awaited and until when, in UTC and local time."""
        if delay <= 0:
            return
        until = datetime.fromtimestamp(self.now().timestamp() + delay, UTC)
        local = until.astimezone()
        self.notify(
            f"{what}: waiting {delay:.0f}s, until {until:%H:%M:%S} UTC "
            f"({local:%H:%M:%S} {local.tzname()} local)"
        )

    def _sleep(self, seconds: float) -> None:
        if seconds <= 0:
            return
        self.stats.slept_seconds += seconds
        self._sleeper(seconds)
