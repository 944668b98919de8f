"""Store: migrations, conditional upserts, window queries, reports and caches."""

from __future__ import annotations

import threading
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from devdigest.errors import StoreError
from devdigest.models import CommentRecord, Counts, DailyReport, ItemRecord, Provenance, WindowInfo
from devdigest.store import open_store
from devdigest.store import schema as t
from devdigest.store.engine import database_url
from devdigest.store.schema import MIGRATIONS, migrate
from tests.db import database, scoped_store
from tests.helpers import make_item

T0 = datetime(2026, 3, 12, 3, 24, tzinfo=UTC)


def item(number: int, **kw) -> ItemRecord:
    """An open issue created (and last updated) at ``T0`` unless overridden."""
    return make_item(number, **({"created_at": T0} | kw))


def comment(cid: int, number: int, **kw) -> CommentRecord:
    base = dict(
        id=cid,
        kind="issue_comment",
        number=number,
        author="bob",
        author_type="User",
        author_association="NONE",
        body="hi",
        created_at=T0,
        updated_at=T0,
    )
    return CommentRecord(**(base | kw))


@pytest.fixture
def store(tmp_path, backend):
    with scoped_store(tmp_path, backend=backend) as s:
        yield s


def test_migrations_recorded_once(tmp_path, backend):
    with database(tmp_path, "m.sqlite3", backend) as db:
        open_store(db).close()
        s = open_store(db)  # second open applies nothing new
        with s.engine.connect() as c:
            names = [r[0] for r in c.exec_driver_sql("SELECT name FROM schema_migrations")]
        s.close()
    assert names == [name for name, _ in MIGRATIONS]


def test_upsert_applies_only_newer_or_equal(store):
    with store.transaction() as c:
        rid = store.repo_id("O/R", c)
        store.upsert_items(c, rid, [item(1, title="new", updated_at=T0 + timedelta(hours=2))])
    with store.transaction() as c:  # an older copy (e.g. a late page) must not win
        store.upsert_items(c, rid, [item(1, title="old", updated_at=T0)])
    assert store.items_by_number("o/r", [1])[1].title == "new"
    with store.transaction() as c:
        store.upsert_items(c, rid, [item(1, title="newer", updated_at=T0 + timedelta(hours=3))])
    got = store.items_by_number("o/r", [1])[1]
    assert got.title == "newer" and got.updated_at == T0 + timedelta(hours=3)
    assert got.updated_at.tzinfo is not None


def test_comment_kinds_do_not_collide(store):
    with store.transaction() as c:
        rid = store.repo_id("o/r", c)
        store.upsert_comments(c, rid, [comment(7, 1), comment(7, 1, kind="review", body="LGTM")])
    got = store.comments_between("o/r", T0, T0 + timedelta(seconds=1))
    assert sorted(x.kind for x in got) == ["issue_comment", "review"]


def test_window_items_half_open_and_definitions(store):
    end = T0 + timedelta(days=1)
    rows = [
        item(1, created_at=T0),  # new issue at the start: counts
        item(2, created_at=end),  # at the end: does not
        item(
            3, created_at=T0 - timedelta(days=3), state="closed", closed_at=T0 + timedelta(hours=1)
        ),
        item(4, created_at=T0 - timedelta(days=3), state="open", closed_at=T0 + timedelta(hours=1)),
        item(
            5,
            is_pr=True,
            created_at=T0 - timedelta(days=1),
            state="closed",
            closed_at=T0 + timedelta(hours=2),
            merged_at=T0 + timedelta(hours=2),
        ),
        item(
            6,
            is_pr=True,
            created_at=T0 + timedelta(hours=1),
            state="closed",
            closed_at=T0 + timedelta(hours=5),
        ),
        item(
            7,
            is_pr=True,
            created_at=T0 - timedelta(days=2),
            state="closed",
            closed_at=end,
            merged_at=end,
        ),  # merged exactly at the end: not counted
    ]
    with store.transaction() as c:
        store.upsert_items(c, store.repo_id("o/r", c), rows)
    assert store.window_numbers("o/r", T0, end) == {
        "new_issues": [1],
        "closed_issues": [3],  # 4 was reopened: closed_at is stale, state open
        "new_prs": [6],
        "merged_prs": [5],
        "closed_unmerged_prs": [6],
    }


def test_unknown_repo_reads_empty(store):
    assert store.window_numbers("nobody/here", T0, T0 + timedelta(days=1))["new_issues"] == []
    assert store.repos() == []


def test_watermark_and_http_cache_roundtrip(store):
    with store.transaction() as c:
        rid = store.repo_id("o/r", c)
        store.set_watermark(c, rid, "issues", T0)
        store.set_watermark(c, rid, "issues", T0 + timedelta(hours=1))
        store.save_http_validators(c, "https://x/y", "anon", '"abc"', None)
    assert store.watermark(rid, "issues") == T0 + timedelta(hours=1)
    assert store.watermark(rid, "comments") is None
    assert store.http_validators("https://x/y", "anon") == ('"abc"', None)
    assert store.http_validators("https://x/y", "other") == (None, None)


def test_reports_replace_same_window_and_lang(store):
    report = DailyReport(
        repo="o/r",
        project="R",
        lang="en",
        date="2026-03-12",
        window=WindowInfo(start=T0, end=T0 + timedelta(days=1), tz="UTC", label="x"),
        counts=Counts(new_issues=1),
        provenance=Provenance(writer="offline", version="1", generated_at=T0),
    )
    store.save_report(report)
    store.save_report(report.model_copy(update={"counts": Counts(new_issues=2)}))
    store.save_report(report.model_copy(update={"lang": "zh"}))
    saved = store.reports("o/r")
    assert [(r.lang, r.counts.new_issues) for r in saved] == [("en", 2), ("zh", 1)]


def test_llm_cache_roundtrip(store):
    assert store.llm_cached("k") is None
    store.save_llm("k", "m", {"a": 1}, 10, 2)
    got = store.llm_cached("k")
    assert (got["model"], got["prompt_tokens"], got["completion_tokens"]) == ("m", 10, 2)


def test_unopenable_database_is_one_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="DEVDIGEST_DB"):
        open_store(str(blocker / "sub" / "db.sqlite3"))


def test_naive_datetimes_are_refused(store):
    with pytest.raises(StoreError), store.transaction() as c:
        store.upsert_items(
            c, store.repo_id("o/r", c), [replace(item(1), created_at=datetime(2026, 1, 1))]
        )


def test_github_ids_beyond_32_bits_roundtrip(store):
    big = 2**31 + 12345, 2**33 + 7
    with store.transaction() as c:
        rid = store.repo_id("o/r", c)
        store.upsert_items(c, rid, [item(1, id=big[0])])
        store.upsert_comments(c, rid, [comment(big[1], 1)])
    assert store.items_by_number("o/r", [1])[1].id == big[0]
    assert [x.id for x in store.comments_between("o/r", T0, T0 + timedelta(seconds=1))] == [big[1]]


def test_text_with_nul_characters_is_stored(store):
    body = "crash log: \x00\x00 end"
    with store.transaction() as c:
        rid = store.repo_id("o/r", c)
        store.upsert_items(c, rid, [item(1, body=body, labels=["a\x00b"])])
        store.upsert_comments(c, rid, [comment(5, 1, body=body)])
    # PostgreSQL text cannot hold NUL: the store drops them there and nowhere else
    kept = body.replace("\x00", "") if store.engine.dialect.name == "postgresql" else body
    got = store.items_by_number("o/r", [1])[1]
    assert (got.body, got.labels) == (kept, ["a\x00b"])
    assert store.comments_between("o/r", T0, T0 + timedelta(seconds=1))[0].body == kept


def test_names_sort_by_code_point_on_every_database(store):
    names = ["a-b/x", "ab/a", "a_c/x", "a/b", "zz/top", "a.b/c"]
    for name in names:
        store.repo_id(name)
    assert store.repos() == sorted(names)  # Python's order: code points, like SQLite
    for name in reversed(names):
        for lang in ("zh", "en"):
            store.save_report(_report(name, lang))
    assert [(r.repo, r.lang) for r in store.reports()] == [
        (n, lang) for n in sorted(names) for lang in ("en", "zh")
    ]


def _report(repo: str, lang: str) -> DailyReport:
    return DailyReport(
        repo=repo,
        project=repo,
        lang=lang,
        date="2026-03-12",
        window=WindowInfo(start=T0, end=T0 + timedelta(days=1), tz="UTC", label="x"),
        counts=Counts(),
        provenance=Provenance(writer="offline", version="1", generated_at=T0),
    )


def test_concurrent_first_opens_migrate_once(tmp_path, backend):
    errors: list[Exception] = []

    def open_and_use(db: str) -> None:
        try:
            s = open_store(db)
            s.repo_id("o/r")  # concurrent creators of one repo agree on its id
            s.close()
        except StoreError as exc:
            errors.append(exc)

    with database(tmp_path, "race.sqlite3", backend) as db:
        threads = [threading.Thread(target=open_and_use, args=(db,)) for _ in range(5)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        s = open_store(db)
        with s.engine.connect() as c:
            names = [r[0] for r in c.exec_driver_sql("SELECT name FROM schema_migrations")]
        repos = s.repos()
        s.close()
    assert errors == []
    assert sorted(names) == sorted(name for name, _ in MIGRATIONS) and repos == ["o/r"]


def test_database_urls_and_missing_driver():
    assert database_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert database_url("postgres://u:pw@h:5433/db") == "postgresql+psycopg://u:pw@h:5433/db"
    assert database_url("postgresql+psycopg:///db") == "postgresql+psycopg:///db"
    with pytest.raises(StoreError, match=r"'MySQLdb' is not installed") as info:
        open_store("mysql://u:secret@h/db")
    assert "secret" not in str(info.value)


def test_earliest_activity_prefers_sync_coverage(store):
    old = T0 - timedelta(days=400)
    with store.transaction() as c:
        rid = store.repo_id("o/r", c)
        store.upsert_items(c, rid, [item(1, created_at=old, updated_at=T0)])
    assert store.earliest_activity("o/r") == old  # filled without syncing: oldest item
    with store.transaction() as c:
        store.set_watermark(c, rid, "issues:from", T0 - timedelta(days=3))
        store.set_watermark(c, rid, "issue_comments:from", T0 - timedelta(days=2))
        store.set_watermark(c, rid, "issues", T0)  # a plain watermark is not coverage
    assert store.earliest_activity("o/r") == T0 - timedelta(days=2)
    with store.transaction() as c:  # the state history, begun later on an upgraded store
        store.set_watermark(c, rid, "issue_events:from", T0 - timedelta(hours=1))
    assert store.earliest_activity("o/r") == T0 - timedelta(days=2)


def test_a_store_of_0002_is_upgraded_in_place(tmp_path):
    path = tmp_path / "old.sqlite3"
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:  # a store as 0002 left it, with data
        for table in (t.repos, t.items, t.comments, t.sync_state, t.schema_migrations):
            table.create(conn)
        conn.execute(t.repos.insert().values(id=1, full_name="o/r", created_at=T0))
        for name in ("0001_initial", "0002_lookup_indexes"):
            conn.execute(t.schema_migrations.insert().values(name=name, applied_at=T0))
    engine.dispose()
    with open_store(str(path)) as s:
        assert s.repos() == ["o/r"]
        assert s.item_state_changes("o/r", T0, T0 + timedelta(days=1)) == []
        assert s.pending_reviews(s.repo_id("o/r")) == []
        with s.engine.connect() as c:
            names = [r[0] for r in c.exec_driver_sql("SELECT name FROM schema_migrations")]
    assert sorted(names) == [name for name, _ in MIGRATIONS]  # every step applied, once


def test_llm_capability_roundtrip_per_endpoint_and_model(store):
    url = "http://127.0.0.1:8080/v1"
    assert store.llm_capability(url, "m") is None
    store.save_llm_capability(url, "m", "json_object", "json_schema rejected (HTTP 500)")
    store.save_llm_capability(url, "m", "text", "json_object rejected (HTTP 400)")  # replaces
    store.save_llm_capability(url, "other", "json_schema", "accepted")
    got = store.llm_capability(url, "m")
    assert (got["mode"], got["reason"]) == ("text", "json_object rejected (HTTP 400)")
    assert got["probed_at"].tzinfo is not None
    assert store.llm_capability(url + "/", "m") is None  # another endpoint spelling: re-probed


def test_capability_migration_upgrades_an_existing_store(tmp_path):
    db = str(tmp_path / "old.sqlite3")
    engine = sa.create_engine(f"sqlite:///{db}")
    with engine.begin() as conn:  # a store as the release before 0005 left it
        migrate(conn)
        conn.exec_driver_sql("DROP TABLE llm_capabilities")
        conn.exec_driver_sql("DELETE FROM schema_migrations WHERE name = '0005_llm_capabilities'")
    engine.dispose()
    with open_store(db) as s:
        s.save_llm_capability("http://h/v1", "m", "json_object", "why")
        assert s.llm_capability("http://h/v1", "m")["mode"] == "json_object"


# The tables of the first released schema (0001_initial + 0002_lookup_indexes); every other
# table comes from a later migration.
FIRST_SCHEMA = {
    "repos",
    "items",
    "comments",
    "sync_state",
    "http_cache",
    "sync_runs",
    "reports",
    "llm_cache",
    "schema_migrations",
}


FIRST_MIGRATIONS = {"0001_initial", "0002_lookup_indexes"}


def test_a_store_of_the_first_schema_upgrades_in_place(tmp_path, backend):
    with database(tmp_path, "old.sqlite3", backend) as db:
        with open_store(db) as s, s.transaction() as c:  # written by the first release
            rid = s.repo_id("o/r", c)
            s.upsert_items(c, rid, [item(1, title="kept")])
            s.upsert_comments(c, rid, [comment(5, 1)])
            s.set_watermark(c, rid, "issues", T0)
            later = [name for name, _ in MIGRATIONS if name not in FIRST_MIGRATIONS]
            for table in reversed(t.metadata.sorted_tables):
                if table.name not in FIRST_SCHEMA:
                    table.drop(c)
            c.execute(t.schema_migrations.delete().where(t.schema_migrations.c.name.in_(later)))
        with open_store(db) as s:
            assert s.items_by_number("o/r", [1])[1].title == "kept"
            assert [x.id for x in s.comments_between("o/r", T0, T0 + timedelta(seconds=1))] == [5]
            assert s.watermark(s.repo_id("o/r"), "issues") == T0
            with s.engine.connect() as c:
                names = [r[0] for r in c.execute(sa.select(t.schema_migrations.c.name))]
                tables = set(sa.inspect(c).get_table_names())
    assert sorted(names) == sorted(name for name, _ in MIGRATIONS) and later
    assert tables == set(t.metadata.tables)
