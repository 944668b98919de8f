"""A report as an HTML fragment: its Markdown through markdown-it with raw HTML disabled.

Safety: markdown-it escapes every text node and attribute; raw HTML in the Markdown is shown
as text; images are disabled (an offline site loads nothing remote); link targets pass an
allow-list of schemes (http, https, mailto, or no scheme), so ``javascript:``, ``data:``,
``vbscript:`` and ``file:`` links stay plain text.

Additions over plain CommonMark + tables:

- level-2 headings get stable ids from the fixed section order of a report (``summary``,
  ``focus-1``…, ``discussions``…), never from translated heading text; deeper headings get
  ``<section>-<n>``; the ids are returned with the heading text as a table of contents;
- every ``#N`` in a text node (never in code spans or inside existing links) links to
  ``https://github.com/OWNER/REPO/issues/N`` (GitHub redirects to the pull request when N is one);
- absolute links get ``rel="noopener"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.token import Token

from devdigest.models import DailyReport
from devdigest.render.markdown import render_markdown

# Sections in the order a report shows them; "focus" expands to focus-1, focus-2, … (one per area).
SECTION_ORDER = (
    "summary",
    "focus",
    "discussions",
    "topics",
    "changes",
    "activity",
    "watch",
    "continuity",
    "appendix",
    "provenance",
)
ISSUE_REF = re.compile(r"(?<![\w&/#])#(\d{1,7})\b")
_SCHEME = re.compile(r"^\s*([A-Za-z][A-Za-z0-9+.\-]*):")
SAFE_SCHEMES = frozenset({"http", "https", "mailto"})


@dataclass(frozen=True)
class TocEntry:
    level: int
    anchor: str
    text: str


@dataclass
class HtmlReport:
    """The rendered fragment and the headings it contains."""

    body: str
    toc: list[TocEntry] = field(default_factory=list)


def validate_link(url: str) -> bool:
    """Allow relative links, anchors and http(s)/mailto URLs; reject every other scheme."""
    match = _SCHEME.match(url)
    return match is None or match.group(1).lower() in SAFE_SCHEMES


def make_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
    md.disable("image")
    # Constructs a rendered report never uses; dropping them makes parsing ~20% faster.
    md.disable(["reference", "lheading", "code", "autolink", "html_block", "html_inline"])
    md.validateLink = validate_link
    return md


_MD = make_parser()


def section_ids(report: DailyReport) -> list[str]:
    """The anchors of the report's level-2 headings, in order."""
    ids: list[str] = []
    for name in SECTION_ORDER:
        if name == "focus":
            ids.extend(f"focus-{k}" for k in range(1, len(report.focus_areas) + 1))
        else:
            ids.append(name)
    return ids


def render_html(report: DailyReport, markdown: str | None = None) -> str:
    """The report as an HTML fragment (``markdown`` defaults to ``render_markdown(report)``)."""
    return render_html_parts(report, markdown).body


def render_html_parts(report: DailyReport, markdown: str | None = None) -> HtmlReport:
    """The HTML fragment and its table of contents."""
    if markdown is None:
        markdown = render_markdown(report)
    tokens = _MD.parse(markdown)
    toc = _anchor_headings(tokens, section_ids(report))
    base = f"https://github.com/{report.repo}/issues/"
    for token in tokens:
        if token.type == "inline" and token.children:
            token.children = _link_refs(token.children, base)
    _mark_external(tokens)
    return HtmlReport(body=_MD.renderer.render(tokens, _MD.options, {}), toc=toc)


def _anchor_headings(tokens: list[Token], ids: list[str]) -> list[TocEntry]:
    toc: list[TocEntry] = []
    section = "top"
    used: set[str] = set()
    h2 = sub = 0
    for k, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        level = int(token.tag[1])
        if level == 2:
            section = ids[h2] if h2 < len(ids) else f"section-{h2 + 1}"
            h2 += 1
            sub = 0
            anchor = section
        elif level > 2:
            sub += 1
            anchor = f"{section}-{sub}"
        else:
            anchor = "top" if "top" not in used else f"top-{k}"
        while anchor in used:
            anchor += "-x"
        used.add(anchor)
        token.attrSet("id", anchor)
        text = _plain_text(tokens[k + 1])
        if level >= 2:
            toc.append(TocEntry(level=level, anchor=anchor, text=text))
    return toc


def _plain_text(inline: Token) -> str:
    return "".join(
        child.content for child in inline.children or [] if child.type in ("text", "code_inline")
    ).strip()


def _link_refs(children: list[Token], base: str) -> list[Token]:
    out: list[Token] = []
    depth = 0
    for child in children:
        if child.type == "link_open":
            depth += 1
        elif child.type == "link_close":
            depth -= 1
        if child.type != "text" or depth > 0 or "#" not in child.content:
            out.append(child)
            continue
        out.extend(_split_refs(child.content, base))
    return out


def _split_refs(text: str, base: str) -> list[Token]:
    tokens: list[Token] = []
    pos = 0
    for match in ISSUE_REF.finditer(text):
        if match.start() > pos:
            tokens.append(_text(text[pos : match.start()]))
        link = Token("link_open", "a", 1, attrs={"href": base + match.group(1)})
        tokens += [link, _text(match.group(0)), Token("link_close", "a", -1)]
        pos = match.end()
    if pos < len(text):
        tokens.append(_text(text[pos:]))
    return tokens


def _text(content: str) -> Token:
    return Token("text", "", 0, content=content)


def _mark_external(tokens: list[Token]) -> None:
    for token in tokens:
        for child in token.children or []:
            if child.type == "link_open" and str(child.attrGet("href") or "").startswith(
                ("http://", "https://")
            ):
                child.attrSet("rel", "noopener")
