"""Key technical changes: merged (or approved, nearly merged) PRs ranked by what they change.

Score = category weight (performance, kernels, models, engine core high; docs and CI alone
low) + measured impact (figures the PR states, larger ones more) + breadth (models, hardware,
kernels named) + review depth (distinct human reviewers, reviews) + issues it closes + focus
relevance + in-window discussion; housekeeping ("Some code simplification", typo, rename) with
no figure and no fixed issue ranks low. Every reason that adds to the score is listed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import datetime

from devdigest.analysis.classify import match_rule, searchable_text
from devdigest.analysis.discussions import DECISIVE_REVIEWS, is_light_review, linked_numbers
from devdigest.analysis.facts import ItemFacts, compute_item_facts
from devdigest.analysis.types import ChangeCandidate
from devdigest.config import Rule
from devdigest.models import CommentRecord, ItemRecord
from devdigest.window import Window

# category-name fragments (case-insensitive) → weight; the highest fragment found wins
CATEGORY_WEIGHTS: tuple[tuple[str, float], ...] = (
    ("perf", 3.0),
    ("kernel", 3.0),
    ("model", 3.0),
    ("core", 3.0),
    ("speculative", 2.5),
    ("quantization", 2.5),
    ("distributed", 2.5),
    ("amd", 2.5),
    ("rocm", 2.5),
    ("hardware", 2.0),
    ("multimodal", 2.0),
    ("api", 1.5),
    ("bug", 1.5),
    ("rfc", 1.0),
)
LOW_CATEGORY_FRAGMENTS = ("doc", "ci")  # "Documentation", "CI and build"
LOW_ONLY_PENALTY = -2.0
HOUSEKEEPING = re.compile(
    r"\b(?:simplif\w*|clean[- ]?ups?|refactor\w*|typos?|renam\w*|minor|nits?|tidy|lint\w*|"
    r"format(?:ting)?|comments?|docstrings?|remove unused|dead code)\b",
    re.I,
)
HOUSEKEEPING_PENALTY = -2.5
FOCUS_BONUS = 1.5
BOT_PENALTY = -3.0
NEARLY_MERGED_PENALTY = -1.0
NAMED_CAP, FIXES_CAP = 2.0, 3.0  # the most the names and the fixed issues can add


def rule_categories(item: ItemRecord, rules: list[Rule]) -> tuple[list[str], list[str]]:
    """(categories from labels, title tags or authors; categories from keywords only)."""
    strong, weak = [], []
    text = searchable_text(item)  # once, not once per rule
    for rule in rules:
        reasons = match_rule(item, rule, text)
        if any(not r.startswith("keyword ") for r in reasons):
            strong.append(rule.name)
        elif reasons:
            weak.append(rule.name)
    return strong, weak


def category_weight(strong: list[str], weak: list[str] = ()) -> tuple[float, str | None]:
    """The weight of an item's categories and the category that gave it.

    Keyword-only categories count half. When the labels and title tags say only docs or CI
    (``[Doc]``, ``[CI]``), the change ranks low whatever words its body uses.
    """
    if strong and all(_is_low(name) for name in strong):
        return LOW_ONLY_PENALTY, strong[0]
    best, best_name = 0.0, None
    for names, factor in ((strong, 1.0), (weak, 0.5)):
        for name in names:
            weight = factor * _fragment_weight(name)
            if weight > best:
                best, best_name = weight, name
    return best, best_name


def _fragment_weight(name: str) -> float:
    lowered = name.casefold()
    return max((w for fragment, w in CATEGORY_WEIGHTS if fragment in lowered), default=0.0)


def _is_low(name: str) -> bool:
    words = name.casefold().replace("/", " ").split()
    return any(w.startswith(fragment) for w in words for fragment in LOW_CATEGORY_FRAGMENTS)


def latest_review_states(comments: Iterable[CommentRecord], until: datetime) -> dict[str, str]:
    """Each human reviewer's latest decisive review state (APPROVED / CHANGES_REQUESTED) before
    ``until``."""
    states: dict[str, str] = {}
    for c in sorted(comments, key=lambda c: (c.created_at, c.id)):
        decisive = c.kind == "review" and not c.is_bot and c.review_state in DECISIVE_REVIEWS
        if decisive and c.created_at < until:
            states[c.author] = str(c.review_state)
    return states


def is_nearly_merged(item: ItemRecord, comments: list[CommentRecord], window: Window) -> bool:
    """Open, not a draft, ≥ 1 human approval in the window, no reviewer's latest state
    CHANGES_REQUESTED (as of the window's end)."""
    if not item.is_pr or item.state != "open" or item.draft or item.merged_at is not None:
        return False
    approved_in_window = any(
        c.kind == "review"
        and c.review_state == "APPROVED"
        and not c.is_bot
        and window.contains(c.created_at)
        for c in comments
    )
    states = latest_review_states(comments, window.end)
    return approved_in_window and "CHANGES_REQUESTED" not in states.values()


Term = tuple[float, str | None]  # points and the reason shown for them (None: not shown)


def score_change(
    item: ItemRecord,
    comments: list[CommentRecord],
    rules: list[Rule],
    window: Window,
    repo: str | None = None,
    nearly_merged: bool = False,
    focus: Iterable[Rule] = (),
) -> ChangeCandidate:
    """``comments`` are all the PR's stored comments and reviews up to the window's end.

    What the PR changes is scored from what it states itself, its title and body (figures,
    names, the issues it fixes: GitHub too closes issues only from the body), and how it was
    reviewed from its discussion. The candidate's ``facts`` are left for ``compute_changes``
    to fill in for the PRs it keeps.
    """
    human = [c for c in comments if not c.is_bot and c.created_at < window.end]
    facts = compute_item_facts(item, (), repo)
    reviews = [c for c in human if c.kind == "review" and not is_light_review(c)]
    figures = [f for f in facts.figures if f.source.comment_id is None]
    linked = linked_numbers(item.body, repo, exclude=item.number)
    weight, category = category_weight(*rule_categories(item, rules))
    terms: list[Term] = [(weight, f"category {category}")] if category is not None else []
    terms += fact_terms(item, facts, figures, linked, list(focus))
    terms += review_terms(item, human, reviews, window)
    if item.is_bot:
        terms.append((BOT_PENALTY, "bot author"))
    if nearly_merged:
        terms.append((NEARLY_MERGED_PENALTY, "nearly merged: approved, not merged yet"))
    return ChangeCandidate(
        item=item,
        score=round(sum(points for points, _ in terms), 3),
        reasons=[reason for _, reason in terms if reason],
        figures=[f.text for f in figures],
        linked=linked,
        reviews=len(reviews),
        comments=sorted(human, key=lambda c: (c.created_at, c.id)),
        nearly_merged=nearly_merged,
    )


def fact_terms(
    item: ItemRecord, facts: ItemFacts, figures: list, linked: list[int], focus: list[Rule]
) -> list[Term]:
    """Measured impact, breadth, issues fixed (else linked), focus relevance, housekeeping."""
    terms: list[Term] = []
    if figures:
        terms.append((2.0 + measured_impact(figures), "states figures"))
    named = facts.names("models") + facts.names("hardware") + facts.names("kernels")
    if named:
        terms.append((min(0.5 * len(named), NAMED_CAP), "names " + ", ".join(named[:4])))
    fixes = facts.targets("fixes")
    if fixes:
        points = min(1.5 * len(fixes), FIXES_CAP)
        terms.append((points, "fixes " + ", ".join(f"#{n}" for n in fixes[:3])))
    elif linked:
        terms.append((0.5 * min(len(linked), 2), "links " + ", ".join(f"#{n}" for n in linked[:3])))
    relevant = [rule.name for rule in focus if match_rule(item, rule)]
    if relevant:
        terms.append((FOCUS_BONUS, "focus " + ", ".join(relevant)))
    if is_housekeeping(item) and not figures and not fixes:
        terms.append((HOUSEKEEPING_PENALTY, "housekeeping"))
    return terms


def review_terms(
    item: ItemRecord, human: list[CommentRecord], reviews: list[CommentRecord], window: Window
) -> list[Term]:
    """Review depth (distinct reviewers, reviews), approvals, in-window discussion."""
    reviewers = {c.author for c in human if c.kind != "issue_comment"} - {item.author}
    approvals = {c.author for c in reviews if c.review_state == "APPROVED"} - {item.author}
    talk = sum(1 for c in human if window.contains(c.created_at) and not is_light_review(c))
    terms: list[Term] = []
    if reviewers:
        depth = min(len(reviewers), 4) + 0.25 * min(len(reviews), 8)
        terms.append((depth, f"{len(reviewers)} reviewers"))
    if approvals:
        terms.append((0.0, f"{len(approvals)} approvals"))
    if talk:
        terms.append((min(talk, 10) * 0.2, None))
    return terms


def measured_impact(figures: Iterable) -> float:
    """0–2: the largest stated change (6% → 0.6, 1.8x → 2)."""
    best = 0.0
    for figure in figures:
        size = figure_size(figure)
        best = max(best, min(size / 10.0, 2.0))
    return round(best, 3)


def figure_size(figure) -> float:
    """The relative change a figure states, in percent (0 when unknown)."""
    number = _number(figure.value)
    if number is None:
        return 0.0
    if figure.unit == "%":
        return abs(number)
    if figure.unit == "x":
        return abs(number - 1.0) * 100 if number >= 1 else (1 / max(number, 0.01) - 1) * 100
    base = _number(figure.baseline or "")
    if base:
        return abs(number - base) / base * 100
    return 0.0


def _number(text: str) -> float | None:
    match = re.search(r"\d+(?:[.,]\d+)?", text)
    return float(match.group(0).replace(",", "")) if match else None


def is_housekeeping(item: ItemRecord) -> bool:
    return bool(HOUSEKEEPING.search(item.title))


def compute_changes(
    items: Iterable[ItemRecord],
    comments: Mapping[int, list[CommentRecord]],
    rules: list[Rule],
    window: Window,
    limit: int = 8,
    repo: str | None = None,
    facts: Mapping[int, ItemFacts] | None = None,
    focus: Iterable[Rule] = (),
) -> list[ChangeCandidate]:
    """PRs merged in the window, plus nearly merged ones (flagged), best first.

    ``items``: the window's items; ``comments``: number → the item's comments up to the end;
    ``facts``: facts already computed (the rest are computed here); ``focus``: focus rules.
    """
    focus = list(focus)
    candidates = []
    for item in items:
        rows = comments.get(item.number, [])
        if item.is_pr and window.contains(item.merged_at):
            nearly = False
        elif is_nearly_merged(item, rows, window):
            nearly = True
        else:
            continue
        candidates.append(score_change(item, rows, rules, window, repo, nearly, focus=focus))
    candidates.sort(key=lambda c: (-c.score, c.nearly_merged, -c.item.number))
    # the whole facts (discussion included) for the writers, only of the PRs kept
    known = facts or {}
    return [
        replace(c, facts=known.get(c.item.number) or compute_item_facts(c.item, c.comments, repo))
        for c in candidates[:limit]
    ]
