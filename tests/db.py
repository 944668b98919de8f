"""The databases store tests run on: a tmp SQLite file, and a fresh PostgreSQL schema.

A test that takes the ``backend`` fixture runs twice, once per backend. The PostgreSQL server
is ``DEVDIGEST_TEST_DATABASE_URL``, by default ``postgresql+psycopg://postgres@127.0.0.1:5432/test``;
each test gets its own schema (via ``search_path``), dropped afterwards. Without a reachable
server the PostgreSQL variants skip, saying why, except under CI (``CI`` set), where they fail:
CI must test both backends.
"""

from __future__ import annotations

import functools
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa

from devdigest.store import Store, open_store
from devdigest.store.engine import redact

ENV = "DEVDIGEST_TEST_DATABASE_URL"
DEFAULT_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
BACKENDS = ("sqlite", "postgresql")


def server_url() -> str:
    """The PostgreSQL URL the tests use."""
    return os.environ.get(ENV) or DEFAULT_URL


@functools.cache
def _unreachable(url: str) -> str | None:
    """Why ``url`` cannot be used (``None``: it can), checked once per test process."""
    engine = sa.create_engine(url, connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
    except Exception as exc:
        return f"{exc.__class__.__name__}: {str(exc).strip().splitlines()[0]}"
    finally:
        engine.dispose()
    return None


def require_postgres() -> str:
    """The server URL; skips the test (fails it under CI) when the server cannot be reached."""
    url = server_url()
    problem = _unreachable(url)
    if problem is not None:
        message = (
            f"PostgreSQL at {redact(url)} is unreachable ({problem}): start it or point "
            f"{ENV} at one"
        )
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the PostgreSQL tests: {message}", pytrace=False)
        pytest.skip(message)
    return url


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """Each store-facing test runs on SQLite and on PostgreSQL."""
    if request.param == "postgresql":
        require_postgres()
    return request.param


@contextmanager
def pg_schema(url: str | None = None) -> Iterator[str]:
    """A URL bound to a new schema of the PostgreSQL server, dropped afterwards."""
    url = url or require_postgres()
    schema = f"test_{uuid.uuid4().hex[:16]}"
    admin = sa.create_engine(url)
    try:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        scoped = sa.engine.make_url(url).update_query_dict({"options": f"-csearch_path={schema}"})
        yield scoped.render_as_string(hide_password=False)
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        admin.dispose()


@contextmanager
def database(tmp_path: Path, name: str = "db.sqlite3", backend: str = "sqlite") -> Iterator[str]:
    """A ``--db`` value for one test: ``tmp_path/name``, or a URL bound to a new schema."""
    if backend == "sqlite":
        yield str(tmp_path / name)
        return
    with pg_schema() as url:
        yield url


@contextmanager
def scoped_store(
    tmp_path: Path, name: str = "db.sqlite3", backend: str = "sqlite"
) -> Iterator[Store]:
    """An opened store on :func:`database`, closed (and its schema dropped) afterwards."""
    with database(tmp_path, name, backend) as db, open_store(db) as store:
        yield store
