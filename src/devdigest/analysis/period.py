"""Period analysis (a week, a month, any window longer than a day), computed from the store.

The counts are the five counts of the whole window (the same query as ``stats``); the per-day
table counts each day as ``stats`` would, so the days add up to the period (an item that closed
twice within it counts on both days and once in the period). Topics, key changes
and contributors are ranked over the whole period, never assembled from daily reports.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime

from devdigest.analysis.activity import first_time_contributors, history_suffices
from devdigest.analysis.changes import compute_changes
from devdigest.analysis.classify import compute_focus, title_tags
from devdigest.analysis.continuity import (
    Marker,
    compute_thread_days,
    hot_days,
    is_severe_bug,
    long_standing_markers,
    stale_markers,
)
from devdigest.analysis.stats import appendix_items, compute_appendix, compute_counts
from devdigest.analysis.types import ChangeCandidate, FocusResult
from devdigest.config import Config, Project, Rule
from devdigest.models import COUNT_KEYS, Counts, ItemRecord
from devdigest.store import Store
from devdigest.store.activity import ActivityRow, activity_rows, window_counts
from devdigest.window import Window, period_days, previous_period

KEY_CHANGES = 10
HOT_THREADS = 8
PEOPLE = 5  # distinct counts shown for authors and reviewers (ties share a rank)
STALE = 8
MEAN_OF = 4


@dataclass
class PeriodTopic:
    rule: Rule
    count: int  # items created in the period in this category
    previous: int | None  # the same in the previous period (None: not covered by the store)
    numbers: list[int]

    @property
    def delta(self) -> int | None:
        return None if self.previous is None else self.count - self.previous


@dataclass
class PeriodAnalysis:
    repo: str
    project: Project
    window: Window
    counts: Counts
    appendix: dict[str, list[ItemRecord]]
    days: list[tuple[date, Counts]]  # the local days tiling the period
    previous: Counts | None  # the previous period (None: before the stored history)
    previous_window: Window
    mean: dict[str, float] | None  # mean of the last ``mean_periods`` covered periods
    mean_periods: int
    topics: list[PeriodTopic]
    key_changes: list[ChangeCandidate]
    focus: list[FocusResult]
    hot_threads: list[tuple[ItemRecord, list[date]]]  # most hot days first
    long_standing: list[Marker]
    stale: list[Marker]
    new_contributors: list[str]
    first_time_basis: str
    authors: list[tuple[int, list[str]]]  # (items opened, logins with that count)
    reviewers: list[tuple[int, list[str]]]  # (reviews and review comments, logins)
    items: dict[int, ItemRecord] = field(default_factory=dict)
    history_from: datetime | None = None


def compute_day_counts(store: Store, repo: str, days: list[Window]) -> list[tuple[date, Counts]]:
    """The five counts of each day, exactly as ``stats`` counts that day. They add up to the
    period's counts, except that an item closed, reopened and closed again within the period
    counts on each day it closed and once in the period."""
    return [
        (day.local_date, Counts(**window_counts(store, repo, day.start, day.end))) for day in days
    ]


def compare(store: Store, repo: str, window: Window, earliest: datetime | None):
    """(previous period's counts, mean of the last ``MEAN_OF`` covered periods, how many)."""
    periods, cursor = [], window
    for _ in range(MEAN_OF):
        cursor = previous_period(cursor)
        if earliest is None or cursor.start < earliest:
            break
        periods.append(window_counts(store, repo, cursor.start, cursor.end))
    if not periods:  # the store does not reach back to the previous period
        return None, None, 0
    mean = {k: round(sum(p[k] for p in periods) / len(periods), 2) for k in COUNT_KEYS}
    return Counts(**periods[0]), mean, len(periods)


def compute_period_topics(
    current: list[ItemRecord], previous: list[ItemRecord] | None, rules: list[Rule]
) -> list[PeriodTopic]:
    """What dominated, rose and fell: category counts of the items created in the period
    against the previous period (``None``: not in the store). The one place the period's
    topics are computed. Categories come from labels, title tags and listed authors only:
    keyword matching over a month of bodies costs seconds and adds the least certain matches.
    """
    now = _strong_categories(current, rules)
    before = Counter(
        n for names in _strong_categories(previous or [], rules).values() for n in names
    )
    topics = []
    for rule in rules:
        numbers = sorted(n for n, names in now.items() if rule.name in names)
        prior = before[rule.name] if previous is not None else None
        if numbers or prior:
            topics.append(PeriodTopic(rule, len(numbers), prior, numbers))
    return sorted(topics, key=lambda t: (-t.count, t.rule.name))


def _strong_categories(items: list[ItemRecord], rules: list[Rule]) -> dict[int, list[str]]:
    """Item number → categories matched by label, title tag or listed author (as
    ``match_rule`` decides them, by lookup instead of a rule-by-rule scan)."""
    keys: dict[tuple[str, str], set[str]] = {}
    for rule in rules:
        for kind, values in (("label", rule.labels), ("tag", rule.title_tags)):
            for value in values:
                keys.setdefault((kind, " ".join(value.split()).casefold()), set()).add(rule.name)
        for author in rule.authors:
            keys.setdefault(("author", " ".join(author.split()).casefold()), set()).add(rule.name)
    out = {}
    for item in items:
        wanted = [("label", label.casefold()) for label in item.labels]
        wanted += [("tag", tag.casefold()) for tag in title_tags(item.title)]
        wanted.append(("author", item.author.casefold()))
        names = set().union(*(keys.get(k, ()) for k in wanted))
        out[item.number] = [rule.name for rule in rules if rule.name in names]
    return out


def ranked(counter: Counter[str], limit: int = PEOPLE) -> list[tuple[int, list[str]]]:
    """Logins grouped by count, highest ``limit`` counts: ties share a rank, sorted by name."""
    groups: dict[int, list[str]] = {}
    for login, n in counter.items():
        groups.setdefault(n, []).append(login)
    return [(n, sorted(groups[n])) for n in sorted(groups, reverse=True)[:limit]]


def people(items: dict[int, ItemRecord], rows: list[ActivityRow], window: Window):
    """(authors by items opened, reviewers by reviews on others' PRs), bots excluded."""
    authors = Counter(
        i.author for i in items.values() if window.contains(i.created_at) and not i.is_bot
    )
    reviewers = Counter(
        r.author
        for r in rows
        if r.kind != "issue_comment"
        and not r.is_bot
        and r.number in items
        and items[r.number].author != r.author
    )
    authors.pop("ghost", None)
    return ranked(authors), ranked(reviewers)


def compute_period_analysis(
    store: Store, config: Config, repo: str, window: Window
) -> PeriodAnalysis:
    """Everything a period report states, from bounded store reads over ``window``."""
    project = config.project(repo)
    rules = config.categories_for(project)
    earliest = store.earliest_activity(repo)
    appendix = compute_appendix(store.window_items(repo, window.start, window.end))
    items = appendix_items(appendix)
    rows = activity_rows(store, repo, window.start, window.end)
    discussed = {r.number for r in rows if not r.is_bot} - items.keys()
    items.update(store.items_by_number(repo, discussed))
    days = period_days(window)
    thread_days = compute_thread_days(rows, {}, days)
    previous, mean, mean_periods = compare(store, repo, window, earliest)
    before = previous_period(window)
    created = [i for i in items.values() if window.contains(i.created_at)]
    prior = None
    if earliest is not None and before.start >= earliest:
        prior = store.items_created(repo, before.start, before.end)
    merged = appendix["merged_prs"]
    history = store.comments_for(repo, [i.number for i in merged], window.end)
    activity = Counter(r.number for r in rows if not r.is_bot)
    hot = sorted(hot_days(thread_days).items(), key=lambda kv: (-len(kv[1]), -kv[0]))
    bugs = [i for i in items.values() if is_severe_bug(i)]
    bug_rows = activity_rows(
        store, repo, min((i.created_at for i in bugs), default=window.start), window.end,
        [i.number for i in bugs],
    )  # fmt: skip
    seen_before = None
    if history_suffices(window, earliest):
        seen_before = store.authors_seen_before(repo, {i.author for i in created}, window.start)
    authors, reviewers = people(items, rows, window)
    pool = [*created, *merged, *appendix["closed_issues"]]
    focus_pool = list({i.number: i for i in pool}.values())
    return PeriodAnalysis(
        repo=project.repo,
        project=project,
        window=window,
        counts=compute_counts(appendix),
        appendix=appendix,
        days=compute_day_counts(store, repo, days),
        previous=previous,
        previous_window=before,
        mean=mean,
        mean_periods=mean_periods,
        topics=compute_period_topics(created, prior, rules),
        key_changes=compute_changes(
            merged, history, rules, window, limit=KEY_CHANGES, repo=project.repo
        ),
        focus=compute_focus(focus_pool, project.focus, activity),
        hot_threads=[(items[n], d) for n, d in hot[:HOT_THREADS] if len(d) > 1 and n in items],
        long_standing=long_standing_markers(appendix["closed_issues"], merged, window.zone),
        stale=stale_markers(bugs, bug_rows, window.end, window.zone, earliest)[:STALE],
        new_contributors=first_time_contributors(created, seen_before),
        first_time_basis="association+history" if seen_before is not None else "association",
        authors=authors,
        reviewers=reviewers,
        items=items,
        history_from=earliest,
    )
