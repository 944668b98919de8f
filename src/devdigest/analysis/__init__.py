"""Analysis: pure functions over one window of stored data.

:func:`compute_window_analysis` reads everything it needs from the store up front (each read
bounded by the window's time ranges or by item numbers, so its cost does not grow with the
stored history), then hands plain records to the ``compute_*`` functions of the submodules.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from devdigest.analysis.activity import compute_activity, history_suffices
from devdigest.analysis.changes import compute_changes
from devdigest.analysis.classify import compute_categories, compute_focus
from devdigest.analysis.discussions import compute_busiest, compute_threads, linked_numbers
from devdigest.analysis.facts import ItemFacts, compute_facts
from devdigest.analysis.memory import compute_markers
from devdigest.analysis.stats import (
    appendix_items,
    compute_appendix,
    compute_counts,
    discussed_numbers,
    window_activity,
)
from devdigest.analysis.storylines import compute_storylines
from devdigest.analysis.trends import compute_topics, covered_days, history_start
from devdigest.analysis.types import WatchCandidate, WindowAnalysis
from devdigest.analysis.watch import attach_discussion, compute_watch
from devdigest.config import Config, Project, Rule
from devdigest.models import CommentRecord, ItemRecord
from devdigest.store import Store
from devdigest.window import Window

__all__ = ["WindowData", "analyze_window", "compute_window_analysis", "read_window"]

DISCUSSIONS = 5
KEY_CHANGES = 8
WATCH = 8


@dataclass
class WindowData:
    """Everything the analysis reads from the store for one window."""

    appendix: dict[str, list[ItemRecord]]
    comments: list[CommentRecord]  # created in the window, bots included, oldest first
    items: dict[int, ItemRecord]  # appendix items + items discussed in the window
    history: dict[int, list[CommentRecord]]  # candidates' stored comments up to the end
    linked: dict[int, ItemRecord]  # items referenced from window items' bodies
    previous: list[ItemRecord]  # items created in the baseline days before the window
    earliest: datetime | None  # where the stored history begins
    items_from: datetime | None  # where the stored history of items (not comments) begins
    seen_before: set[str] | None  # new authors with earlier stored activity (None: too little)
    watch: list[WatchCandidate]  # ranked issues worth watching (their histories are read)
    data_fetched_at: datetime | None = None
    github_requests: int = 0


def history_numbers(
    items: dict[int, ItemRecord], comments: list[CommentRecord], window: Window
) -> set[int]:
    """PRs whose whole stored discussion the analysis needs: merged in the window or reviewed
    in it (key-change candidates)."""
    reviewed = {c.number for c in comments if c.kind == "review" and window.contains(c.created_at)}
    return {
        n
        for n, item in items.items()
        if item.is_pr and (window.contains(item.merged_at) or n in reviewed)
    }


def read_window(
    store: Store,
    repo: str,
    window: Window,
    now: datetime | None = None,
    focus: list[Rule] | None = None,
) -> WindowData:
    """All store reads for ``window``; ``now`` (if earlier than the end) clips the reads.

    The issues worth watching are ranked here, once: the ranking decides whose histories to read.
    ``focus``: the project's focus rules (focus relevance raises an issue's rank).
    """
    until = min(window.end, now) if now is not None else window.end
    appendix = store.window_items(repo, window.start, window.end)
    comments = store.comments_between(repo, window.start, until)
    items = appendix_items(appendix)
    extra = discussed_numbers(comments, window) - items.keys()
    items.update(store.items_by_number(repo, extra))
    watch = compute_watch(items.values(), comments, window, WATCH, focus or [], repo)
    numbers = history_numbers(items, comments, window) | {w.item.number for w in watch}
    history = store.comments_for(repo, numbers, until)
    top = max(items, default=0)
    refs = {
        n
        for item in items.values()
        for n in linked_numbers(item.body, repo, exclude=item.number)
        if n <= top and n not in items
    }
    earliest = store.earliest_activity(repo)
    items_from = store.earliest_activity(repo, listing="issues")
    previous = []
    if covered_days(window, items_from):
        previous = store.items_created(repo, history_start(window), window.start)
    seen_before = None
    if history_suffices(window, earliest):
        new_authors = {i.author for i in items.values() if window.contains(i.created_at)}
        seen_before = store.authors_seen_before(repo, new_authors, window.start)
    last = store.last_sync(repo) or {}
    return WindowData(
        appendix=appendix,
        comments=comments,
        items=items,
        history=history,
        linked=store.items_by_number(repo, refs),
        previous=previous,
        earliest=earliest,
        items_from=items_from,
        seen_before=seen_before,
        watch=watch,
        data_fetched_at=last.get("finished_at"),
        github_requests=int(last.get("requests") or 0),
    )


def analyze_window(
    data: WindowData, project: Project, categories: list[Rule], window: Window
) -> WindowAnalysis:
    """The pure part: every figure and ranking from the records in ``data``."""
    items = data.items
    window_items = list(items.values())
    labels = compute_categories([*window_items, *data.previous, *data.linked.values()], categories)
    activity = window_activity(data.comments, window)
    topics, history_days = compute_topics(
        [i for i in window_items if window.contains(i.created_at)],
        data.previous,
        labels,
        categories,
        window,
        data.items_from,
    )
    attach_discussion(data.watch, data.history)
    appendix = compute_appendix(data.appendix)
    mentioned = items | data.linked
    facts = window_facts(data, project.repo)
    focus = compute_focus(window_items, project.focus, activity)
    threads = compute_threads(items, data.comments, window, limit=DISCUSSIONS, repo=project.repo)
    return WindowAnalysis(
        repo=project.repo,
        project=project,
        window=window,
        counts=compute_counts(appendix),
        appendix=appendix,
        items=dict(sorted(mentioned.items())),
        categories={n: labels.get(n, []) for n in sorted(mentioned)},
        topics=topics,
        focus=focus,
        discussions=threads,
        busiest=[] if threads else compute_busiest(items, data.comments, window),
        key_changes=compute_changes(
            window_items,
            data.history,
            categories,
            window,
            limit=KEY_CHANGES,
            repo=project.repo,
            facts=facts,
            focus=project.focus,
        ),
        watch=data.watch,
        activity=compute_activity(
            window_items, data.comments, appendix["merged_prs"], window, data.seen_before
        ),
        history_days=history_days,
        data_fetched_at=data.data_fetched_at,
        github_requests=data.github_requests,
        facts=facts,
        storylines=compute_storylines(window_items, facts, window),
    )


def window_facts(data: WindowData, repo: str) -> dict[int, ItemFacts]:
    """Facts of every window item: watch and key-change candidates with their stored discussion,
    the others from their title and body (enough to group them into storylines)."""
    known = {w.item.number: w.facts for w in data.watch if w.facts is not None}
    rest = [i for i in data.items.values() if i.number not in known]
    return known | compute_facts(rest, data.history, repo)


def compute_window_analysis(
    store: Store, config: Config, repo: str, window: Window, *, now: datetime | None = None
) -> WindowAnalysis:
    """The analysis of ``repo`` over ``window``: the one entry point for the writers."""
    project = config.project(repo)
    data = read_window(store, repo, window, now, project.focus)
    analysis = analyze_window(data, project, config.categories_for(project), window)
    analysis.markers = compute_markers(
        store, repo, window, data.items, analysis.appendix, data.earliest, data.seen_before
    )
    analysis.history_from = data.earliest
    return analysis
