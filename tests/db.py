"""The database a store test runs on: a tmp SQLite file, or a fresh PostgreSQL schema.

Set ``DEVDIGEST_TEST_DATABASE_URL`` (e.g. ``postgresql+psycopg:///devdigest_test``) to run
the store-facing tests on that server: each test gets its own schema (via ``search_path``),
dropped afterwards. Unset, tests use a SQLite file under ``tmp_path``.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa

from devdigest.store import Store, open_store

ENV = "DEVDIGEST_TEST_DATABASE_URL"


def server_url() -> str | None:
    """The PostgreSQL (or other server) URL the tests should use, if any."""
    return os.environ.get(ENV) or None


@contextmanager
def database(tmp_path: Path, name: str = "db.sqlite3") -> Iterator[str]:
    """A ``--db`` value for one test: ``tmp_path/name``, or a URL bound to a new schema."""
    url = server_url()
    if url is None:
        yield str(tmp_path / name)
        return
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
def scoped_store(tmp_path: Path, name: str = "db.sqlite3") -> Iterator[Store]:
    """An opened store on :func:`database`, closed (and its schema dropped) afterwards."""
    with database(tmp_path, name) as db, open_store(db) as store:
        yield store
