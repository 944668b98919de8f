"""WeCom (企业微信) group robot, markdown message.

Documented (developer.work.weixin.qq.com/document/path/91770, "群机器人配置说明"): markdown
``content`` at most 4096 bytes of UTF-8; each robot at most 20 messages a minute. A failure is
HTTP 200 with ``errcode`` ≠ 0 (45009: too frequent; 40058: content too long).
"""

from __future__ import annotations

from devdigest.config import NotifyTarget
from devdigest.notify.base import SendContext
from devdigest.notify.body import MARKDOWN, render_body
from devdigest.notify.digest import Digest
from devdigest.notify.dingtalk import check_errcode
from devdigest.notify.text import utf8_bytes

CONTENT_BYTES = 4096
INTERVAL = 3.0  # 20 messages a minute


def render(digest: Digest) -> dict:
    return {
        "msgtype": "markdown",
        "markdown": {"content": render_body(digest, MARKDOWN, CONTENT_BYTES, utf8_bytes)},
    }


def send(target: NotifyTarget, digest: Digest, ctx: SendContext) -> None:
    url = ctx.secret(target, "url_env")
    ctx.transport.pace(target.name, INTERVAL)
    response = ctx.transport.post(url, name=target.name, json=render(digest))
    check_errcode(target.name, response.json())
