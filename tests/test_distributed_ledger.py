"""The shared GitHub budget and the repository lock, on PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from devdigest.distributed import ledger
from devdigest.errors import ConfigError
from devdigest.github.client import token_fingerprint
from devdigest.store import open_store
from tests.db import database, pg_schema

TOKENS = ["tok-1", "tok-2"]


@pytest.fixture
def store():
    with pg_schema() as db, open_store(db) as s:
        yield s


def test_each_token_is_leased_to_one_holder_at_a_time(store):
    first, _ = ledger.lease_token(store, TOKENS, "task-1", reserve=10)
    second, _ = ledger.lease_token(store, TOKENS, "task-2", reserve=10)
    third, retry_at = ledger.lease_token(store, TOKENS, "task-3", reserve=10)
    assert {first, second} == set(TOKENS) and third is None
    assert retry_at - datetime.now(UTC) <= ledger.BUSY_RETRY  # budget left: try again soon
    ledger.release_token(store, first, 4000, 5000, None)
    again, _ = ledger.lease_token(store, TOKENS, "task-3", reserve=10)
    assert again == first


def test_a_spent_pool_says_when_the_first_token_resets(store):
    soon, later = datetime.now(UTC) + timedelta(minutes=7), datetime.now(UTC) + timedelta(hours=1)
    ledger.register_tokens(store, TOKENS)
    for token, reset in zip(TOKENS, (later, soon), strict=True):
        ledger.lease_token(store, [token], "t", reserve=10)
        ledger.release_token(store, token, 3, 5000, reset.timestamp())  # below the reserve
    token, retry_at = ledger.lease_token(store, TOKENS, "task", reserve=10)
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
