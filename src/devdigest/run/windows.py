"""Which report windows a schedule makes due: pure functions, no store, no clock.

A *window kind* turns a schedule into a sequence of windows. Each kind knows the latest window
end at or before a moment, and the window that ends at a given end; the planner walks back from
``now`` with these two. ``day`` (the default) is the calendar day from cutoff to cutoff in the
project's time zone (23 or 25 hours across a DST change); ``24h`` is the rolling 24 hours ending
at the same local cutoff. A weekly or monthly kind is one more entry in ``WINDOW_KINDS``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING, Protocol

from devdigest.window import Window, resolve_tz

if TYPE_CHECKING:
    from devdigest.config import Config

WindowKey = tuple[datetime, datetime]  # (start, end) in UTC, as stored with each report


class WindowKind(Protocol):
    """A family of consecutive windows ending at local ``cutoff`` times."""

    def last_end(self, moment: datetime, tz: str, cutoff: time) -> datetime:
        """The latest window end at or before ``moment``."""
        ...

    def window_ending(self, end: datetime, tz: str, cutoff: time) -> Window:
        """The window that ends at ``end`` (a value ``last_end`` returned)."""
        ...


def _local_cutoff(day: date, tz: str, cutoff: time) -> datetime:
    return datetime.combine(day, cutoff, tzinfo=resolve_tz(tz)).astimezone(UTC)


def _daily_last_end(moment: datetime, tz: str, cutoff: time) -> datetime:
    local_day = moment.astimezone(resolve_tz(tz)).date()
    end = _local_cutoff(local_day, tz, cutoff)
    return end if end <= moment else _local_cutoff(local_day - timedelta(days=1), tz, cutoff)


class CalendarDay:
    """From one day's cutoff to the next day's, in local time."""

    last_end = staticmethod(_daily_last_end)

    @staticmethod
    def window_ending(end: datetime, tz: str, cutoff: time) -> Window:
        local_day = end.astimezone(resolve_tz(tz)).date()
        return Window(_local_cutoff(local_day - timedelta(days=1), tz, cutoff), end, tz)


class Rolling24h:
    """Exactly 24 hours ending at each day's local cutoff."""

    last_end = staticmethod(_daily_last_end)

    @staticmethod
    def window_ending(end: datetime, tz: str, cutoff: time) -> Window:
        return Window(end - timedelta(hours=24), end, tz)


WINDOW_KINDS: dict[str, WindowKind] = {"day": CalendarDay(), "24h": Rolling24h()}


@dataclass(frozen=True)
class DueWindow:
    """A window to write, and the languages it still lacks."""

    window: Window
    langs: tuple[str, ...]

    @property
    def key(self) -> WindowKey:
        return (self.window.start, self.window.end)


def parse_cutoff(text: str) -> time:
    hours, minutes = text.split(":")
    return time(int(hours), int(minutes))


def windows_between(
    kind: str, tz: str, cutoff: str, after: datetime, until: datetime
) -> list[Window]:
    """Every window of ``kind`` whose end is in ``(after, until]``, oldest first."""
    family, at = WINDOW_KINDS[kind], parse_cutoff(cutoff)
    found = []
    end = family.last_end(until, tz, at)
    while end > after:
        window = family.window_ending(end, tz, at)
        found.append(window)
        end = family.last_end(end - timedelta(microseconds=1), tz, at)
    return found[::-1]


def plan_due_windows(
    kind: str,
    tz: str,
    cutoff: str,
    langs: list[str],
    now: datetime,
    stored: Mapping[WindowKey, set[str]],
    *,
    since: datetime | None = None,
) -> list[DueWindow]:
    """The windows due at ``now`` that lack a report in one of ``langs``, oldest first.

    ``stored`` maps the (start, end) of every stored report to its languages. Windows after
    the last complete one (all ``langs`` stored) are due, so a missed day is produced late.
    With nothing complete yet, only the latest due window is, unless ``since`` asks for every
    window ending after it (the first run of a new project, or a backfill).
    """
    family, at = WINDOW_KINDS[kind], parse_cutoff(cutoff)
    complete = [
        end
        for (start, end), have in stored.items()
        if end <= now
        and set(langs) <= have
        and family.window_ending(end, tz, at).start == start
        and family.last_end(end, tz, at) == end
    ]
    if since is not None:
        after = since
    elif complete:
        after = max(complete)
    else:
        latest = family.last_end(now, tz, at)
        after = latest - timedelta(microseconds=1)
    due = []
    for window in windows_between(kind, tz, cutoff, after, now):
        missing = tuple(lang for lang in langs if lang not in stored.get(_key(window), set()))
        if missing:
            due.append(DueWindow(window, missing))
    return due


def _key(window: Window) -> WindowKey:
    return (window.start, window.end)


def standard_date(config: Config, repo: str, window: Window) -> date | None:
    """The local date that names ``window`` when it is one of the project's own daily windows
    (its schedule's, or the calendar day in its zone), else None: such reports are named by
    window so that two different windows never share a name."""
    project = config.project(repo)
    schedule = config.schedule_for(project)
    family, at = WINDOW_KINDS[schedule.window], parse_cutoff(schedule.cutoff)
    scheduled = family.window_ending(window.end, project.tz, at)
    if (
        family.last_end(window.end, project.tz, at) == window.end
        and scheduled.start == window.start
    ):
        return window.start.astimezone(resolve_tz(project.tz)).date()
    return window.calendar_day(project.tz)
