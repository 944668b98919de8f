"""Tables (SQLAlchemy Core) and ordered, named migrations. Portable SQLite/PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection


class UTCDateTime(sa.types.TypeDecorator):
    """Aware UTC datetimes in Python; naive UTC in the database (sorts and compares everywhere)."""

    impl = sa.DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the store; pass an aware UTC datetime")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        return None if value is None else value.replace(tzinfo=UTC)


metadata = sa.MetaData()

repos = sa.Table(
    "repos",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("full_name", sa.String(200), nullable=False, unique=True),
    sa.Column("github_id", sa.BigInteger),
    sa.Column("created_at", UTCDateTime, nullable=False),
)

items = sa.Table(
    "items",
    metadata,
    sa.Column("repo_id", sa.Integer, sa.ForeignKey("repos.id"), primary_key=True),
    sa.Column("number", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("github_id", sa.BigInteger, nullable=False),
    sa.Column("is_pr", sa.Boolean, nullable=False),
    sa.Column("title", sa.Text, nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("author", sa.String(100), nullable=False),
    sa.Column("author_type", sa.String(20), nullable=False),
    sa.Column("author_association", sa.String(40), nullable=False),
    sa.Column("state", sa.String(10), nullable=False),
    sa.Column("state_reason", sa.String(30)),
    sa.Column("draft", sa.Boolean, nullable=False),
    sa.Column("labels", sa.JSON, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.Column("closed_at", UTCDateTime),
    sa.Column("merged_at", UTCDateTime),
    sa.Column("comments", sa.Integer, nullable=False),
    sa.Column("reactions", sa.Integer, nullable=False),
    sa.Column("html_url", sa.Text, nullable=False),
    sa.Index("ix_items_created", "repo_id", "created_at"),
    sa.Index("ix_items_closed", "repo_id", "closed_at"),
    sa.Index("ix_items_merged", "repo_id", "merged_at"),
    sa.Index("ix_items_updated", "repo_id", "updated_at"),
    sa.Index("ix_items_author_created", "repo_id", "author", "created_at"),
)

comments = sa.Table(
    "comments",
    metadata,
    sa.Column("repo_id", sa.Integer, sa.ForeignKey("repos.id"), primary_key=True),
    sa.Column("kind", sa.String(20), primary_key=True),
    sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("number", sa.Integer, nullable=False),
    sa.Column("author", sa.String(100), nullable=False),
    sa.Column("author_type", sa.String(20), nullable=False),
    sa.Column("author_association", sa.String(40), nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.Column("review_state", sa.String(30)),
    sa.Column("path", sa.Text),
    sa.Column("reactions", sa.Integer, nullable=False),
    sa.Column("html_url", sa.Text, nullable=False),
    sa.Index("ix_comments_item", "repo_id", "number"),
    sa.Index("ix_comments_created", "repo_id", "created_at"),
    sa.Index("ix_comments_author", "repo_id", "author"),
    sa.Index("ix_comments_item_created", "repo_id", "number", "created_at"),
    sa.Index("ix_comments_author_created", "repo_id", "author", "created_at"),
)

sync_state = sa.Table(
    "sync_state",
    metadata,
    sa.Column("repo_id", sa.Integer, sa.ForeignKey("repos.id"), primary_key=True),
    sa.Column("resource", sa.String(40), primary_key=True),
    sa.Column("watermark", UTCDateTime, nullable=False),
)

http_cache = sa.Table(
    "http_cache",
    metadata,
    sa.Column("url", sa.Text, primary_key=True),
    sa.Column("token_fp", sa.String(16), primary_key=True),
    sa.Column("etag", sa.Text),
    sa.Column("last_modified", sa.Text),
)

sync_runs = sa.Table(
    "sync_runs",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("repo_id", sa.Integer, sa.ForeignKey("repos.id"), nullable=False),
    sa.Column("started_at", UTCDateTime, nullable=False),
    sa.Column("finished_at", UTCDateTime),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("requests", sa.Integer, nullable=False, default=0),
    sa.Column("not_modified", sa.Integer, nullable=False, default=0),
    sa.Column("retried", sa.Integer, nullable=False, default=0),
    sa.Column("slept_seconds", sa.Float, nullable=False, default=0.0),
    sa.Column("items", sa.Integer, nullable=False, default=0),
    sa.Column("comments", sa.Integer, nullable=False, default=0),
)

reports = sa.Table(
    "reports",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("repo_id", sa.Integer, sa.ForeignKey("repos.id"), nullable=False),
    sa.Column("window_start", UTCDateTime, nullable=False),
    sa.Column("window_end", UTCDateTime, nullable=False),
    sa.Column("tz", sa.String(64), nullable=False),
    sa.Column("lang", sa.String(8), nullable=False),
    sa.Column("local_date", sa.String(10), nullable=False),
    sa.Column("writer", sa.String(20), nullable=False),
    sa.Column("report", sa.Text, nullable=False),  # DailyReport JSON
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.UniqueConstraint("repo_id", "window_start", "window_end", "lang", name="uq_reports_window"),
)

period_reports = sa.Table(  # week, month and longer reports; days stay in ``reports``
    "period_reports",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("repo_id", sa.Integer, sa.ForeignKey("repos.id"), nullable=False),
    sa.Column("kind", sa.String(10), nullable=False),  # week, month, period
    sa.Column("period", sa.String(40), nullable=False),  # "2026-W11", "2026-03", ...
    sa.Column("window_start", UTCDateTime, nullable=False),
    sa.Column("window_end", UTCDateTime, nullable=False),
    sa.Column("tz", sa.String(64), nullable=False),
    sa.Column("lang", sa.String(8), nullable=False),
    sa.Column("report", sa.Text, nullable=False),  # PeriodReport JSON
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.UniqueConstraint(
        "repo_id", "kind", "window_start", "window_end", "lang", name="uq_period_reports"
    ),
)

llm_cache = sa.Table(
    "llm_cache",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("model", sa.String(200), nullable=False),
    sa.Column("response", sa.Text, nullable=False),
    sa.Column("prompt_tokens", sa.Integer, nullable=False),
    sa.Column("completion_tokens", sa.Integer, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
)

deliveries = sa.Table(  # one row per (project, kind, window, language, target): at most one send
    "deliveries",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("repo_id", sa.Integer, sa.ForeignKey("repos.id"), nullable=False),
    sa.Column("kind", sa.String(10), nullable=False),  # daily, weekly, monthly
    sa.Column("window_start", UTCDateTime, nullable=False),
    sa.Column("window_end", UTCDateTime, nullable=False),
    sa.Column("lang", sa.String(8), nullable=False),
    sa.Column("target", sa.String(100), nullable=False),
    sa.Column("status", sa.String(10), nullable=False),  # sending, sent, failed
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("digest", sa.Text, nullable=False),  # the message content (Digest JSON), no secrets
    sa.Column("error", sa.Text),  # the last failure, secrets redacted
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.UniqueConstraint(
        "repo_id", "kind", "window_start", "window_end", "lang", "target", name="uq_deliveries"
    ),
)

runs = sa.Table(  # one row per `devdigest run` / `backfill`: what ran, and whether it finished
    "runs",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("command", sa.String(20), nullable=False),
    sa.Column("started_at", UTCDateTime, nullable=False),
    sa.Column("finished_at", UTCDateTime),
    # running | ok | failed | interrupted; a distributed run: running | publishing | ok | failed
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("host", sa.String(200), nullable=False),
    sa.Column("pid", sa.Integer, nullable=False),
    sa.Column("summary", sa.JSON, nullable=False),  # per project: windows, reports, error
)

item_events = sa.Table(
    "item_events",
    metadata,
    sa.Column("repo_id", sa.Integer, sa.ForeignKey("repos.id"), primary_key=True),
    sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("number", sa.Integer, nullable=False),
    sa.Column("event", sa.String(20), nullable=False),  # closed | reopened | merged
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Index("ix_item_events_created", "repo_id", "created_at"),
    sa.Index("ix_item_events_item", "repo_id", "number", "created_at"),
)

# PRs whose reviews are still to be read: queued with the items page that listed them, removed
# with the reviews, so a failed review request never costs the page and is retried next run.
pending_reviews = sa.Table(
    "pending_reviews",
    metadata,
    sa.Column("repo_id", sa.Integer, sa.ForeignKey("repos.id"), primary_key=True),
    sa.Column("number", sa.Integer, primary_key=True, autoincrement=False),
)

llm_capabilities = sa.Table(
    "llm_capabilities",  # the output mode a probe chose per (endpoint, model)
    metadata,
    sa.Column("base_url", sa.String(500), primary_key=True),
    sa.Column("model", sa.String(200), primary_key=True),
    sa.Column("mode", sa.String(20), nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("probed_at", UTCDateTime, nullable=False),
)

tasks = sa.Table(  # one row per distributed task (its Celery id): kept across redeliveries
    "tasks",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("run_id", sa.Integer, index=True),
    sa.Column("name", sa.String(40), nullable=False),  # sync | reports | notify | site
    sa.Column("repo", sa.String(200)),
    sa.Column("window", sa.String(40)),  # the window's local date, for reports
    sa.Column("status", sa.String(20), nullable=False),  # running | retrying | ok | failed
    sa.Column("attempts", sa.Integer, nullable=False, default=0),
    sa.Column("requests", sa.Integer, nullable=False, default=0),
    sa.Column("seconds", sa.Float, nullable=False, default=0.0),
    sa.Column("started_at", UTCDateTime, nullable=False),
    sa.Column("finished_at", UTCDateTime),
    sa.Column("error", sa.Text),
)

github_tokens = sa.Table(  # the shared GitHub budget: each token's state as GitHub last reported
    "github_tokens",
    metadata,
    sa.Column("fingerprint", sa.String(16), primary_key=True),  # never the token itself
    sa.Column("remaining", sa.Integer),
    sa.Column("limit", sa.Integer),
    sa.Column("reset_at", UTCDateTime),
    # (0007 also had a lease here, leased_by/lease_until; 0008 dropped it: a lease is now an
    # advisory lock, which dies with its holder's connection)
    sa.Column("updated_at", UTCDateTime, nullable=False),
)

run_repos = sa.Table(  # a distributed run's repositories: when each one's chain ended, and how
    "run_repos",
    metadata,
    sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id"), primary_key=True),
    sa.Column("repo", sa.String(200), primary_key=True),
    sa.Column("windows", sa.JSON, nullable=False),  # [[start, end], …] of its due reports
    sa.Column("finished_at", UTCDateTime),
    sa.Column("error", sa.Text),  # why its chain stopped (NULL: every step succeeded)
)

schema_migrations = sa.Table(
    "schema_migrations",
    metadata,
    sa.Column("name", sa.String(100), primary_key=True),
    sa.Column("applied_at", UTCDateTime, nullable=False),
)


def _initial(conn: Connection) -> None:
    metadata.create_all(conn, tables=_INITIAL)


def _item_events(conn: Connection) -> None:
    """State history (closed, reopened, merged events) and the queue of PRs awaiting reviews."""
    item_events.create(conn, checkfirst=True)
    pending_reviews.create(conn, checkfirst=True)


_INITIAL = [repos, items, comments, sync_state, http_cache, sync_runs, reports, llm_cache]

_LOOKUP_INDEXES = (
    "ix_items_author_created",
    "ix_comments_item_created",
    "ix_comments_author_created",
)


def _lookup_indexes(conn: Connection) -> None:
    """Per-author and per-item time lookups, so reads by login or item number stay bounded
    by that login's or item's rows instead of scanning the history by time."""
    for table in (items, comments):
        for index in table.indexes:
            if index.name in _LOOKUP_INDEXES:
                index.create(conn, checkfirst=True)


def _deliveries(conn: Connection) -> None:
    deliveries.create(conn, checkfirst=True)


def _runs(conn: Connection) -> None:
    runs.create(conn, checkfirst=True)


def _period_reports(conn: Connection) -> None:
    period_reports.create(conn, checkfirst=True)


def _llm_capabilities(conn: Connection) -> None:
    llm_capabilities.create(conn, checkfirst=True)


def _tasks(conn: Connection) -> None:
    tasks.create(conn, checkfirst=True)
    github_tokens.create(conn, checkfirst=True)


def _run_repos(conn: Connection) -> None:
    run_repos.create(conn, checkfirst=True)
    present = {column["name"] for column in sa.inspect(conn).get_columns(github_tokens.name)}
    for column in ("leased_by", "lease_until"):
        if column in present:
            conn.exec_driver_sql(f"ALTER TABLE {github_tokens.name} DROP COLUMN {column}")


# Ordered, named steps; append new ones, never edit an applied one.
MIGRATIONS: list[tuple[str, Callable[[Connection], None]]] = [
    ("0001_initial", _initial),
    ("0002_lookup_indexes", _lookup_indexes),
    ("0003_item_events", _item_events),
    ("0004_runs", _runs),
    ("0005_llm_capabilities", _llm_capabilities),
    ("0006_deliveries", _deliveries),
    ("0007_period_reports", _period_reports),
    ("0007_tasks", _tasks),
    ("0008_run_repos", _run_repos),
]


_MIGRATION_LOCK = 0x6465_7664_6967_6573  # any constant key shared by every devdigest process


def _lock_for_migration(conn: Connection) -> None:
    """Serialize concurrent first opens: hold the database's write lock until commit."""
    if conn.dialect.name == "postgresql":
        conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_MIGRATION_LOCK)))
    elif conn.dialect.name == "sqlite" and not conn.connection.dbapi_connection.in_transaction:
        conn.exec_driver_sql("BEGIN IMMEDIATE")  # the driver begins only before DML by itself


def _applied(conn: Connection) -> set[str]:
    return {row.name for row in conn.execute(sa.select(schema_migrations.c.name))}


def _pending(conn: Connection) -> bool:
    """Whether a migration is left to apply (checked without taking any write lock)."""
    if not sa.inspect(conn).has_table(schema_migrations.name):
        return True
    return not {name for name, _ in MIGRATIONS} <= _applied(conn)


def migrate(conn: Connection) -> list[str]:
    """Apply the pending migrations in order; returns the names applied."""
    if not _pending(conn):
        return []
    _lock_for_migration(conn)
    schema_migrations.create(conn, checkfirst=True)
    done = _applied(conn)
    applied = []
    for name, step in MIGRATIONS:
        if name in done:
            continue
        step(conn)
        conn.execute(schema_migrations.insert().values(name=name, applied_at=datetime.now(UTC)))
        applied.append(name)
    return applied
