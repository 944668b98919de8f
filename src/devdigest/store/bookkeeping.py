"""Sync bookkeeping of the store: watermarks, HTTP validators, runs, review queue, state events.

A mixin of ``Store`` (``devdigest.store.queries``), kept apart so each module stays small.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from devdigest.models import ItemEvent, SyncStats
from devdigest.store import schema as t

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from sqlalchemy.engine import Engine


def chunks(values: list, size: int = 500) -> Iterable[list]:
    for k in range(0, len(values), size):
        yield values[k : k + size]


class SyncBookkeeping:
    """What sync writes besides the records themselves."""

    engine: Engine

    if TYPE_CHECKING:  # provided by Store, which mixes this class in

        def _insert(self, table: sa.Table) -> Any: ...

        def transaction(self) -> AbstractContextManager[Connection]: ...

        def repo_id(
            self, full_name: str, conn: Connection | None = None, create: bool = True
        ) -> int: ...

    def watermark(self, repo_id: int, resource: str) -> datetime | None:
        with self.engine.connect() as c:
            return c.execute(
                sa.select(t.sync_state.c.watermark).where(
                    t.sync_state.c.repo_id == repo_id, t.sync_state.c.resource == resource
                )
            ).scalar_one_or_none()

    def set_watermark(self, conn: Connection, repo_id: int, resource: str, value: datetime) -> None:
        stmt = self._insert(t.sync_state).values(
            repo_id=repo_id, resource=resource, watermark=value
        )
        conn.execute(
            stmt.on_conflict_do_update(
                index_elements=["repo_id", "resource"], set_={"watermark": value}
            )
        )

    def item_updated_times(self, repo_id: int, numbers: Iterable[int]) -> dict[int, datetime]:
        """Stored ``updated_at`` of these item numbers (absent: not stored yet)."""
        i = t.items.c
        out: dict[int, datetime] = {}
        with self.engine.connect() as c:
            for chunk in chunks(sorted(set(numbers))):
                rows = c.execute(
                    sa.select(i.number, i.updated_at).where(
                        i.repo_id == repo_id, i.number.in_(chunk)
                    )
                )
                out.update({r.number: r.updated_at for r in rows})
        return out

    def http_validators(self, url: str, token_fp: str) -> tuple[str | None, str | None]:
        with self.engine.connect() as c:
            row = c.execute(
                sa.select(t.http_cache.c.etag, t.http_cache.c.last_modified).where(
                    t.http_cache.c.url == url, t.http_cache.c.token_fp == token_fp
                )
            ).first()
        return (row.etag, row.last_modified) if row else (None, None)

    def save_http_validators(
        self, conn: Connection, url: str, token_fp: str, etag: str | None, last_modified: str | None
    ) -> None:
        values = {"etag": etag, "last_modified": last_modified}
        stmt = self._insert(t.http_cache).values(url=url, token_fp=token_fp, **values)
        conn.execute(stmt.on_conflict_do_update(index_elements=["url", "token_fp"], set_=values))

    def record_sync_run(self, repo_id: int, stats: SyncStats, status: str) -> None:
        with self.transaction() as c:
            c.execute(
                t.sync_runs.insert().values(
                    repo_id=repo_id,
                    started_at=stats.started_at or datetime.now(UTC),
                    finished_at=stats.finished_at,
                    status=status,
                    requests=stats.requests,
                    not_modified=stats.not_modified,
                    retried=stats.retried,
                    slept_seconds=stats.slept_seconds,
                    items=stats.items,
                    comments=stats.comments,
                )
            )

    def last_sync(self, repo: str) -> dict | None:
        """The newest finished sync run of ``repo`` (``None`` if never synced)."""
        with self.engine.connect() as c:
            row = (
                c.execute(
                    sa.select(t.sync_runs)
                    .join(t.repos)
                    .where(t.repos.c.full_name == repo.lower())
                    .order_by(t.sync_runs.c.id.desc())
                    .limit(1)
                )
                .mappings()
                .first()
            )
        return dict(row) if row else None

    # --- PRs whose reviews are still to be read --------------------------------------------

    def queue_reviews(self, conn: Connection, repo_id: int, numbers: Iterable[int]) -> None:
        rows = [{"repo_id": repo_id, "number": n} for n in sorted(set(numbers))]
        if rows:
            conn.execute(self._insert(t.pending_reviews).on_conflict_do_nothing(), rows)

    def pending_reviews(self, repo_id: int) -> list[int]:
        p = t.pending_reviews.c
        query = sa.select(p.number).where(p.repo_id == repo_id).order_by(p.number)
        with self.engine.connect() as c:
            return [row.number for row in c.execute(query)]

    def reviews_done(self, conn: Connection, repo_id: int, numbers: Iterable[int]) -> None:
        p = t.pending_reviews.c
        for chunk in chunks(sorted(set(numbers))):
            conn.execute(
                t.pending_reviews.delete().where(p.repo_id == repo_id, p.number.in_(chunk))
            )

    # --- state history ---------------------------------------------------------------------

    def upsert_item_events(
        self, conn: Connection, repo_id: int, events: Iterable[ItemEvent]
    ) -> int:
        """Store state events (immutable: a known id is left as it is)."""
        rows = {e.id: asdict(e) | {"repo_id": repo_id} for e in events}
        if rows:
            stmt = self._insert(t.item_events).on_conflict_do_nothing()
            conn.execute(stmt, list(rows.values()))
        return len(rows)

    def item_state_changes(
        self, repo: str, start: datetime, end: datetime, numbers: Iterable[int] | None = None
    ) -> list[ItemEvent]:
        """Closed, reopened and merged events in ``[start, end)``, oldest first (of ``numbers``
        only, when given)."""
        e = t.item_events.c
        cond = [
            e.repo_id == self.repo_id(repo, create=False),
            e.created_at >= start,
            e.created_at < end,
        ]
        wanted = None if numbers is None else sorted(set(numbers))
        out: list[ItemEvent] = []
        with self.engine.connect() as c:
            for chunk in [None] if wanted is None else chunks(wanted):
                where = cond if chunk is None else [*cond, e.number.in_(chunk)]
                rows = c.execute(sa.select(e.id, e.number, e.event, e.created_at).where(*where))
                out.extend(ItemEvent(r.id, r.number, r.event, r.created_at) for r in rows)
        return sorted(out, key=lambda ev: (ev.created_at, ev.id))
