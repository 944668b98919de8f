"""The run lock on SQLite (file lock) and PostgreSQL (advisory lock): one holder at a time,
released on exit, a clear message."""

from __future__ import annotations

import threading

import pytest

from devdigest.errors import StoreError
from devdigest.run.lock import run_lock
from devdigest.store import open_store
from devdigest.store.runs import finish_run, last_run, start_run
from tests.db import database


def test_one_holder_at_a_time_then_released(tmp_path, backend):
    with (
        database(tmp_path, backend=backend) as db,
        open_store(db) as first,
        open_store(db) as second,
    ):
        with run_lock(first):
            run_id = start_run(first, "run")
            with pytest.raises(StoreError) as caught, run_lock(second):
                pass
            message = str(caught.value)
            assert message.startswith("another devdigest run is using this store (run started")
            assert "--wait-lock SECONDS" in message and "\n" not in message
            finish_run(first, run_id, "ok", {})
        with run_lock(second):  # released when the holder's block ends
            pass


def test_waiting_for_the_lock_gets_it_once_released(tmp_path, backend):
    with (
        database(tmp_path, backend=backend) as db,
        open_store(db) as first,
        open_store(db) as second,
    ):
        holding, leaving = threading.Event(), threading.Event()

        def hold() -> None:
            with run_lock(first):
                holding.set()
                threading.Event().wait(0.3)  # still busy when the other asks
                leaving.set()

        holder = threading.Thread(target=hold)
        holder.start()
        assert holding.wait(30)
        with run_lock(second, wait=30):
            assert leaving.is_set()  # granted only once the holder was done
        holder.join(30)


def test_different_stores_do_not_block_each_other(tmp_path, backend):
    with (
        database(tmp_path, "a.sqlite3", backend) as a,
        database(tmp_path, "b.sqlite3", backend) as b,
        open_store(a) as one,
        open_store(b) as two,
        run_lock(one),
        run_lock(two),  # would raise if the stores shared a lock
    ):
        assert a != b


def test_0004_runs_upgrades_an_existing_store_in_place(tmp_path, backend):
    with database(tmp_path, "old.sqlite3", backend) as db:
        with open_store(db) as store, store.transaction() as conn:  # a store from before 0004
            store.repo_id("o/r", conn)
            conn.exec_driver_sql("DROP TABLE run_repos")  # later migrations, gone too
            conn.exec_driver_sql("DROP TABLE runs")
            conn.exec_driver_sql(
                "DELETE FROM schema_migrations WHERE name IN ('0004_runs', '0008_run_repos')"
            )
        with open_store(db) as store:
            assert store.repos() == ["o/r"]  # the data survived
            run_id = start_run(store, "run")
            finish_run(store, run_id, "ok", {"projects": []})
            assert last_run(store)["summary"] == {"projects": []}
