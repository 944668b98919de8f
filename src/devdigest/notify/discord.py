"""Discord webhook, one embed.

Limits (discord.com/developers/docs, "Embed Limits"): title 256 characters, description 4096,
at most 25 fields, field name 256 and value 1024, footer text 2048, and at most 6000 characters
in all of an embed's title, description, field names and values, footer and author. Rate
limits are per route and announced in ``X-RateLimit-*`` headers; a 429 carries ``Retry-After``
and ``retry_after`` (seconds) in its body. ``allowed_mentions.parse = []`` makes sure no text
can ping anyone (``@everyone`` included).
"""

from __future__ import annotations

import re

import httpx

from devdigest.config import NotifyTarget
from devdigest.notify.base import SendContext
from devdigest.notify.digest import Digest
from devdigest.notify.text import Piece, clip, escape_line_starts, fit_lines, safe_url

TITLE_CHARS = 256
DESCRIPTION_CHARS = 4096
MAX_FIELDS = 25
FIELD_NAME_CHARS = 256
FIELD_VALUE_CHARS = 1024
FOOTER_CHARS = 2048
EMBED_CHARS = 6000
INTERVAL = 2.0  # seconds between two messages to one webhook (about 30 a minute)

_SPECIAL = re.compile(r"([\\`*_~|\[\]()<>])")


def escape(text: str) -> str:
    """Discord markdown: a backslash before each inline control character (``<`` included, so
    no ``<@id>``, ``<#channel>`` or ``<t:…>`` tag forms) and before line-opening marks."""
    return escape_line_starts(_SPECIAL.sub(r"\\\1", text))


def _line(text: str, url: str | None) -> str:
    link = safe_url(url)
    return f"• [{escape(text)}]({link})" if link else f"• {escape(text)}"


def render(digest: Digest) -> dict:
    title = clip(digest.title, TITLE_CHARS)
    footer = clip(digest.window, FOOTER_CHARS)
    fields = [
        {
            "name": clip(label, FIELD_NAME_CHARS),
            "value": clip(str(value), FIELD_VALUE_CHARS),
            "inline": True,
        }
        for label, value in digest.counts[:MAX_FIELDS]
    ]
    used = len(title) + len(footer) + sum(len(f["name"]) + len(f["value"]) for f in fields)
    pieces = []
    for section in digest.sections:
        pieces.append(Piece(f"**{escape(section.heading)}**", heading=True))
        pieces += [Piece(_line(line.text, line.url)) for line in section.lines]
    link = safe_url(digest.link)
    tail = f"\n[{escape(digest.open_label)}]({link})" if link else ""
    budget = min(DESCRIPTION_CHARS, EMBED_CHARS - used) - len(tail)
    embed: dict = {
        "title": title,
        "description": fit_lines(pieces, budget, f"*{escape(digest.more)}*") + tail,
        "fields": fields,
        "footer": {"text": footer},
    }
    if link:
        embed["url"] = link
    return {"embeds": [embed], "allowed_mentions": {"parse": []}}


def send(target: NotifyTarget, digest: Digest, ctx: SendContext) -> None:
    url = ctx.secret(target, "url_env")
    ctx.transport.pace(target.name, INTERVAL)
    url = str(httpx.URL(url).copy_merge_params({"wait": "true"}))  # errors come back in-line
    ctx.transport.post(url, name=target.name, json=render(digest))
