"""Memory across days: per-thread, per-day activity and the continuity markers built on it.

Each marker carries its evidence (dates and counts) and never claims more than the stored
history covers: a streak that reaches the start of the stored history says "at least".
"Reopened" needs a stored state history, which the store does not keep yet, so it is not
a marker here.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from devdigest.analysis.facts import compute_item_facts
from devdigest.analysis.watch import is_bug_like
from devdigest.models import ItemRecord
from devdigest.store.activity import ActivityRow
from devdigest.window import Window

DAY = timedelta(days=1)
HOT_MIN_EVENTS = 3  # human comments and reviews on one day ...
HOT_MIN_PEOPLE = 2  # ... by at least this many humans: the thread is hot that day
HOT_RUN_MIN = 3  # a streak worth a marker
LOOKBACK_DAYS = 14  # how far back streaks and quiet spells are looked for
QUIET_DAYS = 14  # no activity for this long before the window: "returning"
STALE_DAYS = 7  # an open bug with no maintainer reply for this long
LONG_OPEN_ISSUE_DAYS = 90
LONG_OPEN_PR_DAYS = 60
_REVERT = re.compile(r"^\s*Revert\b", re.I)
_REVERTED_REF = re.compile(r"(?:\(#|reverts?\s+(?:[\w.-]+/[\w.-]+)?#|\bcommit\b.*?\(#)(\d+)", re.I)


@dataclass
class DayActivity:
    """One thread on one day: human comments and reviews, who wrote, what happened to it."""

    comments: int = 0
    reviews: int = 0
    participants: set[str] = field(default_factory=set)
    events: list[str] = field(default_factory=list)  # opened, closed, merged

    @property
    def hot(self) -> bool:
        busy = self.comments + self.reviews >= HOT_MIN_EVENTS
        return busy and len(self.participants) >= HOT_MIN_PEOPLE


@dataclass
class Marker:
    """A continuity marker on one item: ``kind`` and the facts that support it."""

    kind: str  # hot_run, returning, first_seen, stale, long_closed, long_merged, reverted
    number: int
    facts: dict[str, Any]


def compute_thread_days(
    rows: Iterable[ActivityRow],
    items: Mapping[int, ItemRecord],
    days: list[Window],
) -> dict[int, dict[date, DayActivity]]:
    """Item number → local day → its activity; ``days`` tile the range looked at, in order."""
    out: dict[int, dict[date, DayActivity]] = {}
    starts = [day.start for day in days]
    names = [day.local_date for day in days]

    def slot(number: int, moment: datetime) -> DayActivity | None:
        k = bisect_right(starts, moment) - 1  # the days are contiguous and in order
        if k < 0 or not days[k].contains(moment):
            return None
        return out.setdefault(number, {}).setdefault(names[k], DayActivity())

    for row in rows:
        if row.is_bot or (activity := slot(row.number, row.at)) is None:
            continue
        if row.kind == "review":
            activity.reviews += 1
        else:
            activity.comments += 1
        activity.participants.add(row.author)
    for item in items.values():
        for event, moment in (
            ("opened", item.created_at),
            ("merged", item.merged_at),
            ("closed", item.closed_at if item.merged_at is None else None),
        ):
            if moment is not None and (activity := slot(item.number, moment)) is not None:
                activity.events.append(event)
    return out


def hot_days(thread_days: Mapping[int, Mapping[date, DayActivity]]) -> dict[int, list[date]]:
    """Item number → the days it was hot, oldest first (only threads hot at least once)."""
    out = {}
    for number, days in thread_days.items():
        hot = sorted(day for day, activity in days.items() if activity.hot)
        if hot:
            out[number] = hot
    return out


def hot_run_markers(
    thread_days: Mapping[int, Mapping[date, DayActivity]],
    days: list[Window],
    earliest: datetime | None,
) -> list[Marker]:
    """Threads hot on the last day of ``days`` and on the days just before it."""
    covered = [d for d in days if earliest is not None and d.start >= earliest]
    markers = []
    for number, per_day in thread_days.items():
        run = []
        for day in reversed(covered):
            activity = per_day.get(day.local_date)
            if activity is None or not activity.hot:
                break
            run.append((day.local_date, activity))
        if len(run) < HOT_RUN_MIN:
            continue
        run.reverse()
        at_least = len(run) == len(covered)  # the streak may go on before what was looked at
        facts = {
            "days": len(run),
            "at_least": at_least,
            "since": run[0][0],
            "comments": sum(a.comments + a.reviews for _, a in run),
            "per_day": [(d, a.comments + a.reviews, len(a.participants)) for d, a in run],
        }
        markers.append(Marker("hot_run", number, facts))
    return sorted(markers, key=lambda m: (-m.facts["days"], -m.number))


def returning_markers(
    active: Mapping[int, DayActivity],
    quiet_since: Mapping[int, datetime],
    window: Window,
) -> list[Marker]:
    """Threads active in ``window`` whose previous stored activity is ``QUIET_DAYS`` or more
    before it (``quiet_since``: the last activity before the window, per number)."""
    markers = []
    for number, activity in active.items():
        last = quiet_since.get(number)
        if last is None or window.start - last < QUIET_DAYS * DAY:
            continue
        facts = {
            "last": last.astimezone(window.zone).date(),
            "quiet_days": (window.start - last) // DAY,
            "comments": activity.comments + activity.reviews,
            "participants": len(activity.participants),
        }
        markers.append(Marker("returning", number, facts))
    return sorted(markers, key=lambda m: -m.number)


def first_seen_markers(
    items: Iterable[ItemRecord], seen_before: set[str] | None, window: Window
) -> list[Marker]:
    """The first item of an author with no stored activity before the window."""
    if seen_before is None:
        return []
    firsts: dict[str, ItemRecord] = {}
    for item in sorted(items, key=lambda i: i.created_at):
        new = window.contains(item.created_at) and not item.is_bot and item.author != "ghost"
        if new and item.author not in seen_before:
            firsts.setdefault(item.author, item)
    return [Marker("first_seen", i.number, {"author": i.author}) for i in firsts.values()]


def long_standing_markers(
    closed_issues: Iterable[ItemRecord], merged_prs: Iterable[ItemRecord], tz: Any
) -> list[Marker]:
    """Issues closed after ``LONG_OPEN_ISSUE_DAYS`` or more open; PRs merged after
    ``LONG_OPEN_PR_DAYS`` or more."""
    markers = []
    for kind, items, limit in (
        ("long_closed", closed_issues, LONG_OPEN_ISSUE_DAYS),
        ("long_merged", merged_prs, LONG_OPEN_PR_DAYS),
    ):
        for item in items:
            ended = item.merged_at or item.closed_at
            if ended is None or ended - item.created_at < limit * DAY:
                continue
            facts = {
                "opened": item.created_at.astimezone(tz).date(),
                "days": (ended - item.created_at) // DAY,
            }
            markers.append(Marker(kind, item.number, facts))
    return sorted(markers, key=lambda m: -m.facts["days"])


def is_severe_bug(item: ItemRecord) -> bool:
    """An open issue that is bug-like and names a severity signal (crash, hang, OOM…)."""
    open_issue = not item.is_pr and item.state == "open" and not item.is_bot
    return open_issue and is_bug_like(item) and bool(compute_item_facts(item).symptoms)


def stale_markers(
    candidates: Iterable[ItemRecord],
    rows: Iterable[ActivityRow],
    until: datetime,
    tz: Any,
    earliest: datetime | None,
) -> list[Marker]:
    """Severe open bugs with no maintainer comment or review in the last ``STALE_DAYS`` before
    ``until`` (``rows``: their stored activity). The silence is counted from the last reply,
    else from the opening, but never from before the stored history (``earliest``)."""
    last_reply: dict[int, datetime] = {}
    others: dict[int, int] = {}
    for row in rows:
        if row.maintainer and not row.is_bot:
            last_reply[row.number] = max(row.at, last_reply.get(row.number, row.at))
        elif not row.is_bot:
            others[row.number] = others.get(row.number, 0) + 1
    markers = []
    for item in candidates:
        since = last_reply.get(item.number, max(item.created_at, earliest or item.created_at))
        if not is_severe_bug(item) or until - since < STALE_DAYS * DAY:
            continue
        facts = {
            "opened": item.created_at.astimezone(tz).date(),
            "days": (until - since) // DAY,
            "last_reply": last_reply[item.number].astimezone(tz).date()
            if item.number in last_reply
            else None,
            "comments": others.get(item.number, 0),
            "store_start": since.astimezone(tz).date() if since > item.created_at else None,
        }
        markers.append(Marker("stale", item.number, facts))
    return sorted(markers, key=lambda m: (-m.facts["days"], -m.number))


def reverted_number(item: ItemRecord) -> int | None:
    """The PR a merged "Revert …" PR names (``(#N)`` in its title, ``Reverts #N`` in its body)."""
    if not item.is_pr or not _REVERT.match(item.title):
        return None
    for text in (item.title, item.body):
        if match := _REVERTED_REF.search(text or ""):
            return int(match.group(1))
    return None


def reverted_markers(
    merged: Iterable[ItemRecord], targets: Mapping[int, ItemRecord], tz: Any
) -> list[Marker]:
    """Merged reverts naming a stored PR: marker on the revert, citing the reverted PR."""
    markers = []
    for item in merged:
        number = reverted_number(item)
        target = targets.get(number) if number is not None else None
        if target is None or not target.is_pr:
            continue
        merged_on = target.merged_at.astimezone(tz).date() if target.merged_at else None
        facts = {"reverted": number, "reverted_merged": merged_on}
        markers.append(Marker("reverted", item.number, facts))
    return markers
