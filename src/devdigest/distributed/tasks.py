"""Celery tasks: thin wrappers over ``devdigest.run.jobs``.

One run is a chord: for each repository a chain ``sync → reports (one task per window, every
language) → notify``, and ``site`` once every chain has ended. Each task passes a small result
dict down its chain (``{"repo", "failed"}``): after a permanent failure the rest of the chain
skips its work, and the other repositories are not affected.

Every task is idempotent (a report is written only if the store lacks it; a sync that another
task completed after this one was enqueued is skipped), acknowledged late and rejected back to
the queue when its worker dies. Transient failures (network, a dropped database connection)
are retried with exponential backoff; a spent token pool re-queues the task for the reset
time; anything else, or a transient failure that outlasts the retries, is recorded in the
``tasks`` table with its reason and not retried.
"""

from __future__ import annotations

import functools
import logging
import random
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import sqlalchemy as sa
from celery import Task
from celery.exceptions import Retry
from pydantic import SecretStr

from devdigest.distributed import ledger
from devdigest.distributed.app import app, current_config
from devdigest.errors import GitHubError, NotFound, RateLimited
from devdigest.github.client import GitHubClient
from devdigest.run.executor import one_line
from devdigest.run.jobs import publish_site, sync_repository, write_window_reports
from devdigest.store import Store, open_store
from devdigest.store.runs import finish_run, stored_windows

log = logging.getLogger("devdigest.tasks")

MAX_RETRIES = 6
BUSY_RETRY = 3.0  # seconds before trying again when another worker holds the repository
BUSY_RETRIES = 400  # ... for up to about 20 minutes (a redelivered copy waits for the original)
RATE_RETRIES = 48  # hourly resets: a day of a spent token pool, then a recorded failure

_stores: dict[str, Store] = {}


def store() -> Store:
    """This process's store (opened on first use, after the worker forked)."""
    db = current_config().db
    if db not in _stores:
        _stores[db] = open_store(db)
    return _stores[db]


def transient(exc: BaseException) -> bool:
    """Network trouble, GitHub 5xx after the client's own retries, or a lost database link."""
    while exc is not None:
        if isinstance(exc, (httpx.TransportError, sa.exc.OperationalError, sa.exc.InterfaceError)):
            return True
        if isinstance(exc, sa.exc.DBAPIError) and exc.connection_invalidated:
            return True
        if type(exc) is GitHubError:
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def backoff(retries: int) -> float:
    return min(300.0, 2.0**retries * 2) * random.uniform(0.8, 1.2)


def tracked(name: str) -> Callable:
    """Run a task body with its ``tasks`` row, retries and failure recording."""

    def decorate(body: Callable[..., dict]) -> Callable[..., dict]:
        @functools.wraps(body)
        def run(self: Task, prev: dict | None, job: dict) -> dict:
            if prev and prev.get("failed"):
                return prev  # an earlier step of this repository failed for good
            task_id = self.request.id or f"local-{name}"
            started = time.perf_counter()
            row = {"run_id": job.get("run_id"), "name": name, "repo": job.get("repo")}
            row["window"] = job.get("date")
            try:
                ledger.record_task(store(), task_id, status="running", attempts=1, **row)
                result = body(self, job)
            except Retry:
                raise
            except RateLimited as exc:  # every token spent: come back at the reset
                eta = datetime.fromtimestamp(exc.reset_at or time.time() + 60, UTC)
                _record(task_id, "retrying", started, error=one_line(exc))
                raise self.retry(exc=exc, eta=eta, max_retries=RATE_RETRIES) from None
            except Exception as exc:
                if transient(exc) and self.request.retries < MAX_RETRIES:
                    _record(task_id, "retrying", started, error=one_line(exc))
                    raise self.retry(exc=exc, countdown=backoff(self.request.retries)) from None
                _record(task_id, "failed", started, error=one_line(exc))
                log.error("%s %s failed: %s", name, job.get("repo"), one_line(exc))
                return {"repo": job.get("repo"), "failed": one_line(exc)}
            _record(task_id, "ok", started, requests=result.get("requests", 0))
            log.info(
                "task done",
                extra={
                    "task": name,
                    "repo": job.get("repo"),
                    "window": job.get("date"),
                    "requests": result.get("requests", 0),
                    "seconds": round(time.perf_counter() - started, 3),
                },
            )
            return {"repo": job.get("repo"), "failed": None} | result

        return run

    return decorate


def _record(task_id: str, status: str, started: float, **values: Any) -> None:
    seconds = time.perf_counter() - started
    finished = datetime.now(UTC)
    try:
        ledger.record_task(
            store(), task_id, status=status, seconds=seconds, finished_at=finished, **values
        )
    except Exception:  # the bookkeeping must not hide the task's own outcome
        log.exception("could not record task %s", task_id)


TASK_OPTIONS: dict[str, Any] = {
    "bind": True,
    "acks_late": True,
    "reject_on_worker_lost": True,
    "max_retries": MAX_RETRIES,
}


@app.task(name="devdigest.sync", **TASK_OPTIONS)
@tracked("sync")
def sync_task(self: Task, job: dict) -> dict:
    """Sync the repository once for all its due windows (``job["since"]`` on)."""
    repo, db = job["repo"], store()
    with ledger.repo_lock(db, repo) as held:
        if not held:  # another worker syncs it now: let this worker do something else
            raise self.retry(countdown=BUSY_RETRY, max_retries=BUSY_RETRIES)
        if ledger.synced_since(db, repo, datetime.fromisoformat(job["enqueued_at"])):
            return {"requests": 0, "skipped": True}
        return {"requests": _sync_with_pool(self, db, repo, datetime.fromisoformat(job["since"]))}


def _sync_with_pool(self: Task, db: Store, repo: str, since: datetime) -> int:
    """The sync on a token leased from the pool (the configured token or none, without one)."""
    config = current_config()
    tokens = config.token_pool()
    if not tokens:
        stats = sync_repository(config, db, repo, since)
        return stats.requests if stats else 0
    holder = self.request.id or repo
    token, retry_at = ledger.lease_token(db, tokens, holder, config.github_rate_reserve)
    if token is None:
        raise self.retry(eta=retry_at, max_retries=RATE_RETRIES)
    leased = config.model_copy(update={"github_token": SecretStr(token)})
    rate: tuple[int | None, int | None, float | None] = (None, None, None)
    try:
        stats = sync_repository(leased, db, repo, since, wait=False)
        return stats.requests if stats else 0
    except RateLimited as exc:
        rate = (0, None, exc.reset_at)
        raise
    finally:
        if rate[0] is None:
            rate = observed_rate(config.github_api_url, token)
        ledger.release_token(db, token, *rate)


def observed_rate(api_url: str, token: str) -> tuple[int | None, int | None, float | None]:
    """The token's core budget as GitHub reports it (``GET /rate_limit`` is not charged)."""
    try:
        with GitHubClient(api_url, token, max_tries=2) as client:
            client.get("rate_limit")
            state = client.rates["core"]
            return state.remaining, state.limit, state.reset
    except (GitHubError, NotFound):
        return None, None, None


@app.task(name="devdigest.reports", **TASK_OPTIONS)
@tracked("reports")
def reports_task(self: Task, job: dict) -> dict:
    """Write the window's reports in every language the store lacks (none: nothing to do)."""
    repo, db = job["repo"], store()
    start, end = datetime.fromisoformat(job["start"]), datetime.fromisoformat(job["end"])
    with ledger.repo_lock(db, repo) as held:
        if not held:
            raise self.retry(countdown=BUSY_RETRY, max_retries=BUSY_RETRIES)
        have = stored_windows(db, repo).get((start, end), set())
        missing = [lang for lang in job["langs"] if lang not in have]
        if missing:
            write_window_reports(
                current_config(),
                db,
                repo,
                start,
                end,
                job["tz"],
                missing,
                writer=job["writer"],
                now=datetime.fromisoformat(job["now"]),
            )
    return {"reports": len(missing)}


@app.task(name="devdigest.notify", **TASK_OPTIONS)
@tracked("notify")
def notify_task(self: Task, job: dict) -> dict:
    """Deliver the repository's pending notifications (each target at most once per report)."""
    from devdigest.notify import deliver_pending

    config, db = current_config(), store()
    wanted = {tuple(map(datetime.fromisoformat, pair)) for pair in job["windows"]}
    reports = [r for r in db.reports(job["repo"]) if (r.window.start, r.window.end) in wanted]
    delivered = deliver_pending(config, db, job["repo"], reports)
    return {"notified": len(delivered or [])}


@app.task(name="devdigest.site", **TASK_OPTIONS)
def site_task(self: Task, results: list[dict], run_id: int) -> dict:
    """After every repository's chain: rebuild the site, then close the run's record."""
    failed = {r["repo"]: r["failed"] for r in results if r and r.get("failed")}
    summary: dict[str, Any] = {"projects": [{"repo": r, "error": e} for r, e in failed.items()]}
    status = "failed" if failed else "ok"
    try:
        with ledger.repo_lock(store(), "site:" + current_config().site_out) as held:
            if not held:  # another run's site build is writing the same folder
                raise self.retry(countdown=BUSY_RETRY, max_retries=BUSY_RETRIES)
            summary["site"] = publish_site(current_config(), store()).summary()
    except Retry:
        raise
    except Exception as exc:
        if transient(exc) and self.request.retries < MAX_RETRIES:
            raise self.retry(exc=exc, countdown=backoff(self.request.retries)) from None
        summary["site_error"], status = one_line(exc), "failed"
    finish_run(store(), run_id, status, summary)
    return summary


def enqueued_now() -> str:
    """The time a sync task is enqueued (a sync completed after it makes it redundant)."""
    return (datetime.now(UTC) - timedelta(seconds=1)).isoformat()
