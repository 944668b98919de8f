"""Markdown bodies as text segments that keep their place in the source.

A body is parsed with markdown-it-py; each inline run (paragraph, heading, list item, table
cell) becomes a :class:`Segment` whose plain text (emphasis marks and link targets dropped) maps
character by character back to the source, so every fact can cite its exact span. Code blocks
and raw HTML become ``code`` segments: logs and tracebacks are evidence of a crash, never of a
measured figure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

_MD = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
_TEXT_CHILDREN = ("text", "code_inline")
_SECTION_LINE = re.compile(r"^\s*([^\n:：]{2,40}?)\s*[:：]?\s*$")


@dataclass(frozen=True)
class Segment:
    """A run of text: ``kind`` is title, heading, text, cell or code; ``section`` the template
    section it sits in (a lower-cased heading, "" before the first one)."""

    text: str
    offsets: tuple[int, ...]  # source offset of each character of ``text``
    kind: str
    section: str = ""

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The source span of ``text[start:end]``."""
        if not self.offsets:
            return (0, 0)
        end = max(end, start + 1)
        return (self.offsets[min(start, len(self.offsets) - 1)], self.offsets[end - 1] + 1)


@dataclass(frozen=True)
class Table:
    header: tuple[Segment, ...]
    rows: tuple[tuple[Segment, ...], ...]
    section: str = ""


@dataclass(frozen=True)
class Document:
    segments: tuple[Segment, ...]
    tables: tuple[Table, ...] = field(default=())

    def prose(self) -> list[Segment]:
        return [s for s in self.segments if s.kind != "code"]


def title_document(title: str) -> Document:
    return Document((Segment(title, tuple(range(len(title))), "title"),))


@lru_cache(maxsize=8192)
def parse_document(source: str) -> Document:
    """The segments and tables of the Markdown ``source``."""
    if not source.strip():
        return Document(())
    lines = _line_starts(source)
    state = _Walk(source, lines)
    for token in _MD.parse(source):
        state.visit(token)
    return Document(tuple(state.segments), tuple(state.tables))


def _line_starts(source: str) -> list[int]:
    starts = [0]
    for i, ch in enumerate(source):
        if ch == "\n":
            starts.append(i + 1)
    return starts


class _Walk:
    """One pass over the block tokens, remembering the section and the table being read."""

    def __init__(self, source: str, lines: list[int]) -> None:
        self.source, self.lines = source, lines
        self.cursor = 0
        self.section = ""
        self.segments: list[Segment] = []
        self.tables: list[Table] = []
        self.kind = "text"
        self.row: list[Segment] | None = None
        self.table_rows: list[tuple[Segment, ...]] = []

    def start_of(self, token: Token) -> int:
        if token.map:
            return max(self.cursor, self.lines[min(token.map[0], len(self.lines) - 1)])
        return self.cursor

    def visit(self, token: Token) -> None:
        kind = token.type
        if kind == "heading_open":
            self.kind = "heading"
        elif kind in ("th_open", "td_open"):
            self.kind = "cell"
        elif kind == "tr_open":
            self.row = []
        elif kind == "tr_close" and self.row is not None:
            self.table_rows.append(tuple(self.row))
            self.row = None
        elif kind == "table_close":
            rows = self.table_rows
            if rows:
                self.tables.append(Table(rows[0], tuple(rows[1:]), self.section))
            self.table_rows = []
        elif kind in ("fence", "code_block", "html_block"):
            self.code(token)
        elif kind == "inline":
            self.inline(token)

    def code(self, token: Token) -> None:
        content = token.content
        if not content.strip() or content.lstrip().startswith("<!--"):
            return
        start = self.source.find(content, self.start_of(token))
        if start < 0:
            return
        self.cursor = start + len(content)
        offsets = tuple(range(start, start + len(content)))
        self.segments.append(Segment(content, offsets, "code", self.section))

    def inline(self, token: Token) -> None:
        text, offsets = self.plain(token)
        kind, self.kind = self.kind, "text"
        if kind == "cell" and self.row is not None and not text.strip():
            self.row.append(Segment("", (), "cell", self.section))  # keeps the columns aligned
        if not text.strip():
            return
        if kind == "heading" or (kind == "text" and _is_bold_line(token)):
            self.section = section_key(text)
            kind = "heading"
        segment = Segment(text, tuple(offsets), kind, self.section)
        if kind == "cell" and self.row is not None:
            self.row.append(segment)
        self.segments.append(segment)

    def plain(self, token: Token) -> tuple[str, list[int]]:
        cursor = self.start_of(token)
        parts: list[str] = []
        offsets: list[int] = []
        for child in token.children or []:
            if child.type in ("softbreak", "hardbreak"):
                parts.append(" ")
                offsets.append(offsets[-1] + 1 if offsets else cursor)
            elif child.type in _TEXT_CHILDREN and child.content:
                found = self.source.find(child.content, cursor)
                base = found if found >= 0 else cursor
                parts.append(child.content)
                offsets.extend(range(base, base + len(child.content)))
                if found >= 0:
                    cursor = found + len(child.content)
        self.cursor = cursor
        return "".join(parts), offsets


def _is_bold_line(token: Token) -> bool:
    """A paragraph that is only bold text, as templates write ``**Test Plan**``."""
    children = [c for c in token.children or [] if c.type != "text" or c.content.strip(" :：")]
    return (
        len(children) == 3
        and children[0].type == "strong_open"
        and children[2].type == "strong_close"
        and len(children[1].content) <= 40
    )


def section_key(heading: str) -> str:
    """``"## Test Plan:"`` → ``"test plan"`` (emoji and punctuation trimmed)."""
    match = _SECTION_LINE.match(heading)
    text = match.group(1) if match else heading
    return " ".join(re.sub(r"[^\w\s/.+-]", " ", text).split()).casefold()
