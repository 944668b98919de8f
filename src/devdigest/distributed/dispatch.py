"""``devdigest run --executor celery`` and ``devdigest status``.

Planning reads only the shared store (a report counts as written when the store has it: workers
on other machines write the files on their own disks). The run is recorded in ``runs`` with
status ``queued``; the site task closes it as ``ok`` or ``failed``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from celery import chain

from devdigest.config import Config, Project
from devdigest.distributed import ledger
from devdigest.distributed.app import (
    LARGE_QUEUE,
    QUEUES,
    SMALL_QUEUE,
    STEPS_QUEUE,
    app,
    queue_name,
)
from devdigest.distributed.tasks import (
    enqueued_now,
    finish_task,
    publish_run,
    reports_task,
    sync_task,
)
from devdigest.run.executor import ProjectPlan
from devdigest.run.lock import run_lock
from devdigest.run.runner import select_projects
from devdigest.run.windows import plan_due_windows
from devdigest.store import Store
from devdigest.store import schema as t
from devdigest.store.runs import last_run, start_run, stored_windows

LARGE = 2000  # items updated in the store over the last 30 days that make a repository large


@dataclass
class Enqueued:
    run_id: int
    plans: list[ProjectPlan]
    tasks: int  # how many tasks the run enqueued (site included)


def plan_from_store(
    config: Config, store: Store, project: Project, now: datetime, langs: list[str] | None
) -> ProjectPlan:
    schedule = config.schedule_for(project)
    due = plan_due_windows(
        schedule.window,
        project.tz,
        schedule.cutoff,
        langs or schedule.langs,
        now,
        stored_windows(store, project.repo),
    )
    return ProjectPlan(project.repo, project.display_name, due, schedule.writer)


def queue_for(store: Store, repo: str, now: datetime) -> str:
    """Large repositories get their own queue, so they neither starve nor are starved."""
    recent = store.items_updated(repo, now - timedelta(days=30))
    return queue_name(LARGE_QUEUE if len(recent) >= LARGE else SMALL_QUEUE)


def repository_chain(plan: ProjectPlan, run_id: int, now: datetime, queue: str) -> Any:
    """sync (on ``queue``) → one reports task per window → finish (on the steps queue), for one
    repository. Workers take from every queue in turn, so a repository's reports follow its
    sync instead of waiting behind every other sync of the run."""
    steps_queue = queue_name(STEPS_QUEUE)
    base = {"run_id": run_id, "repo": plan.repo}
    sync = sync_task.s(
        None, base | {"since": plan.since.isoformat(), "enqueued_at": enqueued_now()}
    )
    steps = [sync.set(queue=queue)]
    for due in plan.windows:
        job = base | {
            "start": due.window.start.isoformat(),
            "end": due.window.end.isoformat(),
            "tz": due.window.tz,
            "langs": list(due.langs),
            "writer": plan.writer,
            "now": now.isoformat(),
            "date": due.window.local_date.isoformat(),
        }
        steps.append(reports_task.s(job).set(queue=steps_queue))
    steps.append(finish_task.s(base).set(queue=steps_queue))
    return chain(*steps)


def due_windows(plan: ProjectPlan) -> list[list[str]]:
    return [[due.window.start.isoformat(), due.window.end.isoformat()] for due in plan.windows]


def enqueue_run(
    config: Config,
    store: Store,
    repos: list[str] | None = None,
    *,
    now: datetime,
    langs: list[str] | None = None,
) -> Enqueued:
    """Plan every project from the store and enqueue one chain per repository with due
    reports (the site task follows the last of them)."""
    ledger.require_shared_store(store)
    projects = select_projects(config, repos)
    republish_stalled(store)
    with run_lock(store, wait=30):  # planning and enqueuing only; the workers do the rest
        plans = [plan_from_store(config, store, p, now, langs) for p in projects]
        plans = [plan for plan in plans if plan.windows]
        run_id = start_run(store, "celery")
        ledger.plan_run(store, run_id, {plan.repo: due_windows(plan) for plan in plans})
        for plan in plans:
            repository_chain(plan, run_id, now, queue_for(store, plan.repo, now)).apply_async()
        if not plans:
            publish_run(run_id)
    tasks = sum(len(plan.windows) + 2 for plan in plans) + 1
    return Enqueued(run_id, plans, tasks)


STALL = timedelta(minutes=2)  # all repositories ended this long ago, and the run is not closed


def republish_stalled(store: Store, quiet: timedelta = STALL) -> list[int]:
    """Enqueue the site task again for runs whose site task was lost; returns their ids."""
    stalled = ledger.stalled_runs(store, quiet)
    for run_id in stalled:
        publish_run(run_id)
    return stalled


def run_state(store: Store, run_id: int) -> dict[str, Any]:
    """The run's status and how many of its repositories have ended."""
    run = last_run_by_id(store, run_id)
    repos = ledger.run_repos(store, run_id)
    return {
        "status": run["status"] if run else "unknown",
        "repos_done": sum(r["finished_at"] is not None for r in repos),
    }


def last_run_by_id(store: Store, run_id: int) -> dict[str, Any] | None:
    with store.engine.connect() as conn:
        row = conn.execute(sa.select(t.runs).where(t.runs.c.id == run_id)).mappings().first()
    return dict(row) if row else None


def wait_for(store: Store, run_id: int, on_poll: Any = None, poll: float = 1.0) -> dict:
    """Poll until the run is closed by its site task; ``on_poll(state)`` after each look.
    A site task lost on the way (broker restart) is enqueued again (at most every ``STALL``)."""
    swept = time.monotonic()
    while True:
        if time.monotonic() - swept > STALL.total_seconds():
            republish_stalled(store)
            swept = time.monotonic()
        state = run_state(store, run_id)
        if on_poll:
            on_poll(state)
        if state["status"] in ("ok", "failed"):
            return state
        time.sleep(poll)


def queue_depths() -> dict[str, int | None]:
    """Messages waiting in each queue (``None``: the broker could not be asked)."""
    depths: dict[str, int | None] = {}
    try:
        with app.connection_for_read() as conn:
            channel = conn.default_channel
            for name in QUEUES:
                depths[queue_name(name)] = channel.queue_declare(
                    queue_name(name), passive=True
                ).message_count
    except Exception:
        return {queue_name(name): depths.get(queue_name(name)) for name in QUEUES}
    return depths


def status(store: Store) -> dict[str, Any]:
    """What ``devdigest status`` shows: queues, the latest run's tasks, failures, tokens."""
    run = last_run(store)
    rows = ledger.task_rows(store, run["id"]) if run else []
    return {
        "queues": queue_depths(),
        "run": run,
        "running": [r for r in rows if r["status"] in ("running", "retrying")],
        "done": sum(r["status"] == "ok" for r in rows),
        "failed": [r for r in rows if r["status"] == "failed"],
        "tokens": ledger.token_rows(store),
        "tokens_in_use": ledger.tokens_in_use(store),
        "now": datetime.now(UTC),
    }
