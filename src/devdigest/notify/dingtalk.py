"""DingTalk custom robot (webhook), markdown message, optional signature.

Documented (open.dingtalk.com, "自定义机器人接入" and "自定义机器人安全设置"): each robot
sends at most 20 messages a minute, past which it is throttled for 10 minutes; a signed request
adds ``timestamp`` (ms) and ``sign`` = urlencode(base64(HmacSHA256(key=secret,
msg=timestamp + "\\n" + secret))) to the query. A failure is HTTP 200 with ``errcode`` ≠ 0. No
size limit for markdown text is documented; we keep it under 4000 UTF-8 bytes, just under
WeCom's documented 4096.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

import httpx

from devdigest.config import NotifyTarget
from devdigest.errors import NotifyError
from devdigest.notify.base import SendContext
from devdigest.notify.body import MARKDOWN, render_body
from devdigest.notify.digest import Digest
from devdigest.notify.text import clip, utf8_bytes

TEXT_BYTES = 4000
INTERVAL = 3.0  # 20 messages a minute


def render(digest: Digest) -> dict:
    text = render_body(digest, MARKDOWN, TEXT_BYTES, utf8_bytes)
    return {
        "msgtype": "markdown",
        "markdown": {"title": clip(digest.title, 100), "text": text},
        "at": {"isAtAll": False, "atMobiles": [], "atUserIds": []},
    }


def sign(secret: str, timestamp_ms: int) -> str:
    message = f"{timestamp_ms}\n{secret}".encode()
    digest = hmac.new(secret.encode(), message, hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


def send(target: NotifyTarget, digest: Digest, ctx: SendContext) -> None:
    url = ctx.secret(target, "url_env")
    secret = ctx.secret(target, "secret_env", required=False)
    if secret:  # added to the webhook's own query (access_token=…)
        stamp = int(ctx.now.timestamp() * 1000)
        params = {"timestamp": str(stamp), "sign": sign(secret, stamp)}
        url = str(httpx.URL(url).copy_merge_params(params))
    ctx.transport.pace(target.name, INTERVAL)
    response = ctx.transport.post(url, name=target.name, json=render(digest))
    check_errcode(target.name, response.json())


def check_errcode(name: str, body: object) -> None:
    """DingTalk and WeCom answer HTTP 200 with ``errcode`` ≠ 0 on failure."""
    if not isinstance(body, dict) or body.get("errcode", 0) != 0:
        detail = " ".join(str(body)[:200].split())
        raise NotifyError(f"{name}: the robot refused the message ({detail}); check its settings")
