"""Celery tasks: thin wrappers over ``devdigest.run.jobs``.

One run is, for each repository, a chain ``sync → reports (one task per window, every language)
→ finish``; the repositories are listed in ``run_repos`` and the last ``finish`` enqueues ``site``
(the site build, then the run's notifications, then the run closed). The run's completion is
kept in the store, not in a Celery chord, so that no result-backend state can be lost with a
broker restart; a run whose site task was lost anyway is found and republished by
``dispatch.republish_stalled``. Each task passes a small result
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

from devdigest.config import Config
from devdigest.distributed import ledger
from devdigest.distributed.app import STEPS_QUEUE, app, current_config, queue_name
from devdigest.errors import GitHubError, NotFound, RateLimited
from devdigest.github.client import GitHubClient
from devdigest.notify.delivery import deliver_pending
from devdigest.notify.transport import Transport
from devdigest.run.executor import one_line
from devdigest.run.jobs import publish_site, sync_repository, write_window_reports
from devdigest.store import Store, open_store
from devdigest.store import schema as t
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
                if self.request.retries >= RATE_RETRIES:
                    return _failed(name, task_id, started, job, exc)
                eta = datetime.fromtimestamp(exc.reset_at or time.time() + 60, UTC)
                _record(task_id, "retrying", started, error=one_line(exc))
                raise self.retry(exc=exc, eta=eta, max_retries=RATE_RETRIES) from None
            except Exception as exc:
                if transient(exc) and self.request.retries < MAX_RETRIES:
                    _record(task_id, "retrying", started, error=one_line(exc))
                    raise self.retry(exc=exc, countdown=backoff(self.request.retries)) from None
                return _failed(name, task_id, started, job, exc)
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


def _failed(name: str, task_id: str, started: float, job: dict, exc: Exception) -> dict:
    """Record a permanent failure; the rest of the repository's chain then skips its work."""
    _record(task_id, "failed", started, error=one_line(exc))
    log.error("%s %s failed: %s", name, job.get("repo"), one_line(exc))
    return {"repo": job.get("repo"), "failed": one_line(exc)}


def _record(task_id: str, status: str, started: float, **values: Any) -> None:
    seconds = time.perf_counter() - started
    finished = datetime.now(UTC)
    try:
        ledger.record_task(
            store(), task_id, status=status, seconds=seconds, finished_at=finished, **values
        )
    except Exception:  # the bookkeeping must not hide the task's own outcome
        log.exception("could not record task %s", task_id)


class Step(Task):
    """A task of a run. Should one fail outside its own handling (a hard time limit, a bug),
    its repository's chain ends there with the reason recorded and the run still closes."""

    def on_failure(self, exc, task_id, args, kwargs, einfo) -> None:
        job = args[-1] if args else None
        try:
            if isinstance(job, dict):
                if ledger.finish_repo(store(), job["run_id"], job["repo"], one_line(exc)):
                    publish_run(job["run_id"])
            elif isinstance(job, int) and not run_closed(store(), job):
                finish_run(store(), job, "failed", {"site_error": one_line(exc)})
        except Exception:  # the store itself is gone: the next run's sweep closes the run
            log.exception("could not record the failure of task %s", task_id)


TASK_OPTIONS: dict[str, Any] = {
    "base": Step,
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
    with ledger.token_lease(db, tokens, config.github_rate_reserve) as (token, retry_at):
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
            ledger.record_budget(db, token, *rate)


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


@app.task(name="devdigest.finish", **TASK_OPTIONS)
def finish_task(self: Task, prev: dict | None, job: dict) -> dict:
    """The end of a repository's chain: record its outcome; the last one starts the site."""
    error = (prev or {}).get("failed")
    try:
        last = ledger.finish_repo(store(), job["run_id"], job["repo"], error)
    except Exception as exc:  # the run cannot close without this row: retry a lost database
        if transient(exc) and self.request.retries < MAX_RETRIES:
            raise self.retry(exc=exc, countdown=backoff(self.request.retries)) from None
        raise
    if last:
        publish_run(job["run_id"])
    return {"repo": job["repo"], "failed": error}


def publish_run(run_id: int) -> None:
    """Enqueue the run's site task (a second copy finds the run closed and does nothing)."""
    site_task.apply_async(args=(run_id,), queue=queue_name(STEPS_QUEUE))


@app.task(name="devdigest.site", **TASK_OPTIONS)
def site_task(self: Task, run_id: int) -> dict:
    """After every repository's chain: rebuild the site, send the run's notifications (after
    the site, so their links resolve), then close the run. Nothing to do once it is closed."""
    db, config = store(), current_config()
    with ledger.repo_lock(db, "site:" + config.site_out) as held:
        if not held:  # another run's site build is writing the same folder
            raise self.retry(countdown=BUSY_RETRY, max_retries=BUSY_RETRIES)
        if run_closed(db, run_id):
            return {"skipped": True}
        mark_publishing(db, run_id)  # no longer "stalled": the sweep leaves it alone
        repos = ledger.run_repos(db, run_id)
        failed = {r["repo"]: r["error"] for r in repos if r["error"]}
        summary: dict[str, Any] = {"projects": [{"repo": r, "error": e} for r, e in failed.items()]}
        try:
            summary["site"] = publish_site(config, db).summary()
        except Exception as exc:
            if transient(exc) and self.request.retries < MAX_RETRIES:
                raise self.retry(exc=exc, countdown=backoff(self.request.retries)) from None
            summary["site_error"] = one_line(exc)
        summary["notified"] = notify_run(config, db, [r for r in repos if not r["error"]])
        status = "failed" if failed or "site_error" in summary else "ok"
        finish_run(db, run_id, status, summary)
    return summary


def mark_publishing(db: Store, run_id: int) -> None:
    with db.transaction() as conn:
        conn.execute(t.runs.update().where(t.runs.c.id == run_id).values(status="publishing"))


def run_closed(db: Store, run_id: int) -> bool:
    with db.engine.connect() as conn:
        query = sa.select(t.runs.c.status).where(t.runs.c.id == run_id)
        return conn.execute(query).scalar() in ("ok", "failed")


def notify_run(config: Config, db: Store, repos: list[dict]) -> int:
    """Each repository's new reports of the run to its targets (each target at most once per
    report; a target's failure is recorded in ``deliveries``, never raised)."""
    delivered = 0
    with Transport() as transport:
        for row in repos:
            project = config.project(row["repo"])
            if not project.notify:
                continue
            wanted = {tuple(map(datetime.fromisoformat, pair)) for pair in row["windows"]}
            stored = db.reports(row["repo"])
            reports = [r for r in stored if (r.window.start, r.window.end) in wanted]
            delivered += len(deliver_pending(config, db, row["repo"], reports, transport=transport))
    return delivered


def enqueued_now() -> str:
    """The time a sync task is enqueued (a sync completed after it makes it redundant)."""
    return (datetime.now(UTC) - timedelta(seconds=1)).isoformat()
