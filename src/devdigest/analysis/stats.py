"""Counts and appendix: the counts are the lengths of the appendix lists, so they agree."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from devdigest.models import COUNT_KEYS, CommentRecord, Counts, ItemRecord
from devdigest.window import Window


def compute_counts(appendix: Mapping[str, list[ItemRecord]]) -> Counts:
    """The five counts of DESIGN §4 from the items behind them."""
    return Counts(**{key: len(appendix.get(key, [])) for key in COUNT_KEYS})


def compute_appendix(appendix: Mapping[str, list[ItemRecord]]) -> dict[str, list[ItemRecord]]:
    """Every count key present, each list ordered by number."""
    return {key: sorted(appendix.get(key, []), key=lambda i: i.number) for key in COUNT_KEYS}


def appendix_items(appendix: Mapping[str, list[ItemRecord]]) -> dict[int, ItemRecord]:
    """The union of the appendix lists, by number."""
    return {item.number: item for key in COUNT_KEYS for item in appendix.get(key, [])}


def discussed_numbers(comments: Iterable[CommentRecord], window: Window) -> set[int]:
    """Items with an in-window comment or review by a human."""
    return {c.number for c in comments if not c.is_bot and window.contains(c.created_at)}


def window_activity(comments: Iterable[CommentRecord], window: Window) -> dict[int, int]:
    """Item number → in-window human comments and reviews (a tie-breaker for rankings)."""
    counts: dict[int, int] = {}
    for c in comments:
        if not c.is_bot and window.contains(c.created_at):
            counts[c.number] = counts.get(c.number, 0) + 1
    return counts
