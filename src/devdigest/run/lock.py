"""One ``run`` (or ``backfill``) per store at a time.

SQLite: an OS file lock (``filelock``: ``flock`` on Linux) on ``<database>.run.lock`` beside the
database file. PostgreSQL: a session-level advisory lock on a connection held for the run, keyed
by the current schema so that stores in different schemas of one database do not block each
other. Both are released by the operating system or the server when the process dies, even by
``kill -9``: a crashed run never leaves a stale lock behind, and no expiry has to be guessed.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as sa
from filelock import FileLock, Timeout

from devdigest.errors import StoreError
from devdigest.store import Store
from devdigest.store.runs import last_run

_ADVISORY_CLASS = 0x6464  # first half of the two-int advisory key; the second is the schema's hash
POLL_SECONDS = 0.5


@contextmanager
def run_lock(store: Store, wait: float = 0.0) -> Iterator[None]:
    """Hold the store's run lock; wait up to ``wait`` seconds, then fail with a clear message."""
    dialect = store.engine.dialect.name
    if dialect == "postgresql":
        with _advisory_lock(store, wait):
            yield
        return
    database = store.engine.url.database
    if dialect != "sqlite" or not database or database == ":memory:":
        yield  # a private in-memory database cannot be shared
        return
    lock = FileLock(f"{database}.run.lock")
    try:
        lock.acquire(timeout=wait)
    except Timeout:
        raise _busy(store, wait) from None
    try:
        yield
    finally:
        lock.release()


@contextmanager
def _advisory_lock(store: Store, wait: float) -> Iterator[None]:
    key = sa.func.hashtext(sa.func.current_schema())
    deadline = time.monotonic() + wait
    with store.engine.connect() as conn:
        while not conn.execute(
            sa.select(sa.func.pg_try_advisory_lock(_ADVISORY_CLASS, key))
        ).scalar():
            if time.monotonic() >= deadline:
                conn.rollback()
                raise _busy(store, wait)
            time.sleep(POLL_SECONDS)
        conn.commit()
        try:
            yield
        finally:
            conn.execute(sa.select(sa.func.pg_advisory_unlock(_ADVISORY_CLASS, key)))
            conn.commit()


def _busy(store: Store, wait: float) -> StoreError:
    holder = last_run(store, running=True)
    who = (
        f" ({holder['command']} started {holder['started_at']:%Y-%m-%d %H:%M} UTC by pid "
        f"{holder['pid']} on {holder['host']})"
        if holder
        else ""
    )
    waited = f" after waiting {wait:g} s" if wait else ""
    return StoreError(
        f"another devdigest run is using this store{who}; stopped{waited} with nothing done: "
        "rerun later, or pass --wait-lock SECONDS to wait for it"
    )
