"""Sentence extraction from issue, PR and comment bodies (pure text processing, no network)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from devdigest.analysis.discussions import is_bare_approval as bare_approval

LIMIT = 200

_FENCE = re.compile(r"^\s*(```|~~~)")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s*(.*?)\s*#*\s*$")
_MENTION = re.compile(r"(?<![\w/@.])@([A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“'(\[`])|(?<=[。！？])\s*")
_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s*)?")
_LOG_LINE = re.compile(
    r"^\s*(Traceback|File \"|\w+(Error|Exception|Warning):|\$ |>>>|at [\w.$]+\(|"
    r"(INFO|WARNING|ERROR|DEBUG)\b|\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}|\(\w+ pid=\d+\))"
)
_THANKS_ONLY = re.compile(r"^\s*(thanks|thank you|ty)\b[^.!?]{0,60}[.!]*\s*$", re.I)
_LOW_VALUE = re.compile(r"^\s*(nit\b|done\.?$|fixed\.?$|good catch|rebased|ping\b|bump\b)", re.I)
DISAGREEMENT = (
    "not sure",
    "concern",
    "instead",
    "why not",
    "disagree",
    "i'd rather",
    "i would rather",
    "don't think",
    "do not think",
    "don't see why",
    "opposite",
    "conflict",
    "can we wait",
    "should not",
    "shouldn't",
    "不同意",
    "担心",
)
SKIP_SECTIONS = (
    "environment",
    "test plan",
    "test result",
    "checklist",
    "before submitting",
    "essential elements",
    "documentation update",
    "release notes",
    "cc",
)
SUMMARY_SECTIONS = (
    "purpose",
    "summary",
    "description",
    "describe the bug",
    "motivation",
    "the feature, motivation and pitch",
    "proposal",
    "what this pr does",
    "overview",
)


def neutralize_mentions(text: str) -> str:
    """``@login`` → ``login``: a report names people without pinging them."""
    return _MENTION.sub(r"\1", text)


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def plain(text: str) -> str:
    """Inline Markdown reduced to readable text: links, images, emphasis and code marks go."""
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", text)
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<(https?://[^>]+)>", r"\1", text)
    text = re.sub(r"`([^`]*)`", r"\1", text)
    text = re.sub(r"(\*\*|__)(.+?)\1", r"\2", text)
    text = re.sub(r"<[^>]+>", "", text)
    return squash(neutralize_mentions(text))


def sections(body: str) -> list[tuple[str, list[str]]]:
    """``(heading, paragraphs)`` in order; quotes, code blocks, logs and tables are dropped."""
    body = _HTML_COMMENT.sub("", body or "")
    out: list[tuple[str, list[str]]] = [("", [])]
    para: list[str] = []
    fenced = False

    def flush() -> None:
        if para:
            out[-1][1].append(plain(" ".join(para)))
            para.clear()

    for line in body.splitlines():
        if _FENCE.match(line):
            flush()
            fenced = not fenced
            continue
        heading = _HEADING.match(line)
        if fenced:
            continue
        if heading:
            flush()
            out.append((plain(heading.group(1)).lower(), []))
        elif _skip_line(line):
            flush()
        elif _LIST_MARK.match(line):
            flush()
            para.append(_LIST_MARK.sub("", line))
        else:
            para.append(line.strip())
    flush()
    return [(name, [p for p in paras if p]) for name, paras in out if any(paras)]


def _skip_line(line: str) -> bool:
    stripped = line.strip()
    if not stripped or stripped.startswith((">", "|", "<details", "</details", "<summary")):
        return True
    if _LOG_LINE.match(line) or line.startswith(("    ", "\t")):
        return True
    letters = sum(ch.isalpha() for ch in stripped)
    return letters < len(stripped) * 0.4


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def sentences_of(body: str) -> list[str]:
    """Every sentence of the body's prose (see :func:`sections`), in order."""
    return [s for _, paras in sections(body) for p in paras for s in split_sentences(p)]


def trim(text: str, limit: int = LIMIT) -> str:
    """At most ``limit`` characters, cut at a sentence boundary, else a clause, else a word."""
    text = squash(text)
    if len(text) <= limit:
        return text
    kept = ""
    for sentence in split_sentences(text):
        if len(kept) + len(sentence) + 1 > limit:
            break
        kept = f"{kept} {sentence}".strip()
    if kept:
        return kept
    head = text[: limit - 1]
    for mark in ("; ", ", ", "；", "，", " "):
        cut = head.rfind(mark)
        if cut > limit // 2:
            return head[:cut].rstrip(" ,;，；") + "…"
    return head + "…"


def summary_sentences(body: str, count: int = 2, title: str = "") -> list[str]:
    """The first sentences of the body's summary section (or its first paragraph), skipping
    any that only repeat ``title``."""
    found = sections(body)
    chosen = [p for name, paras in found if _is_summary(name) for p in paras]
    if not chosen:
        chosen = [p for name, paras in found if not _is_skipped(name) for p in paras]
    sentences = [
        s
        for p in chosen
        for s in split_sentences(p)
        if _meaningful(s) and not repeats_title(s, title)
    ]
    return sentences[:count]


def first_sentence(body: str, title: str = "") -> str | None:
    found = summary_sentences(body, 1, title)
    return trim(found[0]) if found else None


def _letters(text: str) -> str:
    text = re.sub(r"^(\[[^\]]*\]\s*:?\s*)+", "", text)  # leading [Tag] prefixes
    return re.sub(r"[\W_]+", "", text).lower()


def repeats_title(sentence: str, title: str) -> bool:
    """Whether ``sentence`` says no more than ``title`` (same words, tags and punctuation aside)."""
    said, titled = _letters(sentence), _letters(title)
    return bool(titled) and said in titled


def _is_summary(name: str) -> bool:
    return any(key in name for key in SUMMARY_SECTIONS)


def _is_skipped(name: str) -> bool:
    return any(name.startswith(key) for key in SKIP_SECTIONS)


def _meaningful(sentence: str) -> bool:
    words = re.findall(r"[A-Za-z\u4e00-\u9fff]+", sentence)
    return len(words) >= 3 and not re.match(
        r"^(fixes|closes|resolves|fix|related to) #\d+", sentence, re.I
    )


def is_bare_approval(text: str) -> bool:
    return bare_approval(plain(text))


def has_disagreement(text: str) -> bool:
    lowered = f" {text.lower()} "
    return any(marker in lowered for marker in DISAGREEMENT)


def score_sentence(sentence: str) -> float:
    """How much a sentence says about its writer's position (higher is better)."""
    if bare_approval(sentence) or _THANKS_ONLY.match(sentence):
        return -1.0
    score = min(len(sentence), 160) / 160
    if len(re.findall(r"[A-Za-z\u4e00-\u9fff]+", sentence)) < 4:
        score -= 0.6
    if _LOW_VALUE.match(sentence):
        score -= 0.8
    if has_disagreement(sentence) or sentence.endswith(("?", "？")):
        score += 0.5
    if re.search(r"\d", sentence):
        score += 0.2
    return score


def best_sentences(bodies: Iterable[str], limit: int = LIMIT) -> str | None:
    """The most substantive sentence(s) among ``bodies``, joined with the next one if it fits."""
    best: tuple[float, int, list[str], int] | None = None
    for order, body in enumerate(bodies):
        sentences = sentences_of(body)
        for k, sentence in enumerate(sentences):
            score = score_sentence(sentence)
            if score > 0 and (best is None or score > best[0]):
                best = (score, order, sentences, k)
    if best is None:
        return None
    _, _, sentences, k = best
    text = sentences[k]
    following = sentences[k + 1] if k + 1 < len(sentences) else ""
    if following and score_sentence(following) > 0.3 and len(text) + len(following) < limit:
        text = f"{text} {following}"
    return trim(text, limit)
