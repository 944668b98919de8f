"""Telegram Bot API ``sendMessage``, HTML parse mode.

Documented (core.telegram.org/bots/api#sendmessage, and the Bots FAQ on broadcasting): text is
1-4096 characters after entities parsing; in HTML mode only ``<``, ``>``, ``&`` (and ``"`` in
attributes) need escaping; a bot should send at most one message a second to a chat and 20 a
minute to a group. A 429 answers ``{"ok": false, "parameters": {"retry_after": N}}``.
"""

from __future__ import annotations

from devdigest.config import NotifyTarget
from devdigest.errors import NotifyError
from devdigest.notify.base import SendContext
from devdigest.notify.body import Style, render_body
from devdigest.notify.digest import Digest
from devdigest.notify.text import escape_html

TEXT_CHARS = 4096
INTERVAL = 3.0  # 20 messages a minute to a group
STYLE = Style(
    escape_html,
    title="<b>{}</b>",
    heading="<b>{}</b>",
    note="<i>{}</i>",
    link='<a href="{url}">{text}</a>',
    bullet="• ",
    escape_url=escape_html,
)


def render(digest: Digest, chat_id: str) -> dict:
    return {
        "chat_id": chat_id,
        "text": render_body(digest, STYLE, TEXT_CHARS),
        "parse_mode": "HTML",
        "link_preview_options": {"is_disabled": True},
    }


def send(target: NotifyTarget, digest: Digest, ctx: SendContext) -> None:
    token = ctx.secret(target, "token_env")
    url = f"{target.api_url.rstrip('/')}/bot{token}/sendMessage"
    ctx.transport.pace(target.name, INTERVAL)
    response = ctx.transport.post(url, name=target.name, json=render(digest, target.chat_id or ""))
    body = response.json()
    if not isinstance(body, dict) or not body.get("ok"):
        raise NotifyError(f"{target.name}: Telegram refused the message; check chat_id")
