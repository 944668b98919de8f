"""A generic JSON webhook, signed with HMAC-SHA256.

The body is the digest as JSON (``{"event": "devdigest.digest", "digest": {...}}``). Headers:
``X-Devdigest-Timestamp`` (Unix seconds) and ``X-Devdigest-Signature: sha256=<hex>``, the
HMAC-SHA256 with the shared secret of ``<timestamp>.<raw body>``. A receiver recomputes it over
the raw bytes, compares in constant time and rejects old timestamps (replays).
"""

from __future__ import annotations

import hashlib
import hmac
import json

from devdigest.config import NotifyTarget
from devdigest.notify.base import SendContext
from devdigest.notify.digest import Digest


def render(digest: Digest) -> bytes:
    body = {"event": "devdigest.digest", "digest": digest.model_dump(mode="json")}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def signature(secret: str, timestamp: int, body: bytes) -> str:
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def send(target: NotifyTarget, digest: Digest, ctx: SendContext) -> None:
    url = ctx.secret(target, "url_env")
    secret = ctx.secret(target, "secret_env") or ""
    body = render(digest)
    stamp = int(ctx.now.timestamp())
    headers = {
        "content-type": "application/json; charset=utf-8",
        "x-devdigest-timestamp": str(stamp),
        "x-devdigest-signature": signature(secret, stamp, body),
    }
    ctx.transport.post(url, name=target.name, content=body, headers=headers)
