"""Issues worth watching: open issues, new or active in the window, with severity signals.

The signals are facts (:mod:`devdigest.analysis.facts`) read from the title, the body (logs
included: a traceback saying "illegal memory access" is the evidence) and the in-window
comments: symptoms by kind and severity, memory figures out of proportion to the model's size
("a 0.8B model trying to allocate 192 GB"), regressions from an item or a version, a
reproduction. Engagement (in-window human comments, participants, reactions), breadth (model
families and hardware named) and focus relevance raise the rank. An issue qualifies when it
is bug-like (label bug, a [Bug] tag) or names a symptom.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from devdigest.analysis.classify import match_rule, title_tags
from devdigest.analysis.discussions import (
    comments_complete,
    human_in_window,
    thread_participants,
)
from devdigest.analysis.facts import ItemFacts, compute_item_facts
from devdigest.analysis.types import WatchCandidate
from devdigest.config import Rule
from devdigest.models import CommentRecord, ItemRecord
from devdigest.window import Window

BUG_TAGS = {"bug", "bugfix", "crash", "security"}
OUT_OF_PROPORTION_WEIGHT = 8.0  # the clearest severity signal an issue can carry
REGRESSION_WEIGHT = 2.0
REPRODUCIBLE_WEIGHT = 1.0
FOCUS_WEIGHT = 1.0


def breadth_of(facts: ItemFacts) -> list[str]:
    return list(dict.fromkeys(facts.families + facts.names("hardware")))


def is_bug_like(item: ItemRecord) -> bool:
    labelled = any("bug" in label.casefold() for label in item.labels)
    tagged = any(tag.casefold() in BUG_TAGS for tag in title_tags(item.title))
    return labelled or tagged


def score_watch(
    item: ItemRecord,
    comments: list[CommentRecord],
    window: Window,
    facts: ItemFacts | None = None,
    focus: Iterable[Rule] = (),
) -> WatchCandidate:
    """``comments``: the issue's in-window human comments, oldest first."""
    facts = facts or compute_item_facts(item, comments)
    ranked = sorted(facts.symptoms, key=lambda s: -s.weight)
    breadth = breadth_of(facts)
    participants = thread_participants(item, comments, window)
    reactions = item.reactions + sum(c.reactions for c in comments)
    bug_like = is_bug_like(item)
    absurd = bool(facts.out_of_proportion)
    regression = any(r.kind == "regression" for r in facts.relations)
    relevant = any(match_rule(item, rule) for rule in focus)
    score = min(facts.severity, 10.0)
    score += 2.0 * bug_like + 1.0 * window.contains(item.created_at)
    score += 0.5 * min(len(comments), 10) + 1.0 * min(len(participants), 5) + reactions / 3
    score += 1.0 * min(len(breadth), 2) + OUT_OF_PROPORTION_WEIGHT * absurd
    score += REGRESSION_WEIGHT * regression + REPRODUCIBLE_WEIGHT * facts.reproducible
    score += FOCUS_WEIGHT * relevant
    words = [s.text for s in ranked]
    return WatchCandidate(
        item=item,
        signals=words + breadth,
        score=round(score, 3),
        severity=words,
        breadth=breadth,
        bug_like=bug_like or bool(ranked),
        window_comments=len(comments),
        participants=len(participants),
        reactions=reactions,
        facts=facts,
        out_of_proportion=absurd,
        regression=regression,
    )


def compute_watch(
    items: Iterable[ItemRecord],
    comments: Iterable[CommentRecord],
    window: Window,
    limit: int = 8,
    focus: Iterable[Rule] = (),
    repo: str | None = None,
) -> list[WatchCandidate]:
    """Open issues created in the window or discussed in it by humans, bug-like, best first.

    ``comments`` may include bots and out-of-window rows; both are dropped here.
    """
    focus = list(focus)
    talk: dict[int, list[CommentRecord]] = {}
    for comment in human_in_window(comments, window):
        talk.setdefault(comment.number, []).append(comment)
    candidates = []
    for item in items:
        if item.is_pr or item.state != "open" or item.is_bot:
            continue
        if not (window.contains(item.created_at) or item.number in talk):
            continue
        rows = talk.get(item.number, [])
        facts = compute_item_facts(item, rows, repo)
        candidate = score_watch(item, rows, window, facts, focus)
        if candidate.bug_like:
            candidates.append(candidate)
    candidates.sort(key=lambda c: (-c.score, -c.item.number))
    return candidates[:limit]


def attach_discussion(
    candidates: list[WatchCandidate], comments: Mapping[int, list[CommentRecord]]
) -> None:
    """Give each candidate its stored human discussion (all time up to the window's end)."""
    for candidate in candidates:
        rows = comments.get(candidate.item.number, [])
        candidate.comments = [c for c in rows if not c.is_bot]
        candidate.comments_complete = comments_complete(candidate.item, rows)
