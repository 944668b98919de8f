"""Weeks and months in ``devdigest run``: which completed periods lack a stored report, and
writing them.

A project whose schedule lists ``periods = ["week", "month"]`` gets, on the first run after a
week (ISO, in its tz) or month ends, that period's report in each of its languages. Like the
days, a missed period is caught up (every period after the last stored one, at most
``CATCH_UP`` of each kind), and a first run writes only the latest completed one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from devdigest.config import Config
from devdigest.period_models import PeriodReport
from devdigest.report import generate_period_reports, write_period_files
from devdigest.store import Store
from devdigest.store.periods import stored_period_windows
from devdigest.window import Window, completed_period, previous_period

PERIOD_KINDS = ("week", "month")
CATCH_UP = 12  # periods of one kind written by one run at most (a long outage)


@dataclass(frozen=True)
class DuePeriod:
    kind: str  # week | month
    window: Window
    langs: tuple[str, ...]  # the languages it lacks


def plan_due_periods(
    store: Store, repo: str, kinds: list[str], tz: str, langs: list[str], now: datetime
) -> list[DuePeriod]:
    """The completed periods of ``repo`` that lack a report in one of ``langs``, oldest first."""
    due: list[DuePeriod] = []
    for kind in kinds:
        done = {lang: stored_period_windows(store, repo, kind, lang) for lang in langs}
        latest = max((end for windows in done.values() for _, end in windows), default=None)
        window = completed_period(kind, now, tz)
        found: list[DuePeriod] = []
        for _ in range(CATCH_UP):
            missing = tuple(lang for lang in langs if (window.start, window.end) not in done[lang])
            if missing:
                found.append(DuePeriod(kind, window, missing))
            if latest is None or window.start <= latest:
                break
            window = previous_period(window)
        due += reversed(found)
    return sorted(due, key=lambda d: (d.window.end, PERIOD_KINDS.index(d.kind)))


def write_due_period(
    config: Config, store: Store, repo: str, due: DuePeriod, *, now: datetime
) -> list[PeriodReport]:
    """Write (from the store, no sync), store and file the reports of one due period."""
    run = generate_period_reports(
        config, store, repo, due.window, list(due.langs), no_sync=True, now=now
    )
    for report in run.reports:
        write_period_files(report, config.out)
    return run.reports
