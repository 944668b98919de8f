"""Slack incoming webhook, Block Kit.

Limits (docs.slack.dev, Block Kit reference and "Sending messages using incoming webhooks"):
a message holds at most 50 blocks; a header block's plain_text at most 150 characters; a
section's text at most 3000 characters and at most 10 fields of at most 2000 characters each;
a context block at most 10 elements; the top-level ``text`` is truncated past 40,000
characters. Incoming webhooks allow about one message per second (rate-limit tier "special"),
answering 429 with ``Retry-After`` beyond that. mrkdwn escapes only ``&``, ``<``, ``>``.
"""

from __future__ import annotations

from devdigest.config import NotifyTarget
from devdigest.notify.base import SendContext
from devdigest.notify.digest import Digest
from devdigest.notify.text import Piece, clip, escape_slack, fit_lines, safe_url

HEADER_CHARS = 150
SECTION_CHARS = 3000
FIELD_CHARS = 2000
MAX_FIELDS = 10
MAX_BLOCKS = 50
TEXT_CHARS = 40_000
INTERVAL = 1.0  # seconds between two messages to one webhook


def _line(text: str, url: str | None) -> str:
    link = safe_url(url)
    return f"• <{link}|{escape_slack(text)}>" if link else f"• {escape_slack(text)}"


def render(digest: Digest) -> dict:
    more = f"_{escape_slack(digest.more)}_"
    title = clip(digest.title, HEADER_CHARS)
    blocks: list[dict] = [
        {"type": "header", "text": {"type": "plain_text", "text": title}},
        {"type": "context", "elements": [{"type": "mrkdwn", "text": escape_slack(digest.window)}]},
    ]
    if digest.counts:
        fields = [
            {"type": "mrkdwn", "text": clip(f"*{escape_slack(label)}*\n{value}", FIELD_CHARS)}
            for label, value in digest.counts[:MAX_FIELDS]
        ]
        blocks.append({"type": "section", "fields": fields})
    room = MAX_BLOCKS - len(blocks) - 1  # one left for the link
    for section in digest.sections[:room]:
        pieces = [Piece(f"*{escape_slack(section.heading)}*", heading=True)]
        pieces += [Piece(_line(line.text, line.url)) for line in section.lines]
        text = fit_lines(pieces, SECTION_CHARS, more)
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": text}})
    link = safe_url(digest.link)
    if link:
        label = escape_slack(digest.open_label)
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": f"<{link}|{label}>"}})
    fallback = clip(f"{digest.title} — {digest.counts_line()}", TEXT_CHARS)
    return {"text": escape_slack(fallback), "blocks": blocks}


def send(target: NotifyTarget, digest: Digest, ctx: SendContext) -> None:
    url = ctx.secret(target, "url_env")
    ctx.transport.pace(target.name, INTERVAL)
    ctx.transport.post(url, name=target.name, json=render(digest))
