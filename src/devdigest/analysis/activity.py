"""Activity figures: contributors, first-time contributors, reviewers, time to merge, bots.

First-time contributors are the human authors of items created in the window who are either
marked by GitHub (``author_association`` FIRST_TIME_CONTRIBUTOR or FIRST_TIMER), or, when the
store covers at least ``FIRST_TIME_HISTORY`` before the window, have no stored activity (item
or comment) before it. ``ActivityFigures.first_time_basis`` says which rule applied.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta

from devdigest.models import ActivityFigures, CommentRecord, ItemRecord
from devdigest.window import Window

FIRST_TIME_ASSOCIATIONS = frozenset({"FIRST_TIME_CONTRIBUTOR", "FIRST_TIMER"})
FIRST_TIME_HISTORY = timedelta(days=30)
TOP_REVIEWERS = 5
GHOST = "ghost"  # GitHub's stand-in for a deleted account


def history_suffices(window: Window, earliest: datetime | None) -> bool:
    """Whether the store reaches ``FIRST_TIME_HISTORY`` before the window."""
    return earliest is not None and earliest <= window.start - FIRST_TIME_HISTORY


def created_in(items: Iterable[ItemRecord], window: Window) -> list[ItemRecord]:
    return [item for item in items if window.contains(item.created_at)]


def first_time_contributors(
    new_items: Iterable[ItemRecord], seen_before: set[str] | None
) -> list[str]:
    """Authors of ``new_items`` marked first-time by GitHub, or (``seen_before`` given: the
    store's history suffices) absent from the stored history before the window."""
    found = set()
    for item in new_items:
        if item.is_bot or item.author == GHOST:
            continue
        marked = item.author_association in FIRST_TIME_ASSOCIATIONS
        unseen = seen_before is not None and item.author not in seen_before
        if marked or unseen:
            found.add(item.author)
    return sorted(found)


def merge_hours(merged: Iterable[ItemRecord]) -> list[float]:
    """Hours from creation to merge for each merged PR opened by a human (bots excluded)."""
    return [
        (item.merged_at - item.created_at).total_seconds() / 3600
        for item in merged
        if item.merged_at is not None and not item.is_bot
    ]


def top_reviewers(
    comments: Iterable[CommentRecord], authors: Mapping[int, str], limit: int = TOP_REVIEWERS
) -> list[tuple[str, int]]:
    """Humans by in-window reviews + review comments, excluding a PR author on their own PR."""
    counts: Counter[str] = Counter(
        c.author
        for c in comments
        if c.kind in ("review", "review_comment")
        and not c.is_bot
        and authors.get(c.number) != c.author
    )
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]


def compute_activity(
    items: Iterable[ItemRecord],
    comments: Iterable[CommentRecord],
    merged: Iterable[ItemRecord],
    window: Window,
    seen_before: set[str] | None = None,
) -> ActivityFigures:
    """Figures for the window.

    ``items``: the window's items (any that may have been created in it); ``comments``: the
    comments and reviews created in the window (bots included, they are counted apart);
    ``merged``: PRs merged in the window; ``seen_before``: logins with stored activity before
    the window, or ``None`` when the store's history is too short to tell.
    """
    items = list(items)
    comments = [c for c in comments if window.contains(c.created_at)]
    new_items = created_in(items, window)
    human_items = [i for i in new_items if not i.is_bot]
    human_comments = [c for c in comments if not c.is_bot]
    authors = {i.author for i in human_items}
    contributors = authors | {c.author for c in human_comments}
    bots = {i.author for i in new_items if i.is_bot} | {c.author for c in comments if c.is_bot}
    bot_events = sum(1 for i in new_items if i.is_bot) + sum(1 for c in comments if c.is_bot)
    hours = merge_hours(merged)
    return ActivityFigures(
        contributors=len(contributors),
        authors=len(authors),
        first_time_contributors=first_time_contributors(human_items, seen_before),
        top_reviewers=top_reviewers(human_comments, {i.number: i.author for i in items}),
        median_hours_to_merge=round(statistics.median(hours), 2) if hours else None,
        merges_measured=len(hours),
        bots_excluded=sorted(bots),
        bot_events=bot_events,
        first_time_basis="association+history" if seen_before is not None else "association",
    )
