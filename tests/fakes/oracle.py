"""Expected window counts computed straight from a dataset's events (independent of devdigest).

Definitions (window half-open `[start, end)`; items as GitHub showed them at `at`, states as a run
at the window's end saw them, i.e. folded up to `min(at, end)` exclusive):
new issues: not a PR, created in the window; closed issues: not a PR, closed at the end, latest
close in the window; new PRs: PR created in the window; merged PRs: merged in the window; PRs
closed without merge: PR closed at the end, latest close in the window, not merged by the end.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from devdigest.sample.model import Dataset, Item

KEYS = ("new_issues", "closed_issues", "new_prs", "merged_prs", "closed_unmerged_prs")


def _fold(item: Item, at: datetime, end: datetime) -> tuple[bool, datetime | None, datetime | None]:
    """(closed?, latest close time, merge time) after the events at or before `at` and before
    `end`."""
    closed, closed_at, merged_at = False, None, None
    for event in sorted(item.events, key=lambda e: e.at):
        if event.at > at or event.at >= end:
            continue
        if event.kind in ("closed", "merged"):
            closed, closed_at = True, event.at
            if event.kind == "merged":
                merged_at = event.at
        elif event.kind == "reopened":
            closed, closed_at = False, None
    return closed, closed_at, merged_at


def expected(
    dataset: Dataset, start: datetime, end: datetime, at: datetime | None = None
) -> dict[str, Any]:
    """`{"counts": {key: n}, "items": {key: sorted numbers}}` for the window `[start, end)`."""
    at = at or dataset.end or end
    items: dict[str, list[int]] = {key: [] for key in KEYS}

    def inside(value: datetime | None) -> bool:
        return value is not None and start <= value < end

    for item in dataset.items.values():
        if item.created_at > at:
            continue
        closed, closed_at, merged_at = _fold(item, at, end)
        if item.is_pr:
            if inside(item.created_at):
                items["new_prs"].append(item.number)
            if inside(merged_at):
                items["merged_prs"].append(item.number)
            if closed and merged_at is None and inside(closed_at):
                items["closed_unmerged_prs"].append(item.number)
        else:
            if inside(item.created_at):
                items["new_issues"].append(item.number)
            if closed and inside(closed_at):
                items["closed_issues"].append(item.number)
    for numbers in items.values():
        numbers.sort()
    return {"counts": {key: len(items[key]) for key in KEYS}, "items": items}
