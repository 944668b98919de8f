"""Run bookkeeping (``runs``) and the report windows a project already has."""

from __future__ import annotations

import os
import socket
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from devdigest.store import schema as t
from devdigest.store.queries import Store

WindowKey = tuple[datetime, datetime]


def stored_windows(store: Store, repo: str) -> dict[WindowKey, set[str]]:
    """(start, end) of every stored report of ``repo`` → its languages."""
    r = t.reports.c
    query = (
        sa.select(r.window_start, r.window_end, r.lang)
        .join(t.repos)
        .where(t.repos.c.full_name == repo.lower())
    )
    found: dict[WindowKey, set[str]] = {}
    with store.engine.connect() as conn:
        for row in conn.execute(query):
            found.setdefault((row.window_start, row.window_end), set()).add(row.lang)
    return found


def start_run(store: Store, command: str, now: datetime | None = None) -> int:
    """Record a run as ``running``; returns its id. Call while holding the run lock."""
    values = {
        "command": command,
        "started_at": now or datetime.now(UTC),
        "status": "running",
        "host": socket.gethostname()[:200],
        "pid": os.getpid(),
        "summary": {},
    }
    with store.transaction() as conn:
        return conn.execute(t.runs.insert().values(**values)).inserted_primary_key[0]


def close_abandoned_runs(store: Store) -> int:
    """Mark local runs left ``running`` by a killed process as ``interrupted`` (lock held, so
    none of them is alive); returns how many there were. A distributed run (``celery``) is
    alive while its workers are and is closed by its site task."""
    r = t.runs.c
    with store.transaction() as conn:
        result = conn.execute(
            t.runs.update()
            .where(r.status == "running", r.command != "celery")
            .values(status="interrupted")
        )
        return result.rowcount


def finish_run(store: Store, run_id: int, status: str, summary: dict[str, Any]) -> None:
    with store.transaction() as conn:
        conn.execute(
            t.runs.update()
            .where(t.runs.c.id == run_id)
            .values(status=status, summary=summary, finished_at=datetime.now(UTC))
        )


def last_run(store: Store, *, running: bool = False) -> dict[str, Any] | None:
    """The newest run (or the newest still marked ``running``), as a dict."""
    query = sa.select(t.runs).order_by(t.runs.c.id.desc()).limit(1)
    if running:
        query = query.where(t.runs.c.status == "running")
    with store.engine.connect() as conn:
        row = conn.execute(query).mappings().first()
    return dict(row) if row else None
