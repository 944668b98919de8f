"""One message body for the text platforms (DingTalk, WeCom, Telegram, plain-text email):
title, window, counts, the sections' lines as bullets, then the link, fitted to a limit."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from devdigest.notify.digest import Digest
from devdigest.notify.text import (
    Measure,
    Piece,
    chars,
    clip,
    escape_markdown,
    fit_lines,
    safe_url,
)

TITLE_CHARS = 200


@dataclass(frozen=True, slots=True)
class Style:
    escape: Callable[[str], str]
    title: str = "{}"  # each a format string around escaped text
    heading: str = "{}"
    note: str = "{}"
    link: str = "{text}: {url}"
    bullet: str = "- "
    escape_url: Callable[[str], str] = str  # URLs are already safe_url; HTML also wants &amp;


MARKDOWN = Style(
    escape_markdown, title="### {}", heading="**{}**", note="*{}*", link="[{text}]({url})"
)


def render_body(digest: Digest, style: Style, limit: int, measure: Measure = chars) -> str:
    esc = style.escape
    head = [style.title.format(esc(clip(digest.title, TITLE_CHARS))), esc(digest.window)]
    if digest.counts:
        head.append(esc(digest.counts_line()))
    pieces = []
    for section in digest.sections:
        pieces.append(Piece("\n" + style.heading.format(esc(section.heading)), heading=True))
        pieces += [Piece(style.bullet + _item(ln.text, ln.url, style)) for ln in section.lines]
    link = safe_url(digest.link)
    tail = ""
    if link:
        tail = "\n\n" + style.link.format(text=esc(digest.open_label), url=style.escape_url(link))
    fixed = "\n".join(head) + tail
    more = style.note.format(esc(digest.more))
    body = fit_lines(pieces, limit - measure(fixed) - 1, more, measure)
    return "\n".join(head) + "\n" + body + tail


def _item(text: str, url: str | None, style: Style) -> str:
    link = safe_url(url)
    if not link:
        return style.escape(text)
    return style.link.format(text=style.escape(text), url=style.escape_url(link))
