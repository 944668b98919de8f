"""The shared GitHub budget and the repository lock, on PostgreSQL."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from devdigest.distributed import ledger
from devdigest.errors import ConfigError
from devdigest.github.client import token_fingerprint
from devdigest.store import open_store
from devdigest.store.runs import close_abandoned_runs, finish_run, last_run, start_run
from tests.db import database, pg_schema

TOKENS = ["tok-1", "tok-2"]


@pytest.fixture
def store():
    with pg_schema() as db, open_store(db) as s:
        yield s


def test_each_token_is_held_by_one_holder_at_a_time(store):
    with (
        ledger.token_lease(store, TOKENS, reserve=10) as (first, _),
        ledger.token_lease(store, TOKENS, reserve=10) as (second, _),
    ):
        assert {first, second} == set(TOKENS)
        assert ledger.tokens_in_use(store) == {token_fingerprint(t) for t in TOKENS}
        with ledger.token_lease(store, TOKENS, reserve=10) as (third, retry_at):
            assert third is None  # budget left: try again soon
            assert retry_at - datetime.now(UTC) <= ledger.BUSY_RETRY
    assert ledger.tokens_in_use(store) == set()
    with ledger.token_lease(store, TOKENS, reserve=10) as (again, _):
        assert again in TOKENS


def test_a_token_held_by_a_dead_connection_is_free_at_once(store):
    name = f"doomed-{uuid.uuid4().hex[:12]}"
    url = store.engine.url.update_query_dict({"application_name": name})
    doomed = open_store(url.render_as_string(hide_password=False))
    held = ledger.token_lease(doomed, TOKENS[:1], reserve=10)
    assert held.__enter__()[0] == TOKENS[0]
    with ledger.token_lease(store, TOKENS[:1], reserve=10) as (token, _):
        assert token is None
    with store.engine.connect() as conn:  # the holder's connection ends, as when it is killed
        query = "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity"
        query += " WHERE application_name = %s"
        assert conn.exec_driver_sql(query, (name,)).all()
    with ledger.token_lease(store, TOKENS[:1], reserve=10) as (token, _):
        assert token == TOKENS[0]
    doomed.close()


def test_a_spent_pool_says_when_the_first_token_resets(store):
    soon, later = datetime.now(UTC) + timedelta(minutes=7), datetime.now(UTC) + timedelta(hours=1)
    ledger.register_tokens(store, TOKENS)
    for token, reset in zip(TOKENS, (later, soon), strict=True):
        ledger.record_budget(store, token, 3, 5000, reset.timestamp())  # below the reserve
    with ledger.token_lease(store, TOKENS, reserve=10) as (token, retry_at):
        assert token is None and abs((retry_at - soon).total_seconds()) < 1
    rows = {row["fingerprint"]: row for row in ledger.token_rows(store)}
    assert rows[token_fingerprint(TOKENS[1])]["remaining"] == 3


def test_one_holder_of_a_repository_lock(store):
    with (
        ledger.repo_lock(store, "o/r") as first,
        ledger.repo_lock(store, "O/R") as second,
        ledger.repo_lock(store, "o/other") as third,
    ):
        assert first and not second and third
    with ledger.repo_lock(store, "o/r") as again:
        assert again


def test_the_celery_executor_refuses_a_sqlite_store(tmp_path):
    with database(tmp_path) as db, open_store(db) as s, pytest.raises(ConfigError, match="--db"):
        ledger.require_shared_store(s)


def test_a_run_ends_when_its_last_repository_ends_and_a_lost_site_task_is_found(store):
    run = start_run(store, "celery")
    ledger.plan_run(store, run, {"o/a": [["s", "e"]], "o/b": []})
    assert not ledger.finish_repo(store, run, "o/a", None)
    assert ledger.finish_repo(store, run, "o/b", "sync failed")
    assert ledger.finish_repo(store, run, "o/b", None)  # a redelivered finish changes nothing
    errors = {r["repo"]: r["error"] for r in ledger.run_repos(store, run)}
    assert errors == {"o/a": None, "o/b": "sync failed"}
    assert ledger.stalled_runs(store, timedelta(minutes=2)) == []  # its site task may be on its way
    assert ledger.stalled_runs(store, timedelta(0)) == [run]  # ... or lost: publish it again
    finish_run(store, run, "failed", {})
    assert ledger.stalled_runs(store, timedelta(0)) == []


def test_a_local_run_does_not_close_a_distributed_run(store):
    distributed, local = start_run(store, "celery"), start_run(store, "run")
    assert close_abandoned_runs(store) == 1
    assert last_run(store, running=True)["id"] == distributed != local
