"""Reads for memory across days: light per-thread activity rows and count-only window queries.

Per-thread, per-day activity is derived from the ``comments`` and ``items`` tables (no table of
its own): the rows are small (number, kind, author, time) and bounded by the time range asked.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import NamedTuple

import sqlalchemy as sa

from devdigest.models import COUNT_KEYS, is_bot_login
from devdigest.store import schema as t
from devdigest.store.queries import Store, _chunks, count_conditions

MAINTAINER_ASSOCIATIONS = ("OWNER", "MEMBER", "COLLABORATOR")


class ActivityRow(NamedTuple):
    """One comment, review comment or review, reduced to what continuity needs."""

    number: int
    kind: str
    author: str
    is_bot: bool
    maintainer: bool
    at: datetime


def activity_rows(
    store: Store, repo: str, start: datetime, end: datetime, numbers: Iterable[int] | None = None
) -> list[ActivityRow]:
    """Activity rows created in ``[start, end)`` (of ``numbers`` only, when given), oldest first."""
    c_ = t.comments.c
    columns = (c_.number, c_.kind, c_.author, c_.author_type, c_.author_association, c_.created_at)
    cond = [c_.repo_id == store.repo_id(repo, create=False), c_.created_at >= start]
    cond.append(c_.created_at < end)
    chunks = [None] if numbers is None else list(_chunks(sorted(set(numbers)), 500))
    rows: list[ActivityRow] = []
    with store.engine.connect() as c:
        for chunk in chunks:
            where = cond if chunk is None else [*cond, c_.number.in_(chunk)]
            for r in c.execute(sa.select(*columns).where(*where)):
                rows.append(
                    ActivityRow(
                        r.number,
                        r.kind,
                        r.author,
                        is_bot_login(r.author, r.author_type),
                        r.author_association in MAINTAINER_ASSOCIATIONS,
                        r.created_at,
                    )
                )
    rows.sort(key=lambda r: (r.at, r.number))
    return rows


def last_activity_before(
    store: Store, repo: str, numbers: Iterable[int], before: datetime
) -> dict[int, datetime]:
    """The newest stored comment or review before ``before``, per item number."""
    c_ = t.comments.c
    repo_id = store.repo_id(repo, create=False)
    out: dict[int, datetime] = {}
    with store.engine.connect() as c:
        for chunk in _chunks(sorted(set(numbers)), 500):
            query = (
                sa.select(c_.number, sa.func.max(c_.created_at).label("last"))
                .where(c_.repo_id == repo_id, c_.number.in_(chunk), c_.created_at < before)
                .group_by(c_.number)
            )
            out.update({r.number: r.last for r in c.execute(query)})
    return out


def window_counts(store: Store, repo: str, start: datetime, end: datetime) -> dict[str, int]:
    """The five counts of ``[start, end)``: ``COUNT(*)`` where a condition on the item decides,
    the state history for closings (the same rules as ``Store.window_items``)."""
    i = t.items.c
    where = count_conditions(start, end)
    repo_id = store.repo_id(repo, create=False)
    with store.engine.connect() as c:
        counts = {
            key: c.execute(
                sa.select(sa.func.count()).where(i.repo_id == repo_id, cond)
            ).scalar_one()
            for key, cond in where.items()
        }
    counts |= store.closed_counts(repo, start, end)
    return {key: counts[key] for key in COUNT_KEYS}
