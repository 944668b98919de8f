"""The one place that makes untrusted text safe to print, whatever the output format.

``strip_invisible`` removes characters that change how text *looks* without being seen: NUL and
other control characters (except tab and newline), bidirectional overrides and isolates (which can
make a title read backwards, "Trojan Source"), and zero-width characters (which hide words from
readers and searches). Every renderer calls it on untrusted values at its boundary: Markdown
(``md_escape``), HTML pages (the site's Jinja ``finalize``), Atom feeds, JSON and the Jekyll
export. Escaping for each format (entities, Markdown punctuation) happens after it.
"""

from __future__ import annotations

import re
from typing import Any

_INVISIBLE = re.compile(
    "["
    "\x00-\x08\x0b-\x1f\x7f-\x9f"  # control characters, except tab and newline
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidirectional marks, overrides, isolates
    "\u200b-\u200d\u2060-\u2064\ufeff\u180e"  # zero-width spaces, joiners, invisible operators
    "]"
)


def strip_invisible(text: str) -> str:
    """``text`` without control, bidirectional-override and zero-width characters."""
    return _INVISIBLE.sub("", text)


def strip_invisible_tree(value: Any) -> Any:
    """``strip_invisible`` applied to every string (keys too) of a JSON-shaped value."""
    if isinstance(value, str):
        return strip_invisible(value)
    if isinstance(value, list):
        return [strip_invisible_tree(v) for v in value]
    if isinstance(value, dict):
        return {strip_invisible(k): strip_invisible_tree(v) for k, v in value.items()}
    return value
