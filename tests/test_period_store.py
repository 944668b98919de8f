"""Period reports are stored (one row per project, kind, window and language) for the site
and ``devdigest run``, and the 0007 migration adds their table to an existing store."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from devdigest.config import load_config
from devdigest.report import generate_period_reports
from devdigest.sample.dataset import generate_history
from devdigest.store.periods import (
    period_reports,
    period_reports_version,
    save_period_report,
    stored_period_windows,
)
from devdigest.store.queries import open_store
from devdigest.window import month_window, week_window
from tests.helpers import store_from_dataset

REPO = "vllm-project/vllm"
NOW = datetime(2026, 3, 13, 4, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    ds = generate_history(days=40, seed=5)
    store = store_from_dataset(ds, str(tmp_path_factory.mktemp("ps") / "s.sqlite3"))
    yield store
    store.close()


def test_generated_period_reports_are_stored_once_per_window_and_language(store):
    config = load_config(None)
    week = week_window("2026-W09", "Asia/Shanghai")
    month = month_window("2026-02", "Asia/Shanghai")
    assert period_reports_version(store) == (0, None)
    run = generate_period_reports(config, store, REPO, week, ["zh", "en"], no_sync=True, now=NOW)
    generate_period_reports(config, store, REPO, month, ["en"], no_sync=True, now=NOW)
    generate_period_reports(config, store, REPO, week, ["en"], no_sync=True, now=NOW)  # replaces
    stored = period_reports(store, REPO)
    assert [(r.kind, r.period, r.lang) for r in stored] == [
        ("month", "2026-02", "en"),
        ("week", "2026-W09", "en"),
        ("week", "2026-W09", "zh"),
    ]
    assert stored[2] == run.reports[0]
    assert [r.period for r in period_reports(store, kind="week")] == ["2026-W09"] * 2
    assert period_reports(store, "other/repo") == []
    assert stored_period_windows(store, REPO, "week", "en") == {(week.start, week.end)}
    assert stored_period_windows(store, REPO, "month", "zh") == set()
    assert period_reports_version(store)[0] == 3


def test_saving_the_same_report_again_replaces_it(store):
    if not period_reports(store, REPO, "month"):  # this test may run apart from the one above
        month = month_window("2026-02", "Asia/Shanghai")
        generate_period_reports(
            load_config(None), store, REPO, month, ["en"], no_sync=True, now=NOW
        )
    report = period_reports(store, REPO, "month")[0]
    before = period_reports_version(store)
    changed = report.model_copy(update={"previous_period": "changed"})
    save_period_report(store, changed)
    after = period_reports(store, REPO, "month")
    assert [r.previous_period for r in after] == ["changed"]
    assert period_reports_version(store)[0] == before[0]


def test_period_migration_upgrades_an_existing_store_in_place(tmp_path):
    db = str(tmp_path / "old.sqlite3")
    with open_store(db) as s:
        s.repo_id(REPO)
    engine = sa.create_engine(f"sqlite:///{db}")
    with engine.begin() as conn:  # a store as the release before 0007 left it
        conn.exec_driver_sql("DROP TABLE period_reports")
        conn.exec_driver_sql("DELETE FROM schema_migrations WHERE name = '0007_period_reports'")
    engine.dispose()
    with open_store(db) as s:
        assert period_reports(s) == []
        with s.engine.connect() as conn:
            names = [r[0] for r in conn.exec_driver_sql("SELECT name FROM schema_migrations")]
            repos = [r[0] for r in conn.exec_driver_sql("SELECT full_name FROM repos")]
    assert "0007_period_reports" in names and repos == [REPO]
