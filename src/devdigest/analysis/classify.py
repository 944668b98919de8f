"""Categories and focus areas: explainable rule matching over titles, labels and bodies.

A rule matches an item for stated reasons only: a label, a leading title tag, a keyword
(whole word, case-insensitive, in the title or the head of the body) or an explicitly listed
author. Nothing is inferred from who someone is or where they work.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

from devdigest.analysis.types import FocusMatch, FocusResult
from devdigest.config import Rule
from devdigest.models import ItemRecord

BODY_HEAD = 2000  # characters of the body searched for keywords

_TAG = re.compile(r"\s*\[([^\[\]\n]{1,40})\]\s*:?")
_FENCE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.S)
_DETAILS = re.compile(r"<details>.*?(?:</details>|\Z)", re.S | re.I)
_WORD = r"[A-Za-z0-9_]"


def title_tags(title: str) -> list[str]:
    """Leading bracket tags: ``"[Hardware][AMD] Fix x"`` → ``["Hardware", "AMD"]``.

    Issue-template forms (``"[Bug]: crash"``) and spaces between tags are accepted.
    """
    tags: list[str] = []
    pos = 0
    while match := _TAG.match(title, pos):
        tag = " ".join(match.group(1).split())
        if tag:
            tags.append(tag)
        pos = match.end()
    return tags


def prose(body: str) -> str:
    """The body without fenced code blocks and ``<details>`` sections (logs, environment dumps).

    Bug templates paste an environment report ("ROCM used to build PyTorch: N/A", "HIP runtime
    version") into every issue; matching keywords there would put every bug in every focus area.
    """
    return _FENCE.sub(" ", _DETAILS.sub(" ", body))


def searchable_text(item: ItemRecord) -> str:
    """Title and the head of the body's prose: where keywords are looked for."""
    return f"{item.title}\n{prose(item.body)[:BODY_HEAD]}"


@lru_cache(maxsize=4096)
def keyword_pattern(keyword: str) -> re.Pattern[str]:
    """Whole-word, case-insensitive; a trailing ``*`` makes the keyword a prefix (``disaggregat*``).

    An optional plural ``s`` is allowed after a keyword that ends in a letter.
    """
    word = keyword.strip()
    prefix = word.endswith("*")
    word = word.rstrip("*")
    body = r"\s+".join(re.escape(part) for part in word.split())
    left = f"(?<!{_WORD})" if re.match(_WORD, word[:1]) else ""
    if prefix:
        right = ""
    elif re.match(_WORD, word[-1:]):
        right = ("s?" if word[-1:].isalpha() else "") + f"(?!{_WORD})"
    else:
        right = ""
    return re.compile(left + body + right, re.I)


@lru_cache(maxsize=512)
def any_keyword_pattern(keywords: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern matching where any of ``keywords`` would: most texts match no keyword of a
    rule, and one search over the text then replaces one per keyword."""
    return re.compile("|".join(f"(?:{keyword_pattern(k).pattern})" for k in keywords), re.I)


@lru_cache(maxsize=512)
def keyword_cores(keywords: tuple[str, ...]) -> tuple[str, ...] | None:
    """A literal every match of a keyword contains (its first word, lower-cased), for a quick
    substring test before the patterns; None when a keyword is not ASCII (case folding of other
    scripts differs between ``str.lower`` and ``re.I``)."""
    words = [k.strip().rstrip("*").split()[:1] for k in keywords]
    if not all(w and w[0].isascii() for w in words):
        return None
    return tuple(w[0].lower() for w in words)


_lowered = lru_cache(maxsize=64)(str.lower)  # one item's text, asked once per rule


def _may_match(keywords: tuple[str, ...], haystack: str) -> bool:
    cores = keyword_cores(keywords)
    if cores is not None:
        lowered = _lowered(haystack)
        if not any(core in lowered for core in cores):
            return False
    return any_keyword_pattern(keywords).search(haystack) is not None


def _fold(values: Iterable[str]) -> set[str]:
    return {" ".join(v.split()).casefold() for v in values}


def match_rule(item: ItemRecord, rule: Rule, text: str | None = None) -> list[str]:
    """Why ``item`` belongs to ``rule``: ``["label rocm", "title tag [ROCm]", "keyword MI300X"]``.

    ``text`` is :func:`searchable_text` of the item, when the caller has it already.
    """
    reasons: list[str] = []
    wanted_labels = _fold(rule.labels)
    reasons += [f"label {label}" for label in item.labels if label.casefold() in wanted_labels]
    wanted_tags = _fold(rule.title_tags)
    reasons += [
        f"title tag [{tag}]" for tag in title_tags(item.title) if tag.casefold() in wanted_tags
    ]
    haystack = searchable_text(item) if text is None and rule.keywords else text or ""
    if rule.keywords and _may_match(tuple(rule.keywords), haystack):
        matched = [kw for kw in rule.keywords if keyword_pattern(kw).search(haystack)]
        reasons += [f"keyword {kw.rstrip('*')}" for kw in matched]
    if rule.authors and item.author.casefold() in _fold(rule.authors):
        reasons.append(f"author {item.author}")
    return list(dict.fromkeys(reasons))


def compute_categories(items: Iterable[ItemRecord], rules: list[Rule]) -> dict[int, list[str]]:
    """Item number → names of the categories it matches (possibly none), in rule order."""
    out: dict[int, list[str]] = {}
    for item in items:
        text = searchable_text(item)
        out[item.number] = [rule.name for rule in rules if match_rule(item, rule, text)]
    return out


def compute_focus(
    items: Iterable[ItemRecord],
    rules: list[Rule],
    activity: Mapping[int, float] | None = None,
) -> list[FocusResult]:
    """One result per focus rule: matching issues and PRs, most relevant first.

    Relevance is the number of reasons, then ``activity[number]`` (e.g. in-window human
    comments), then the newest number.
    """
    activity = activity or {}
    pool = [(item, searchable_text(item)) for item in items]
    results = []
    for rule in rules:
        matches = [
            FocusMatch(item=item, reasons=reasons)
            for item, text in pool
            if (reasons := match_rule(item, rule, text))
        ]
        matches.sort(
            key=lambda m: (-len(m.reasons), -activity.get(m.item.number, 0), -m.item.number)
        )
        issues = [m for m in matches if not m.item.is_pr]
        prs = [m for m in matches if m.item.is_pr]
        results.append(FocusResult(rule=rule, issues=issues, prs=prs))
    return results
