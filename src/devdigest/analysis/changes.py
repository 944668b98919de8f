"""Key technical changes: merged (or approved, nearly merged) PRs ranked by what they change.

Score = category weight (performance, kernels, models, engine core high; docs and CI alone
low) + review depth (distinct human reviewers, reviews) + linked issues + stated benchmark
figures + in-window discussion. Every reason that adds to the score is listed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

from devdigest.analysis.classify import match_rule, searchable_text
from devdigest.analysis.discussions import DECISIVE_REVIEWS, is_light_review, linked_numbers
from devdigest.analysis.figures import extract_figures
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
BOT_PENALTY = -3.0
NEARLY_MERGED_PENALTY = -1.0
LINKED_MAX = 2  # linked issues that add to the score
FIGURES_BONUS = 2.0
# the most the item's body and categories can add: an upper bound for rankings that score
# many PRs without their bodies first (period reports)
BODY_HEADROOM = max(w for _, w in CATEGORY_WEIGHTS) + LINKED_MAX + FIGURES_BONUS


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


def score_change(
    item: ItemRecord,
    comments: list[CommentRecord],
    rules: list[Rule],
    window: Window,
    repo: str | None = None,
    nearly_merged: bool = False,
) -> ChangeCandidate:
    """``comments`` are all the PR's stored comments and reviews up to the window's end."""
    human = [c for c in comments if not c.is_bot and c.created_at < window.end]
    reviews = [c for c in human if c.kind == "review" and not is_light_review(c)]
    reviewers = {c.author for c in human if c.kind != "issue_comment"} - {item.author}
    approvals = {c.author for c in reviews if c.review_state == "APPROVED"} - {item.author}
    figures = extract_figures(item.body)
    linked = linked_numbers(item.body, repo, exclude=item.number)
    talk = sum(1 for c in human if window.contains(c.created_at) and not is_light_review(c))
    score, reasons = 0.0, []
    weight, category = category_weight(*rule_categories(item, rules))
    if category is not None:
        score += weight
        reasons.append(f"category {category}")
    if reviewers:
        score += min(len(reviewers), 4) + 0.25 * min(len(reviews), 8)
        reasons.append(f"{len(reviewers)} reviewers")
    if approvals:
        reasons.append(f"{len(approvals)} approvals")
    if linked:
        score += min(len(linked), LINKED_MAX)
        reasons.append("links " + ", ".join(f"#{n}" for n in linked[:3]))
    if figures:
        score += FIGURES_BONUS
        reasons.append("states figures")
    if talk:
        score += min(talk, 10) * 0.2
    if item.is_bot:
        score += BOT_PENALTY
        reasons.append("bot author")
    if nearly_merged:
        score += NEARLY_MERGED_PENALTY
        reasons.append("nearly merged: approved, not merged yet")
    return ChangeCandidate(
        item=item,
        score=round(score, 3),
        reasons=reasons,
        figures=figures,
        linked=linked,
        reviews=len(reviews),
        comments=sorted(human, key=lambda c: (c.created_at, c.id)),
        nearly_merged=nearly_merged,
    )


def compute_changes(
    items: Iterable[ItemRecord],
    comments: Mapping[int, list[CommentRecord]],
    rules: list[Rule],
    window: Window,
    limit: int = 8,
    repo: str | None = None,
) -> list[ChangeCandidate]:
    """PRs merged in the window, plus nearly merged ones (flagged), best first.

    ``items``: the window's items; ``comments``: number → the item's comments up to the end.
    """
    candidates = []
    for item in items:
        rows = comments.get(item.number, [])
        if item.is_pr and window.contains(item.merged_at):
            nearly = False
        elif is_nearly_merged(item, rows, window):
            nearly = True
        else:
            continue
        candidates.append(score_change(item, rows, rules, window, repo, nearly))
    candidates.sort(key=lambda c: (-c.score, c.nearly_merged, -c.item.number))
    return candidates[:limit]
