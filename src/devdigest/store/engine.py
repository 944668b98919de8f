"""Engines for ``--db``: SQLite by path, PostgreSQL (or another server) by SQLAlchemy URL."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from devdigest.errors import StoreError

# URL schemes without a driver, mapped to the driver the `postgres` extra installs.
_DRIVERLESS = {"postgres": "postgresql+psycopg", "postgresql": "postgresql+psycopg"}


def database_url(db: str) -> str:
    """A SQLAlchemy URL from ``--db``: a URL is kept, a path becomes ``sqlite:///PATH``.

    ``postgresql://`` and ``postgres://`` URLs get the psycopg (3) driver.
    """
    if "://" in db:
        scheme, rest = db.split("://", 1)
        return f"{_DRIVERLESS.get(scheme.lower(), scheme)}://{rest}"
    path = Path(db).expanduser()
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


BUSY_TIMEOUT = 30.0  # seconds a SQLite writer waits for another process's write lock


def create_store_engine(db: str, busy_timeout: float = BUSY_TIMEOUT) -> Engine:
    """An engine for ``db`` (a path or URL), with per-dialect connection setup.

    SQLite connections wait up to ``busy_timeout`` seconds for a lock held by another process.
    """
    url = database_url(db)
    sqlite = url.startswith("sqlite")
    options: dict[str, Any] = {"connect_args": {"timeout": busy_timeout}} if sqlite else {}
    try:
        engine = sa.create_engine(url, pool_pre_ping=not sqlite, **options)
    except ModuleNotFoundError as exc:
        raise StoreError(
            f"cannot open the database {redact(db)}: its driver {exc.name!r} is not installed "
            "(PostgreSQL: pip install 'devdigest[postgres]')"
        ) from exc
    if engine.dialect.name == "sqlite":
        sa.event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def redact(db: str) -> str:
    """``db`` for messages: a URL with its password hidden, a path as given."""
    if "://" not in db:
        return db
    try:
        return sa.engine.make_url(database_url(db)).render_as_string(hide_password=True)
    except sa.exc.ArgumentError:
        return db.split("://", 1)[0] + "://…"


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cursor = dbapi_conn.cursor()
    _use_wal(cursor)
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _use_wal(cursor: Any, tries: int = 200) -> None:
    """Switch the file to WAL once. SQLite answers "database is locked" at once, without its
    busy handler, when connections to a brand-new file switch concurrently: retry briefly."""
    for attempt in range(tries):
        try:
            if cursor.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == tries - 1:
                raise
            time.sleep(0.05)


def text_safe_rows(dialect: str, rows: list[dict]) -> list[dict]:
    """Rows the dialect can store: PostgreSQL text cannot hold NUL characters, so they are
    dropped there (GitHub text occasionally carries them); other dialects get rows unchanged."""
    if dialect != "postgresql":
        return rows
    return [
        {k: v.replace("\x00", "") if isinstance(v, str) else v for k, v in row.items()}
        for row in rows
    ]
