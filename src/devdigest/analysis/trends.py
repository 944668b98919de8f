"""Topics and trends: category counts of the window's new items against the previous days.

Both sides count the same thing, items (issues and PRs) created in the period, so the delta
compares like with like. The baseline is the per-day mean over up to ``HISTORY_DAYS`` whole
days before the window that the store covers (none before its earliest stored activity).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta

from devdigest.analysis.types import TopicCount
from devdigest.config import Rule
from devdigest.models import ItemRecord
from devdigest.window import Window

HISTORY_DAYS = 7
DAY = timedelta(days=1)


def history_start(window: Window, days: int = HISTORY_DAYS) -> datetime:
    """Where the single query for the baseline begins."""
    return window.start - days * DAY


def covered_days(window: Window, earliest: datetime | None, days: int = HISTORY_DAYS) -> int:
    """How many of the ``days`` whole days before the window begin at or after ``earliest``."""
    if earliest is None:
        return 0
    return sum(1 for k in range(1, days + 1) if window.start - k * DAY >= earliest)


def daily_category_counts(
    previous: Iterable[ItemRecord],
    categories: Mapping[int, list[str]],
    window: Window,
    available: int,
) -> list[Counter[str]]:
    """Category counts per previous day (index 0 = the day just before the window)."""
    buckets: list[Counter[str]] = [Counter() for _ in range(available)]
    for item in previous:
        offset = window.start - item.created_at
        k = int(offset // DAY)  # 0 for [start - 1 day, start)
        if offset > timedelta(0) and k < available:
            buckets[k].update(categories.get(item.number, []))
    return buckets


def compute_topics(
    current: Iterable[ItemRecord],
    previous: Iterable[ItemRecord],
    categories: Mapping[int, list[str]],
    rules: list[Rule],
    window: Window,
    earliest: datetime | None,
) -> tuple[list[TopicCount], int]:
    """Topics of the window's new items with their baseline; returns (topics, history_days).

    ``current``: items created in the window; ``previous``: items created in the
    ``HISTORY_DAYS`` before it; ``categories`` covers both. For windows longer or shorter than
    a day, the delta compares with the per-day mean scaled to the window's length.
    """
    available = covered_days(window, earliest)
    days = daily_category_counts(previous, categories, window, available)
    scale = window.duration / DAY
    numbers: dict[str, list[int]] = {rule.name: [] for rule in rules}
    for item in sorted(current, key=lambda i: i.number):
        for name in categories.get(item.number, []):
            numbers.setdefault(name, []).append(item.number)
    topics = []
    for rule in rules:
        found = numbers[rule.name]
        avg = sum(day[rule.name] for day in days) / available if available else None
        if not found and not avg:
            continue
        delta = round(len(found) - avg * scale, 2) if avg is not None else None
        topics.append(
            TopicCount(
                rule=rule,
                count=len(found),
                numbers=found,
                previous_avg=round(avg, 2) if avg is not None else None,
                delta=delta,
            )
        )
    topics.sort(key=lambda t: (-t.count, -(t.delta or 0.0), t.rule.name))
    return topics, available
