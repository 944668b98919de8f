"""Store access: upserts, watermarks, HTTP cache, window queries, reports, LLM cache."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, fields, replace
from datetime import UTC, datetime
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from devdigest.errors import StoreError
from devdigest.models import COUNT_KEYS, CommentRecord, DailyReport, ItemEvent, ItemRecord
from devdigest.store import schema as t
from devdigest.store.bookkeeping import SyncBookkeeping
from devdigest.store.engine import BUSY_TIMEOUT, create_store_engine, redact, text_safe_rows

T = TypeVar("T")
WRITE_TRIES = 5  # attempts of a write transaction that found the database locked

_ITEM_FIELDS = [f.name for f in fields(ItemRecord)]
_COMMENT_FIELDS = [f.name for f in fields(CommentRecord)]


def open_store(db: str, busy_timeout: float = BUSY_TIMEOUT) -> Store:
    """Open (and migrate) the store at a path or SQLAlchemy URL."""
    try:
        engine = create_store_engine(db, busy_timeout)
        with engine.begin() as conn:
            t.migrate(conn)
    except (sa.exc.SQLAlchemyError, ImportError, OSError) as exc:
        raise StoreError(
            f"cannot open the database {redact(db)}: {exc.__class__.__name__}: "
            f"{str(exc).splitlines()[0]}; check --db / DEVDIGEST_DB"
        ) from exc
    return Store(engine)


class Store(SyncBookkeeping):
    """All reads and writes of the database."""

    def __init__(self, engine: Engine, sleeper: Callable[[float], None] = time.sleep) -> None:
        self.engine = engine
        self.sleep = sleeper  # between retries of a locked write

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One unit of work: a page of rows and its checkpoint commit together."""
        try:
            with self.engine.begin() as conn:
                yield conn
        except sa.exc.SQLAlchemyError as exc:
            raise StoreError(_locked_or_failed(exc)) from exc

    def write(self, work: Callable[[Connection], T], tries: int = WRITE_TRIES) -> T:
        """Run ``work(conn)`` in one transaction, again from the start when the database was
        locked by another writer past the busy timeout (SQLite)."""
        for attempt in range(1, tries + 1):
            try:
                with self.engine.begin() as conn:
                    return work(conn)
            except sa.exc.OperationalError as exc:
                if "database is locked" not in str(exc) or attempt == tries:
                    raise StoreError(_locked_or_failed(exc)) from exc
                self.sleep(min(8.0, 0.5 * 2 ** (attempt - 1)))
            except sa.exc.SQLAlchemyError as exc:
                raise StoreError(_locked_or_failed(exc)) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    # --- repos -----------------------------------------------------------------------------

    def repo_id(self, full_name: str, conn: Connection | None = None, create: bool = True) -> int:
        """The id of ``owner/name``, created on first use (``create=False``: -1 if unknown)."""
        key = full_name.lower()
        with self._conn(conn) as c:
            row = c.execute(sa.select(t.repos.c.id).where(t.repos.c.full_name == key)).first()
            if row:
                return row.id
            if not create:
                return -1
            new = {"full_name": key, "created_at": datetime.now(UTC)}
            # a concurrent writer may create it first: keep theirs
            c.execute(self._insert(t.repos).values(**new).on_conflict_do_nothing())
            return c.execute(sa.select(t.repos.c.id).where(t.repos.c.full_name == key)).scalar_one()

    def repos(self) -> list[str]:
        query = sa.select(t.repos.c.full_name).order_by(self._bytewise(t.repos.c.full_name))
        with self.engine.connect() as c:
            return [r.full_name for r in c.execute(query)]

    def _bytewise(self, column: sa.ColumnElement) -> sa.ColumnElement:
        """``column`` ordered by code point, as SQLite does (PostgreSQL: the "C" collation,
        whatever the database's locale)."""
        return column.collate("C") if self.engine.dialect.name == "postgresql" else column

    @contextmanager
    def _conn(self, conn: Connection | None) -> Iterator[Connection]:
        if conn is not None:
            yield conn
        else:
            with self.transaction() as c:
                yield c

    # --- upserts ---------------------------------------------------------------------------

    def _insert(self, table: sa.Table) -> Any:
        return (postgresql.insert if self.engine.dialect.name == "postgresql" else sqlite.insert)(
            table
        )

    def _upsert(
        self, conn: Connection, table: sa.Table, rows: list[dict], keys: Sequence[str]
    ) -> None:
        """Insert rows; on conflict update only if the incoming ``updated_at`` is newer or equal."""
        if not rows:
            return
        rows = text_safe_rows(self.engine.dialect.name, rows)
        stmt = self._insert(table)
        changed = {c.name: stmt.excluded[c.name] for c in table.columns if c.name not in keys}
        stmt = stmt.on_conflict_do_update(
            index_elements=list(keys),
            set_=changed,
            where=stmt.excluded.updated_at >= table.c.updated_at,
        )
        conn.execute(stmt, rows)

    def upsert_items(self, conn: Connection, repo_id: int, records: Iterable[ItemRecord]) -> int:
        rows = {}
        for rec in records:  # last one wins within a page, as the page is newest first
            row = asdict(rec)
            row["github_id"] = row.pop("id")
            rows.setdefault(rec.number, row | {"repo_id": repo_id})
        self._upsert(conn, t.items, list(rows.values()), ("repo_id", "number"))
        return len(rows)

    def upsert_comments(
        self, conn: Connection, repo_id: int, records: Iterable[CommentRecord]
    ) -> int:
        rows = {}
        for rec in records:
            rows.setdefault((rec.kind, rec.id), asdict(rec) | {"repo_id": repo_id})
        self._upsert(conn, t.comments, list(rows.values()), ("repo_id", "kind", "id"))
        return len(rows)

    # --- window queries --------------------------------------------------------------------

    def window_numbers(self, repo: str, start: datetime, end: datetime) -> dict[str, list[int]]:
        """Item numbers behind the five counts (DESIGN §4), ascending."""
        return {
            key: [it.number for it in items]
            for key, items in self.window_items(repo, start, end).items()
        }

    def window_items(
        self, repo: str, start: datetime, end: datetime
    ) -> dict[str, list[ItemRecord]]:
        """The items behind the five counts (DESIGN §4), each list ordered by number.

        Closures are counted as a run at ``end`` would have seen them: from the stored state
        events before ``end`` (an item closed in the window and reopened later still counts);
        an item without stored events falls back to its current ``state`` and ``closed_at``.
        """
        i = t.items.c
        where = count_conditions(start, end)
        repo_id = self.repo_id(repo, create=False)
        result: dict[str, list[ItemRecord]] = {}
        with self.engine.connect() as c:
            for key, cond in where.items():
                rows = c.execute(
                    sa.select(t.items).where(i.repo_id == repo_id, cond).order_by(i.number)
                )
                result[key] = [_item(r) for r in rows.mappings()]
        result |= self.closed_in(repo, start, end)
        return {key: result[key] for key in COUNT_KEYS}

    def closed_in(self, repo: str, start: datetime, end: datetime) -> dict[str, list[ItemRecord]]:
        """``closed_issues`` and ``closed_unmerged_prs`` of ``[start, end)``, as a run at ``end``
        would have counted them (see ``window_items``)."""
        with self.engine.connect() as c:
            rows = _closed_in(c, self.repo_id(repo, create=False), start, end, [t.items])
        closed = [_as_closed_at(_item(row._mapping), last) for row, last in rows]
        return _split_closed(closed, end)

    def closed_counts(self, repo: str, start: datetime, end: datetime) -> dict[str, int]:
        """How many items ``closed_in`` lists, reading only the columns that decide it."""
        i = t.items.c
        columns = [i.number, i.is_pr, i.state, i.merged_at]
        with self.engine.connect() as c:
            rows = _closed_in(c, self.repo_id(repo, create=False), start, end, columns)
        return {key: len(found) for key, found in _split_closed([r for r, _ in rows], end).items()}

    def items_updated(
        self, repo: str, start: datetime, end: datetime | None = None
    ) -> list[ItemRecord]:
        """Items whose ``updated_at`` is in ``[start, end)`` (touched in a window)."""
        i = t.items.c
        cond = [i.repo_id == self.repo_id(repo, create=False), i.updated_at >= start]
        if end is not None:
            cond.append(i.updated_at < end)
        with self.engine.connect() as c:
            return [
                _item(r)
                for r in c.execute(sa.select(t.items).where(*cond).order_by(i.number)).mappings()
            ]

    def items_by_number(self, repo: str, numbers: Iterable[int]) -> dict[int, ItemRecord]:
        wanted = sorted(set(numbers))
        i = t.items.c
        repo_id = self.repo_id(repo, create=False)
        out: dict[int, ItemRecord] = {}
        with self.engine.connect() as c:
            for chunk in _chunks(wanted, 500):
                rows = c.execute(
                    sa.select(t.items).where(i.repo_id == repo_id, i.number.in_(chunk))
                )
                out.update({r["number"]: _item(r) for r in rows.mappings()})
        return out

    def items_created(self, repo: str, start: datetime, end: datetime) -> list[ItemRecord]:
        i = t.items.c
        with self.engine.connect() as c:
            rows = c.execute(
                sa.select(t.items)
                .where(
                    i.repo_id == self.repo_id(repo, create=False),
                    i.created_at >= start,
                    i.created_at < end,
                )
                .order_by(i.number)
            )
            return [_item(r) for r in rows.mappings()]

    def comments_between(self, repo: str, start: datetime, end: datetime) -> list[CommentRecord]:
        """Comments, review comments and reviews created in ``[start, end)``, oldest first."""
        c_ = t.comments.c
        with self.engine.connect() as c:
            rows = c.execute(
                sa.select(t.comments)
                .where(
                    c_.repo_id == self.repo_id(repo, create=False),
                    c_.created_at >= start,
                    c_.created_at < end,
                )
                .order_by(c_.created_at, c_.id)
            )
            return [_comment(r) for r in rows.mappings()]

    def comments_for(
        self, repo: str, numbers: Iterable[int], until: datetime
    ) -> dict[int, list[CommentRecord]]:
        """Every stored comment on ``numbers`` created before ``until``, oldest first."""
        c_ = t.comments.c
        repo_id = self.repo_id(repo, create=False)
        out: dict[int, list[CommentRecord]] = {}
        with self.engine.connect() as c:
            for chunk in _chunks(sorted(set(numbers)), 500):
                rows = c.execute(
                    sa.select(t.comments)
                    .where(c_.repo_id == repo_id, c_.number.in_(chunk), c_.created_at < until)
                    # by item first: the per-item index serves it (ordering by time alone
                    # makes SQLite walk the whole history through the time index)
                    .order_by(c_.number, c_.created_at, c_.id)
                )
                for r in rows.mappings():
                    out.setdefault(r["number"], []).append(_comment(r))
        return out

    def authors_seen_before(self, repo: str, logins: Iterable[str], before: datetime) -> set[str]:
        """Which of ``logins`` opened an item or wrote a comment before ``before``."""
        wanted = sorted(set(logins))
        repo_id = self.repo_id(repo, create=False)
        seen: set[str] = set()
        with self.engine.connect() as c:
            for chunk in _chunks(wanted, 500):
                for table in (t.items, t.comments):
                    rows = c.execute(
                        sa.select(table.c.author)
                        .distinct()
                        .where(
                            table.c.repo_id == repo_id,
                            table.c.author.in_(chunk),
                            table.c.created_at < before,
                        )
                    )
                    seen.update(r.author for r in rows)
        return seen

    def earliest_activity(self, repo: str, listing: str = "%") -> datetime | None:
        """Where the stored history of ``repo`` begins.

        For a synced repo: the latest of the listings' coverage starts (``RESOURCE:from``, the
        oldest ``since`` a completed sync used; ``listing="issues"``: the items' own, which is
        all that trends need); old items updated later do not count. For a store filled
        without syncing (sample data, imports): the oldest created item.
        """
        repo_id = self.repo_id(repo, create=False)
        s = t.sync_state.c
        with self.engine.connect() as c:
            covered = c.execute(
                sa.select(sa.func.max(s.watermark)).where(
                    s.repo_id == repo_id,
                    s.resource.like(f"{listing}:from"),
                    # the state history: a store upgraded to it starts it later than its items
                    s.resource != "issue_events:from",
                )
            ).scalar_one_or_none()
            if covered is not None:
                return covered
            return c.execute(
                sa.select(sa.func.min(t.items.c.created_at)).where(t.items.c.repo_id == repo_id)
            ).scalar_one_or_none()

    # --- reports ---------------------------------------------------------------------------

    def save_report(self, report: DailyReport) -> None:
        window = report.window
        keys = {"window_start": window.start, "window_end": window.end, "lang": report.lang}
        values = {
            "tz": window.tz,
            "local_date": report.date,
            "writer": report.provenance.writer,
            "report": report.model_dump_json(),
            "created_at": datetime.now(UTC),
        }
        self.upsert_for_repo(t.reports, report.repo, keys, values)

    def upsert_for_repo(self, table: sa.Table, repo: str, keys: dict, values: dict) -> None:
        """Insert a row of ``repo`` into ``table``, or replace ``values`` in the row that has
        the same ``keys`` (which, with ``repo_id``, are the table's unique key)."""
        with self.transaction() as c:
            row = {"repo_id": self.repo_id(repo, c)} | keys
            stmt = self._insert(table).values(**row, **values)
            c.execute(stmt.on_conflict_do_update(index_elements=list(row), set_=values))

    def reports(self, repo: str | None = None) -> list[DailyReport]:
        """Stored reports (all repos, or one), oldest first."""
        return [DailyReport.model_validate_json(text) for text in self.report_json(repo)]

    def report_json(self, repo: str | None = None) -> list[str]:
        """The stored reports as JSON text, unparsed (same order as ``reports``)."""
        r = t.reports.c
        order = (self._bytewise(t.repos.c.full_name), r.window_start, self._bytewise(r.lang))
        query = sa.select(r.report).join(t.repos).order_by(*order)
        if repo:
            query = query.where(t.repos.c.full_name == repo.lower())
        with self.engine.connect() as c:
            return [row.report for row in c.execute(query)]

    def reports_version(self) -> tuple[int, str | None]:
        """A cheap fingerprint of the stored reports: (count, newest save time)."""
        query = sa.select(sa.func.count(), sa.func.max(t.reports.c.created_at))
        with self.engine.connect() as c:
            count, newest = c.execute(query).one()
        return count, None if newest is None else str(newest)

    # --- LLM cache -------------------------------------------------------------------------

    def llm_cached(self, key: str) -> dict | None:
        with self.engine.connect() as c:
            row = (
                c.execute(sa.select(t.llm_cache).where(t.llm_cache.c.key == key)).mappings().first()
            )
        return dict(row) if row else None

    def save_llm(
        self, key: str, model: str, response: Any, prompt_tokens: int, completion_tokens: int
    ) -> None:
        values = {
            "model": model,
            "response": json.dumps(response, ensure_ascii=False),
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "created_at": datetime.now(UTC),
        }
        with self.transaction() as c:
            stmt = self._insert(t.llm_cache).values(key=key, **values)
            c.execute(stmt.on_conflict_do_update(index_elements=["key"], set_=values))

    def llm_capability(self, base_url: str, model: str) -> dict | None:
        """The stored probe result for (endpoint, model): mode, reason, probed_at."""
        c_ = t.llm_capabilities.c
        query = sa.select(c_.mode, c_.reason, c_.probed_at).where(
            c_.base_url == base_url, c_.model == model
        )
        with self.engine.connect() as c:
            row = c.execute(query).mappings().first()
        return dict(row) if row else None

    def save_llm_capability(self, base_url: str, model: str, mode: str, reason: str) -> None:
        values = {"mode": mode, "reason": reason, "probed_at": datetime.now(UTC)}
        with self.transaction() as c:
            stmt = self._insert(t.llm_capabilities).values(base_url=base_url, model=model, **values)
            c.execute(stmt.on_conflict_do_update(index_elements=["base_url", "model"], set_=values))


def count_conditions(start: datetime, end: datetime) -> dict[str, sa.ColumnElement[bool]]:
    """The SQL condition behind the three counts read straight off an item (DESIGN §4); the two
    closing counts need the state history (``Store.closed_in``)."""
    i = t.items.c
    in_window = lambda col: sa.and_(col >= start, col < end)  # noqa: E731
    return {
        "new_issues": sa.and_(~i.is_pr, in_window(i.created_at)),
        "new_prs": sa.and_(i.is_pr, in_window(i.created_at)),
        "merged_prs": sa.and_(i.is_pr, in_window(i.merged_at)),
    }


def _chunks(values: list, size: int) -> Iterator[list]:
    for k in range(0, len(values), size):
        yield values[k : k + size]


def _locked_or_failed(exc: Exception) -> str:
    first = str(exc).splitlines()[0]
    if "database is locked" in first:
        return (
            "database write failed: the database is locked by another process (a concurrent "
            "sync?); rerun when it has finished"
        )
    return f"database write failed: {first}"


def _split_closed(closed: list, end: datetime) -> dict[str, list]:
    """Closed items (or rows with ``is_pr`` and ``merged_at``) by count: issues, and PRs that
    were not merged by ``end``."""
    return {
        "closed_issues": [it for it in closed if not it.is_pr],
        "closed_unmerged_prs": [
            it for it in closed if it.is_pr and (it.merged_at is None or it.merged_at >= end)
        ],
    }


def _closed_in(
    c: Connection, repo_id: int, start: datetime, end: datetime, columns: list
) -> list[tuple[Any, ItemEvent | None]]:
    """Items whose latest closing before ``end`` lies in ``[start, end)`` and that were still
    closed at ``end``, by number: (the row of ``columns``, its latest state event or None)."""
    i, e = t.items.c, t.item_events.c
    closing = sa.select(e.number).where(
        e.repo_id == repo_id,
        e.event.in_(("closed", "merged")),
        e.created_at >= start,
        e.created_at < end,
    )
    now_closed = sa.and_(i.state == "closed", i.closed_at >= start, i.closed_at < end)
    found: dict[int, Any] = {}
    for cond in (now_closed, i.number.in_(closing)):  # apart, each query uses its index
        rows = c.execute(sa.select(*columns).where(i.repo_id == repo_id, cond))
        found.update((r.number, r) for r in rows)
    last: dict[int, ItemEvent] = {}
    for chunk in _chunks(sorted(found), 500):
        rows = c.execute(
            sa.select(e.id, e.number, e.event, e.created_at)
            .where(e.repo_id == repo_id, e.number.in_(chunk), e.created_at < end)
            # by item first: the planner then reads each item's events from its own index
            # instead of every event before ``end`` (a scan that grew with the history)
            .order_by(e.number, e.created_at, e.id)
        )
        last.update((r.number, ItemEvent(r.id, r.number, r.event, r.created_at)) for r in rows)
    return [
        (found[n], last.get(n))
        for n in sorted(found)
        if _closed_at_end(found[n].state, last.get(n), start)
    ]


def _as_closed_at(item: ItemRecord, last: ItemEvent | None) -> ItemRecord:
    """``item`` as it stood at the window's end: closed at its latest closing event (its stored
    ``closed_at`` may be a later closing, or gone after a reopening)."""
    if last is None:
        return item
    return replace(item, state="closed", closed_at=last.created_at)


def _closed_at_end(state: str, last: ItemEvent | None, start: datetime) -> bool:
    """Closed in the window and still closed at its end, by the last state event before the end
    (or, with no stored event, by the item's current ``state``)."""
    if last is None:
        return state == "closed"  # the query already put closed_at in the window
    return last.event in ("closed", "merged") and last.created_at >= start


def _item(row: Any) -> ItemRecord:
    data = {name: row[name] for name in _ITEM_FIELDS if name != "id"}
    return ItemRecord(id=row["github_id"], **data)


def _comment(row: Any) -> CommentRecord:
    return CommentRecord(**{name: row[name] for name in _COMMENT_FIELDS})
