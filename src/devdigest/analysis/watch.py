"""Issues worth watching: open issues, new or active in the window, with severity signals.

Signals are the words found in the title and the head of the body (logs included: a traceback
saying "illegal memory access" is the evidence), reported as written. Engagement (in-window
human comments, participants, reactions) and breadth (popular models or hardware named)
raise the rank. An issue qualifies when it is bug-like (label bug, a [Bug] tag) or names a
severity signal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from devdigest.analysis.classify import prose, title_tags
from devdigest.analysis.discussions import (
    comments_complete,
    human_in_window,
    thread_participants,
)
from devdigest.analysis.types import WatchCandidate
from devdigest.models import CommentRecord, ItemRecord
from devdigest.window import Window

BODY_HEAD = 4000

# signal class → (weight, pattern); the text found is reported, not the class name
SEVERITY: dict[str, tuple[float, str]] = {
    "security": (5.0, r"security|vulnerabilit(?:y|ies)|CVE-\d{4}-\d{4,}|remote code execution"),
    "crash": (4.0, r"crash(?:es|ed|ing)?|core dumped|fatal error"),
    "segfault": (4.0, r"segfault|segmentation fault|SIGSEGV"),
    "illegal memory access": (4.0, r"illegal memory access"),
    "wrong output": (
        4.0,
        r"(?:wrong|incorrect|garbled|corrupted?) (?:outputs?|results?|answers?|tokens?)|"
        r"garbled|gibberish|garbage (?:output|text)",
    ),
    "accuracy drop": (
        4.0,
        r"accuracy (?:drop|degradation|regression|loss)|(?:drop|degradation) in accuracy|"
        r"(?:lower|worse) accuracy",
    ),
    "NaN": (3.5, r"NaNs?|inf/nan"),
    "hang": (3.5, r"hang(?:s|ing)?|hung|deadlock(?:s|ed)?|stuck|freez(?:e|es|ing)"),
    "OOM": (3.0, r"OOM|out of memory|OutOfMemoryError"),
    "regression": (3.0, r"regression|regressed|no longer works"),
}
_SEVERITY = {
    name: (weight, re.compile(rf"(?<![\w-])(?:{pattern})(?![\w-])", re.I))
    for name, (weight, pattern) in SEVERITY.items()
}
MODELS = (
    "Qwen", "DeepSeek", "Llama", "Gemma", "Mistral", "Mixtral", "GLM", "Kimi", "gpt-oss",
    "Phi", "MiniMax", "Nemotron", "InternVL", "LLaVA",
)  # fmt: skip
HARDWARE = (
    "H100", "H200", "H20", "B200", "B300", "GB200", "GB300", "A100", "L40S", "MI250", "MI300X",
    "MI300A", "MI308X", "MI325X", "MI355X", "TPU", "Gaudi", "Blackwell", "Hopper",
)  # fmt: skip
_MODEL = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, MODELS)) + r")", re.I)
_HARDWARE = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, HARDWARE)) + r")(?![\w])", re.I)
_CANONICAL = {name.casefold(): name for name in MODELS + HARDWARE}
BUG_TAGS = {"bug", "bugfix", "crash"}


def severity_signals(text: str) -> list[tuple[str, float]]:
    """(the words found, weight) for each severity class present in ``text``."""
    found = []
    for weight, pattern in _SEVERITY.values():
        match = pattern.search(text)
        if match:
            found.append((" ".join(match.group(0).split()), weight))
    return found


def breadth_signals(text: str) -> list[str]:
    """Popular model families and accelerators named in ``text``, as canonically spelled."""
    names = [m.group(1) for m in _MODEL.finditer(text)] + [
        m.group(1) for m in _HARDWARE.finditer(text)
    ]
    return list(dict.fromkeys(_CANONICAL[n.casefold()] for n in names))


def is_bug_like(item: ItemRecord) -> bool:
    labelled = any("bug" in label.casefold() for label in item.labels)
    tagged = any(tag.casefold() in BUG_TAGS for tag in title_tags(item.title))
    return labelled or tagged


def score_watch(item: ItemRecord, comments: list[CommentRecord], window: Window) -> WatchCandidate:
    """``comments``: the issue's in-window human comments, oldest first."""
    severity = severity_signals(f"{item.title}\n{item.body[:BODY_HEAD]}")
    breadth = breadth_signals(f"{item.title}\n{prose(item.body)[:BODY_HEAD]}")
    participants = thread_participants(item, comments, window)
    reactions = item.reactions + sum(c.reactions for c in comments)
    bug_like = is_bug_like(item)
    score = min(sum(weight for _, weight in severity), 10.0)
    score += 2.0 * bug_like + 1.0 * window.contains(item.created_at)
    score += 0.5 * min(len(comments), 10) + 1.0 * min(len(participants), 5) + reactions / 3
    score += 1.0 * min(len(breadth), 2)
    words = [word for word, _ in severity]
    return WatchCandidate(
        item=item,
        signals=words + breadth,
        score=round(score, 3),
        severity=words,
        breadth=breadth,
        bug_like=bug_like or bool(severity),
        window_comments=len(comments),
        participants=len(participants),
        reactions=reactions,
    )


def compute_watch(
    items: Iterable[ItemRecord],
    comments: Iterable[CommentRecord],
    window: Window,
    limit: int = 8,
) -> list[WatchCandidate]:
    """Open issues created in the window or discussed in it by humans, bug-like, best first.

    ``comments`` may include bots and out-of-window rows; both are dropped here.
    """
    talk: dict[int, list[CommentRecord]] = {}
    for comment in human_in_window(comments, window):
        talk.setdefault(comment.number, []).append(comment)
    candidates = []
    for item in items:
        if item.is_pr or item.state != "open" or item.is_bot:
            continue
        if not (window.contains(item.created_at) or item.number in talk):
            continue
        candidate = score_watch(item, talk.get(item.number, []), window)
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
