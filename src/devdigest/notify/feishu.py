"""Feishu / Lark custom bot (webhook), interactive card, optional signature.

Documented (open.feishu.cn, "自定义机器人使用指南"): the request body is at most 20 KB; each
custom bot sends at most 100 messages a minute and 5 a second (error 11232 when throttled); a
signed request adds ``timestamp`` (seconds) and ``sign`` = base64(HmacSHA256(key=timestamp +
"\\n" + secret, msg="")) to the body. A failure is ``code`` ≠ 0 in the JSON answer. lark_md
text is escaped as Markdown with ``<``/``&`` as entities, so no ``<at>`` tag can pass.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

from devdigest.config import NotifyTarget
from devdigest.errors import NotifyError
from devdigest.notify.base import SendContext
from devdigest.notify.digest import Digest
from devdigest.notify.text import Piece, clip, escape_markdown, fit_lines, safe_url, utf8_bytes

BODY_BYTES = 20 * 1024
TITLE_CHARS = 200
INTERVAL = 0.2  # 5 messages a second
_RESERVE = 200  # bytes kept for the signature fields


def _md(text: str) -> dict:
    return {"tag": "div", "text": {"tag": "lark_md", "content": text}}


def _line(text: str, url: str | None) -> str:
    link = safe_url(url)
    return f"- [{escape_markdown(text)}]({link})" if link else f"- {escape_markdown(text)}"


def render(digest: Digest) -> dict:
    head = escape_markdown(digest.window)
    if digest.counts:
        head += "\n" + escape_markdown(digest.counts_line())
    body = _md("")
    elements: list[dict] = [_md(head), body]
    link = safe_url(digest.link)
    if link:
        text = {"tag": "plain_text", "content": digest.open_label}
        button = {"tag": "button", "text": text, "url": link, "type": "primary"}
        elements.append({"tag": "action", "actions": [button]})
    title = {"tag": "plain_text", "content": clip(digest.title, TITLE_CHARS)}
    card = {
        "config": {"wide_screen_mode": True},
        "header": {"title": title, "template": "blue"},
        "elements": elements,
    }
    payload = {"msg_type": "interactive", "card": card}
    pieces = []
    for section in digest.sections:
        pieces.append(Piece(f"**{escape_markdown(section.heading)}**", heading=True))
        pieces += [Piece(_line(line.text, line.url)) for line in section.lines]
    budget = BODY_BYTES - _RESERVE - size(payload)
    more = f"*{escape_markdown(digest.more)}*"
    body["text"]["content"] = fit_lines(pieces, budget, more, _json_bytes)
    if not pieces:
        elements.remove(body)
    return payload


def size(payload: dict) -> int:
    return len(encode(payload))


def encode(payload: dict) -> bytes:
    return json.dumps(payload, ensure_ascii=False).encode("utf-8")


def _json_bytes(text: str) -> int:
    return utf8_bytes(json.dumps(text, ensure_ascii=False)) - 2


def sign(secret: str, timestamp: int) -> str:
    key = f"{timestamp}\n{secret}".encode()
    return base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()


def send(target: NotifyTarget, digest: Digest, ctx: SendContext) -> None:
    url = ctx.secret(target, "url_env")
    secret = ctx.secret(target, "secret_env", required=False)
    payload = render(digest)
    if secret:
        stamp = int(ctx.now.timestamp())
        payload = {"timestamp": str(stamp), "sign": sign(secret, stamp), **payload}
    ctx.transport.pace(target.name, INTERVAL)
    headers = {"content-type": "application/json; charset=utf-8"}
    response = ctx.transport.post(url, name=target.name, content=encode(payload), headers=headers)
    body = response.json()
    code = body.get("code", body.get("StatusCode", 0)) if isinstance(body, dict) else -1
    if code != 0:
        raise NotifyError(f"{target.name}: Feishu refused the card (code {code}); check the bot")
