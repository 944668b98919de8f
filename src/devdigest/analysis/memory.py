"""Store reads behind the continuity markers of one day (see ``continuity``).

Every read is bounded by the window and ``LOOKBACK_DAYS`` before it, or by item numbers, so
the cost does not grow with the stored history.
"""

from __future__ import annotations

from datetime import datetime

from devdigest.analysis.continuity import (
    LOOKBACK_DAYS,
    QUIET_DAYS,
    Marker,
    compute_thread_days,
    first_seen_markers,
    hot_run_markers,
    is_severe_bug,
    long_standing_markers,
    returning_markers,
    reverted_markers,
    reverted_number,
    stale_markers,
)
from devdigest.models import ItemRecord
from devdigest.store import Store
from devdigest.store.activity import activity_rows, last_activity_before
from devdigest.window import Window


def compute_markers(
    store: Store,
    repo: str,
    window: Window,
    items: dict[int, ItemRecord],
    appendix: dict[str, list[ItemRecord]],
    earliest: datetime | None,
    seen_before: set[str] | None,
) -> list[Marker]:
    """The continuity markers of ``window``: hot N days running, returning, first seen, stale,
    long-standing closed or merged, reverted. ``items``: the window's items by number."""
    days = [window.previous(k) for k in range(LOOKBACK_DAYS, 0, -1)] + [window]
    rows = activity_rows(store, repo, days[0].start, window.end)
    thread_days = compute_thread_days(rows, {}, days)
    today = {n: d[window.local_date] for n, d in thread_days.items() if window.local_date in d}
    quiet = [n for n in today if len(thread_days[n]) == 1]  # no activity in the lookback
    markers = hot_run_markers(thread_days, days, earliest)
    if QUIET_DAYS <= LOOKBACK_DAYS:
        markers += returning_markers(
            today, last_activity_before(store, repo, quiet, window.start), window
        )
    markers += first_seen_markers(items.values(), seen_before, window)
    bugs = [i for i in items.values() if is_severe_bug(i)]
    if bugs:
        since = min(i.created_at for i in bugs)
        bug_rows = activity_rows(store, repo, since, window.end, [i.number for i in bugs])
        markers += stale_markers(bugs, bug_rows, window.end, window.zone, earliest)
    markers += long_standing_markers(appendix["closed_issues"], appendix["merged_prs"], window.zone)
    targets = {reverted_number(i) for i in appendix["merged_prs"]} - {None}
    markers += reverted_markers(
        appendix["merged_prs"], store.items_by_number(repo, targets), window.zone
    )
    return markers
