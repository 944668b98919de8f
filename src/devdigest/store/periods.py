"""Stored period (week, month) reports, so the site and ``devdigest run`` can find them.

Days stay in ``reports``; one row here per (project, kind, window, language), replaced when the
same period is written again.
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa

from devdigest.period_models import PeriodReport
from devdigest.store import schema as t
from devdigest.store.queries import Store


def save_period_report(store: Store, report: PeriodReport) -> None:
    window = report.window
    keys = {
        "kind": report.kind,
        "window_start": window.start,
        "window_end": window.end,
        "lang": report.lang,
    }
    values = {
        "period": report.period,
        "tz": window.tz,
        "report": report.model_dump_json(),
        "created_at": datetime.now(UTC),
    }
    store.upsert_for_repo(t.period_reports, report.repo, keys, values)


def period_reports(
    store: Store, repo: str | None = None, kind: str | None = None
) -> list[PeriodReport]:
    """Stored period reports (all repos or one; all kinds or one), oldest window first."""
    texts = period_report_json(store, repo, kind)
    return [PeriodReport.model_validate_json(text) for text in texts]


def period_report_json(store: Store, repo: str | None = None, kind: str | None = None) -> list[str]:
    """The stored period reports as JSON text, unparsed (same order as ``period_reports``)."""
    p = t.period_reports.c
    order = (store._bytewise(t.repos.c.full_name), p.window_start, p.kind, store._bytewise(p.lang))
    query = sa.select(p.report).join(t.repos).order_by(*order)
    if repo:
        query = query.where(t.repos.c.full_name == repo.lower())
    if kind:
        query = query.where(p.kind == kind)
    with store.engine.connect() as conn:
        return [row.report for row in conn.execute(query)]


def stored_period_windows(store: Store, repo: str, kind: str, lang: str) -> set[tuple]:
    """(window_start, window_end) of every stored ``kind`` report of ``repo`` in ``lang``."""
    p = t.period_reports.c
    query = (
        sa.select(p.window_start, p.window_end)
        .join(t.repos)
        .where(t.repos.c.full_name == repo.lower(), p.kind == kind, p.lang == lang)
    )
    with store.engine.connect() as conn:
        return {(row.window_start, row.window_end) for row in conn.execute(query)}


def period_reports_version(store: Store) -> tuple[int, str | None]:
    """A cheap fingerprint of the stored period reports: (count, newest save time)."""
    query = sa.select(sa.func.count(), sa.func.max(t.period_reports.c.created_at))
    with store.engine.connect() as conn:
        count, newest = conn.execute(query).one()
    return count, None if newest is None else str(newest)
