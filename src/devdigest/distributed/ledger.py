"""What every worker must see, kept in the shared PostgreSQL store.

* ``tasks``: one row per task id (a redelivered task updates its own row): status, attempts,
  requests, duration and, for a permanent failure, the reason.
* ``github_tokens``: each token's remaining budget and reset time as GitHub last reported them;
  a token in use is held by a session advisory lock, so that one token carries one request
  stream at a time and a killed worker's token is free again at once.
* the repository lock: a session-level advisory lock, so that one sync per repository runs at a
  time across all workers; the server releases it when the holder's connection ends, even if
  the worker was killed, so no expiry has to be guessed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from devdigest.errors import ConfigError
from devdigest.github.client import token_fingerprint
from devdigest.store import Store
from devdigest.store import schema as t

_REPO_LOCK_CLASS = 0x6465  # first half of the advisory key; the second hashes schema and repo
_TOKEN_LOCK_CLASS = 0x6466  # ... and for tokens, the second hashes schema and fingerprint
BUSY_RETRY = timedelta(seconds=3)


def require_shared_store(store: Store) -> None:
    """Workers on several machines need one PostgreSQL store."""
    if store.engine.dialect.name != "postgresql":
        raise ConfigError(
            "the Celery executor needs a PostgreSQL store that every worker shares: "
            "pass --db postgresql+psycopg://USER@HOST/DB (or set DEVDIGEST_DB)"
        )


# --- tasks ---------------------------------------------------------------------------------


def record_task(store: Store, task_id: str, **values: Any) -> None:
    """Create or update the row of ``task_id`` (``attempts`` is incremented when given as 1)."""
    now = datetime.now(UTC)
    c = t.tasks.c
    with store.transaction() as conn:
        found = conn.execute(sa.select(c.attempts).where(c.id == task_id)).first()
        if found is None:
            conn.execute(t.tasks.insert().values(id=task_id, started_at=now, **values))
            return
        if values.get("attempts") == 1:
            values["attempts"] = found.attempts + 1
        conn.execute(t.tasks.update().where(c.id == task_id).values(**values))


def task_rows(store: Store, run_id: int | None = None) -> list[dict[str, Any]]:
    query = sa.select(t.tasks).order_by(t.tasks.c.started_at)
    if run_id is not None:
        query = query.where(t.tasks.c.run_id == run_id)
    with store.engine.connect() as conn:
        return [dict(row) for row in conn.execute(query).mappings()]


# --- a run's repositories ------------------------------------------------------------------


def plan_run(store: Store, run_id: int, windows: dict[str, list[list[str]]]) -> None:
    """Record the run's repositories (repo → its due windows) before their chains start."""
    rows = [{"run_id": run_id, "repo": repo, "windows": w} for repo, w in windows.items()]
    if rows:
        with store.transaction() as conn:
            conn.execute(t.run_repos.insert(), rows)


def finish_repo(store: Store, run_id: int, repo: str, error: str | None) -> bool:
    """Mark ``repo``'s chain ended (the first outcome recorded is kept); returns whether every
    repository of the run has ended."""
    c = t.run_repos.c
    now = datetime.now(UTC)
    with store.transaction() as conn:
        conn.execute(
            t.run_repos.update()
            .where(c.run_id == run_id, c.repo == repo, c.finished_at.is_(None))
            .values(finished_at=now, error=error)
        )
    return not unfinished(store, run_id)  # counted after the commit, so the last one sees 0


def unfinished(store: Store, run_id: int) -> int:
    c = t.run_repos.c
    query = sa.select(sa.func.count()).where(c.run_id == run_id, c.finished_at.is_(None))
    with store.engine.connect() as conn:
        return conn.execute(query).scalar_one()


def run_repos(store: Store, run_id: int) -> list[dict[str, Any]]:
    query = sa.select(t.run_repos).where(t.run_repos.c.run_id == run_id)
    with store.engine.connect() as conn:
        return [dict(row) for row in conn.execute(query.order_by(t.run_repos.c.repo)).mappings()]


def stalled_runs(store: Store, quiet: timedelta) -> list[int]:
    """Distributed runs still open although every repository ended more than ``quiet`` ago:
    their site task was lost (a broker restart while it was being published)."""
    r, c = t.runs.c, t.run_repos.c
    last_end = sa.select(sa.func.max(c.finished_at)).where(c.run_id == r.id).scalar_subquery()
    open_repos = sa.select(c.repo).where(c.run_id == r.id, c.finished_at.is_(None)).exists()
    query = sa.select(r.id).where(
        r.command == "celery",
        r.status == "running",
        ~open_repos,
        sa.func.coalesce(last_end, r.started_at) < datetime.now(UTC) - quiet,
    )
    with store.engine.connect() as conn:
        return [row.id for row in conn.execute(query)]


# --- the repository lock -------------------------------------------------------------------


@contextmanager
def repo_lock(store: Store, repo: str) -> Iterator[bool]:
    """Try to hold ``repo``'s sync lock; yields whether it was obtained (never waits)."""
    key = _lock_key(repo.lower())
    with store.engine.connect() as conn:
        held = _try_lock(conn, _REPO_LOCK_CLASS, key)
        try:
            yield held
        finally:
            if held:
                _unlock(conn, _REPO_LOCK_CLASS, key)


def synced_since(store: Store, repo: str, when: datetime) -> bool:
    """Whether a sync of ``repo`` that started at or after ``when`` completed."""
    s = t.sync_runs.c
    query = (
        sa.select(sa.func.count())
        .select_from(t.sync_runs.join(t.repos))
        .where(t.repos.c.full_name == repo.lower(), s.status == "ok", s.started_at >= when)
    )
    with store.engine.connect() as conn:
        return bool(conn.execute(query).scalar())


# --- the token budget ----------------------------------------------------------------------


def register_tokens(store: Store, tokens: list[str]) -> None:
    """Make every token of the pool known (budget unknown until GitHub reports it)."""
    now = datetime.now(UTC)
    rows = [{"fingerprint": token_fingerprint(token), "updated_at": now} for token in tokens]
    with store.transaction() as conn:
        conn.execute(postgresql.insert(t.github_tokens).values(rows).on_conflict_do_nothing())


@contextmanager
def token_lease(
    store: Store, tokens: list[str], reserve: int
) -> Iterator[tuple[str | None, datetime | None]]:
    """Hold a token with budget: yields ``(token, None)``, else ``(None, when to try again)``.

    A token is usable when its budget is unknown, above ``reserve`` or past its reset time;
    the one with most budget left is taken first. Holding it is a session advisory lock on a
    connection kept for the block, so one token carries one request stream at a time, and a
    worker killed mid-sync frees its token the moment its connection ends (a lease row with
    an expiry kept such a token idle until the expiry).
    """
    register_tokens(store, tokens)
    by_fp = {token_fingerprint(token): token for token in tokens}
    now = datetime.now(UTC)
    c = t.github_tokens.c
    pool = c.fingerprint.in_(by_fp)
    usable = sa.or_(c.remaining.is_(None), c.remaining > reserve, c.reset_at <= now)
    order = (sa.func.coalesce(c.remaining, 1 << 30).desc(), c.fingerprint)
    with store.engine.connect() as conn:
        query = sa.select(c.fingerprint).where(pool, usable).order_by(*order)
        candidates = list(conn.execute(query).scalars())
        reset = conn.execute(sa.select(sa.func.min(c.reset_at)).where(pool)).scalar()
        for fp in candidates:
            key = _lock_key(fp)
            if _try_lock(conn, _TOKEN_LOCK_CLASS, key):
                try:
                    yield by_fp[fp], None
                finally:
                    _unlock(conn, _TOKEN_LOCK_CLASS, key)
                return
        conn.commit()
    if candidates or reset is None:
        yield None, now + BUSY_RETRY  # budget left, but every such token is in use
    else:
        yield None, reset  # every token is spent until its reset


def _lock_key(name: str) -> sa.ColumnElement:
    """The second half of an advisory key: ``name`` hashed with the schema (tenants and tests
    sharing a database do not block each other)."""
    return sa.func.hashtext(sa.func.current_schema() + ":" + name)


def _try_lock(conn: sa.Connection, lock_class: int, key: sa.ColumnElement) -> bool:
    held = conn.execute(sa.select(sa.func.pg_try_advisory_lock(lock_class, key))).scalar()
    conn.commit()
    return bool(held)


def _unlock(conn: sa.Connection, lock_class: int, key: sa.ColumnElement) -> None:
    if not conn.closed and not conn.invalidated:
        with contextlib.suppress(sa.exc.DBAPIError):  # a lost connection lost the lock
            conn.execute(sa.select(sa.func.pg_advisory_unlock(lock_class, key)))
            conn.commit()


def record_budget(
    store: Store, token: str, remaining: int | None, limit: int | None, reset: float | None
) -> None:
    """Keep what GitHub last reported for the token (``None``: not known, left as it was)."""
    values: dict[str, Any] = {"updated_at": datetime.now(UTC)}
    if remaining is not None:
        values |= {"remaining": remaining, "limit": limit}
    if reset is not None:
        values["reset_at"] = datetime.fromtimestamp(reset, UTC)
    with store.transaction() as conn:
        conn.execute(
            t.github_tokens.update()
            .where(t.github_tokens.c.fingerprint == token_fingerprint(token))
            .values(**values)
        )


def tokens_in_use(store: Store) -> set[str]:
    """Fingerprints of the tokens whose advisory lock some connection holds now."""
    query = sa.text(
        "SELECT g.fingerprint FROM github_tokens g WHERE EXISTS (SELECT 1 FROM pg_locks l"
        " WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2"
        " AND l.classid::bigint = :cls"
        " AND l.objid::bigint = (hashtext(current_schema() || ':' || g.fingerprint)::bigint"
        " & 4294967295)"
        " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))"
    )
    with store.engine.connect() as conn:
        return set(conn.execute(query, {"cls": _TOKEN_LOCK_CLASS}).scalars())


def token_rows(store: Store) -> list[dict[str, Any]]:
    with store.engine.connect() as conn:
        query = sa.select(t.github_tokens).order_by(t.github_tokens.c.fingerprint)
        return [dict(row) for row in conn.execute(query).mappings()]
