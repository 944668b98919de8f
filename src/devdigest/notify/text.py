"""Fitting text into a platform's limits without cutting a word or a link, and escaping.

Messages are built from whole lines: a line that does not fit is left out, together with every
line after it, and a "more on the site" line takes their place. Only a single field that must
be present (a title) is shortened, at a word boundary, with "…".
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Measure = Callable[[str], int]

_CJK = "\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
# a boundary: whitespace, or next to a CJK character (those scripts have no spaces between words)
_BOUNDARY = re.compile(rf"(?<=\s)|(?=\s)|(?<=[{_CJK}])|(?=[{_CJK}])")
_SAFE_URL = re.compile(r"^https?://[^\s<>|\"'`\\\x00-\x1f]+$")


def chars(text: str) -> int:
    return len(text)


def utf8_bytes(text: str) -> int:
    return len(text.encode("utf-8"))


def clip(text: str, limit: int, measure: Measure = chars) -> str:
    """``text`` if it fits, else its longest prefix ending at a word boundary + "…"."""
    if measure(text) <= limit:
        return text
    cuts = [m.start() for m in _BOUNDARY.finditer(text)]
    for cut in reversed(cuts):
        candidate = text[:cut].rstrip()
        if candidate and measure(candidate + "…") <= limit:
            return candidate + "…"
    return ""


@dataclass(frozen=True, slots=True)
class Piece:
    """A line of a message body; ``heading`` lines are dropped when nothing follows them."""

    text: str
    heading: bool = False


def fit_lines(
    pieces: Sequence[Piece], limit: int, more: str, measure: Measure = chars, sep: str = "\n"
) -> str:
    """Join whole pieces in order while they fit in ``limit``; if any is left out, end with
    ``more`` (which is always given room)."""
    full = sep.join(p.text for p in pieces)
    if measure(full) <= limit:
        return full
    kept: list[Piece] = []
    for piece in pieces:
        trial = sep.join([*(p.text for p in kept), piece.text, more])
        if measure(trial) > limit:
            break
        kept.append(piece)
    while kept and kept[-1].heading:
        kept.pop()
    return sep.join([*(p.text for p in kept), more])


def safe_url(url: str | None) -> str | None:
    """An http(s) URL that is safe inside any platform's link syntax, else None."""
    return url if url and _SAFE_URL.match(url) else None


def escape_html(text: str) -> str:
    return html.escape(text, quote=True)


def escape_slack(text: str) -> str:
    """Slack mrkdwn: only ``&``, ``<`` and ``>`` are control characters."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_MD_INLINE = re.compile(r"([\\`*_~\[\]()|])")
_MD_LINE_START = re.compile(r"^(\s*)([#+>-]|\d+\.)", re.MULTILINE)


def escape_markdown(text: str) -> str:
    """A backslash before each inline Markdown control character and before a line-opening
    ``#``, ``+``, ``-``, ``>`` or ``1.``; ``<`` and ``&`` as entities (so no HTML tag, ``<at>``
    mention or ``<font>`` passes through)."""
    text = _MD_INLINE.sub(r"\\\1", text.replace("&", "&amp;").replace("<", "&lt;"))
    return escape_line_starts(text)


def escape_line_starts(text: str) -> str:
    """A backslash before a line-opening heading, list or quote mark."""
    return _MD_LINE_START.sub(_escape_line_start, text)


def _escape_line_start(match: re.Match[str]) -> str:
    indent, mark = match.groups()
    return indent + (mark[:-1] + "\\." if mark.endswith(".") else "\\" + mark)
