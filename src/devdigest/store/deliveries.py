"""The delivery ledger: which message went to which target, so each is sent at most once.

A delivery is claimed (``sending``) in its own transaction before the message leaves; only the
process whose insert (or failed → sending update) succeeds sends it, so two overlapping runs
never both send. It then ends ``sent`` or ``failed``; ``failed`` ones are claimed again by the
next run. A claim left ``sending`` by a crash is not retried: the message may have gone out.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa

from devdigest.store import schema as t
from devdigest.store.queries import Store


@dataclass(frozen=True, slots=True)
class DeliveryKey:
    repo: str
    kind: str  # daily, weekly, monthly
    window_start: datetime
    window_end: datetime
    lang: str
    target: str


@dataclass(frozen=True, slots=True)
class DeliveryRow:
    key: DeliveryKey
    status: str
    attempts: int
    digest: str
    error: str | None


class DeliveryLedger:
    def __init__(self, store: Store) -> None:
        self.store = store

    def _where(self, key: DeliveryKey, repo_id: int) -> sa.ColumnElement[bool]:
        d = t.deliveries.c
        return sa.and_(
            d.repo_id == repo_id,
            d.kind == key.kind,
            d.window_start == key.window_start,
            d.window_end == key.window_end,
            d.lang == key.lang,
            d.target == key.target,
        )

    def claim(self, key: DeliveryKey, digest: str) -> bool:
        """Reserve a first delivery; False if this key was ever claimed before."""
        row = {
            "kind": key.kind,
            "window_start": key.window_start,
            "window_end": key.window_end,
            "lang": key.lang,
            "target": key.target,
            "status": "sending",
            "attempts": 1,
            "digest": digest,
            "updated_at": datetime.now(UTC),
        }
        try:
            with self.store.engine.begin() as conn:
                repo_id = self.store.repo_id(key.repo, conn)
                conn.execute(t.deliveries.insert().values(repo_id=repo_id, **row))
        except sa.exc.IntegrityError:
            return False
        return True

    def reclaim_failed(self, key: DeliveryKey) -> bool:
        """Take a failed delivery for another attempt; False if another run took it first."""
        with self.store.transaction() as conn:
            repo_id = self.store.repo_id(key.repo, conn)
            result = conn.execute(
                t.deliveries.update()
                .where(self._where(key, repo_id), t.deliveries.c.status == "failed")
                .values(
                    status="sending",
                    attempts=t.deliveries.c.attempts + 1,
                    updated_at=datetime.now(UTC),
                )
            )
        return result.rowcount == 1

    def finish(self, key: DeliveryKey, error: str | None) -> None:
        """Mark a claimed delivery ``sent`` (no error) or ``failed``."""
        with self.store.transaction() as conn:
            repo_id = self.store.repo_id(key.repo, conn)
            conn.execute(
                t.deliveries.update()
                .where(self._where(key, repo_id))
                .values(
                    status="failed" if error else "sent",
                    error=error,
                    updated_at=datetime.now(UTC),
                )
            )

    def rows(self, repo: str, status: str | None = None) -> list[DeliveryRow]:
        """The deliveries of ``repo`` (optionally of one status), oldest window first."""
        d = t.deliveries.c
        query = (
            sa.select(t.deliveries, t.repos.c.full_name)
            .join(t.repos)
            .where(t.repos.c.full_name == repo.lower())
            .order_by(d.window_start, d.kind, d.lang, d.target)
        )
        if status:
            query = query.where(d.status == status)
        with self.store.engine.connect() as conn:
            return [_row(r) for r in conn.execute(query)]


def _row(r: sa.Row) -> DeliveryRow:
    key = DeliveryKey(r.full_name, r.kind, r.window_start, r.window_end, r.lang, r.target)
    return DeliveryRow(key, r.status, r.attempts, r.digest, r.error)
