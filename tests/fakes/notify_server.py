"""Fake notification receivers on 127.0.0.1 (real HTTP, stdlib, in a thread).

One server answers like Slack, Discord, Feishu, DingTalk, WeCom, Telegram and a generic signed
webhook, each under its own path prefix. Every request is checked against the platform's
payload shape and documented limits (the same figures as in ``devdigest.notify``, written here
independently) and against its signature when a secret is set; a payload that breaks a rule is
answered with the platform's error and logged with its problems. Faults are scripted per
platform: 429 with ``Retry-After`` (header or body), 500, or a platform error code.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import threading
from dataclasses import dataclass, field
from html.parser import HTMLParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

# the same webhook tokens the tests put in the environment
TOKENS = {"slack": "T0KEN-slack", "discord": "T0KEN-discord", "feishu": "T0KEN-feishu"}
SLACK_MRKDWN_ANGLE = re.compile(r"<(?!https?://[^|>\s]+\|[^<>]*>)")


@dataclass
class Fault:
    status: int = 429
    retry_after: str | None = "1"
    body: Any = None
    times: int = 1


@dataclass
class Received:
    platform: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    raw: bytes
    body: Any
    status: int
    problems: list[str] = field(default_factory=list)


class FakeReceivers:
    def __init__(self, secrets: dict[str, str] | None = None) -> None:
        self.secrets = secrets or {}  # platform → signing secret the receiver checks
        self.log: list[Received] = []
        self._faults: dict[str, list[Fault]] = {}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def urls(self) -> dict[str, str]:
        """The webhook URL of each platform (what a user exports in the environment)."""
        return {
            "slack": f"{self.url}/slack/services/{TOKENS['slack']}",
            "discord": f"{self.url}/discord/api/webhooks/1/{TOKENS['discord']}",
            "feishu": f"{self.url}/feishu/open-apis/bot/v2/hook/{TOKENS['feishu']}",
            "dingtalk": f"{self.url}/dingtalk/robot/send?access_token=T0KEN-ding",
            "wecom": f"{self.url}/wecom/cgi-bin/webhook/send?key=T0KEN-wecom",
            "telegram": f"{self.url}/telegram",
            "webhook": f"{self.url}/hook/T0KEN-hook",
        }

    def __enter__(self) -> FakeReceivers:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def fail(self, platform: str, *faults: Fault) -> None:
        with self._lock:
            self._faults.setdefault(platform, []).extend(faults)

    def received(self, platform: str | None = None, ok: bool | None = None) -> list[Received]:
        return [
            r
            for r in self.log
            if (platform is None or r.platform == platform)
            and (ok is None or (r.status < 400 and not r.problems) == ok)
        ]

    def _fault(self, platform: str) -> Fault | None:
        with self._lock:
            queue = self._faults.get(platform)
            if not queue:
                return None
            fault = queue[0]
            fault.times -= 1
            if fault.times <= 0:
                queue.pop(0)
            return fault

    def handle(self, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, dict, Any]:
        split = urlsplit(path)
        platform = split.path.strip("/").split("/", 1)[0]
        query = {k: v[0] for k, v in parse_qs(split.query).items()}
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        entry = Received(platform, split.path, query, headers, raw, body, 200)
        fault = self._fault(platform)
        if fault:
            status, extra, payload = _fault_answer(platform, fault)
        else:
            check = CHECKS.get(platform)
            entry.problems = check(self, entry) if check else [f"unknown platform {platform}"]
            status, extra, payload = _answer(platform, entry.problems)
        entry.status = status
        with self._lock:
            self.log.append(entry)
        return status, extra, payload


def _fault_answer(platform: str, fault: Fault) -> tuple[int, dict, Any]:
    headers = {"retry-after": fault.retry_after} if fault.retry_after else {}
    return fault.status, headers, fault.body if fault.body is not None else {"error": "fault"}


def _answer(platform: str, problems: list[str]) -> tuple[int, dict, Any]:
    if not problems:
        return 200, {}, OK[platform]
    message = "; ".join(problems)
    if platform in ("dingtalk", "wecom"):
        return 200, {}, {"errcode": 40058, "errmsg": message}
    if platform == "feishu":
        return 200, {}, {"code": 9499, "msg": message}
    if platform == "telegram":
        return 400, {}, {"ok": False, "error_code": 400, "description": message}
    return 400, {}, {"error": message}


OK: dict[str, Any] = {
    "slack": "ok",
    "discord": {"id": "1", "type": 0},
    "feishu": {"code": 0, "msg": "success", "data": {}},
    "dingtalk": {"errcode": 0, "errmsg": "ok"},
    "wecom": {"errcode": 0, "errmsg": "ok"},
    "telegram": {"ok": True, "result": {"message_id": 1}},
    "hook": {"received": True},
    "apprise": {"received": True},
}


# --- per-platform checks: a list of problems, empty when the payload is valid ---------------


def _too_long(problems: list[str], what: str, value: str, limit: int, size=len) -> None:
    if size(value) > limit:
        problems.append(f"{what} is {size(value)} > {limit}")


def _slack(fake: FakeReceivers, r: Received) -> list[str]:
    p: list[str] = []
    if not r.path.endswith(TOKENS["slack"]):
        return ["invalid_token"]
    blocks = (r.body or {}).get("blocks")
    if not isinstance(blocks, list) or not blocks or not isinstance(r.body.get("text"), str):
        return ["invalid_blocks: text and blocks required"]
    if len(blocks) > 50:
        p.append(f"{len(blocks)} blocks > 50")
    for block in blocks:
        kind = block.get("type")
        if kind == "header":
            if block["text"]["type"] != "plain_text":
                p.append("header must be plain_text")
            _too_long(p, "header", block["text"]["text"], 150)
        elif kind == "section":
            texts = [block["text"]["text"]] if "text" in block else []
            fields = block.get("fields", [])
            if len(fields) > 10:
                p.append(f"{len(fields)} fields > 10")
            for f in fields:
                _too_long(p, "field", f["text"], 2000)
            for text in texts:
                _too_long(p, "section text", text, 3000)
            for text in texts + [f["text"] for f in fields]:
                if SLACK_MRKDWN_ANGLE.search(text):
                    p.append(f"raw < in mrkdwn: {text[:80]!r}")
        elif kind == "context":
            if len(block["elements"]) > 10:
                p.append("context > 10 elements")
        else:
            p.append(f"unexpected block {kind}")
    return p


def _discord(fake: FakeReceivers, r: Received) -> list[str]:
    p: list[str] = []
    if not r.path.endswith(TOKENS["discord"]):
        return ["Invalid Webhook Token"]
    body = r.body or {}
    if body.get("allowed_mentions") != {"parse": []}:
        p.append("allowed_mentions must disable every ping")
    embeds = body.get("embeds") or []
    if not 1 <= len(embeds) <= 10:
        return [*p, "1-10 embeds expected"]
    total = 0
    for e in embeds:
        parts = {
            "title": (e.get("title", ""), 256),
            "description": (e.get("description", ""), 4096),
        }
        parts["footer"] = ((e.get("footer") or {}).get("text", ""), 2048)
        for what, (text, limit) in parts.items():
            _too_long(p, what, text, limit)
            total += len(text)
        fields = e.get("fields", [])
        if len(fields) > 25:
            p.append("fields > 25")
        for f in fields:
            _too_long(p, "field name", f["name"], 256)
            _too_long(p, "field value", f["value"], 1024)
            total += len(f["name"]) + len(f["value"])
    if total > 6000:
        p.append(f"embeds total {total} > 6000")
    return p


def _feishu(fake: FakeReceivers, r: Received) -> list[str]:
    p: list[str] = []
    if not r.path.endswith(TOKENS["feishu"]):
        return ["invalid token"]
    _too_long(p, "request body", r.raw.decode(), 20 * 1024, lambda s: len(s.encode()))
    body = r.body or {}
    secret = fake.secrets.get("feishu")
    if secret:
        key = f"{body.get('timestamp')}\n{secret}".encode()
        expected = base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()
        if body.get("sign") != expected:
            return ["sign match fail (19021)"]
    card = body.get("card") or {}
    if body.get("msg_type") != "interactive" or not card.get("header", {}).get("title"):
        p.append("not an interactive card with a header")
    for element in card.get("elements", []):
        content = (element.get("text") or {}).get("content", "")
        if "<at" in content or "<a " in content:
            p.append(f"raw tag in lark_md: {content[:80]!r}")
    return p


def _dingtalk(fake: FakeReceivers, r: Received) -> list[str]:
    p: list[str] = []
    if r.query.get("access_token") != "T0KEN-ding":
        return ["token is not exist (300001)"]
    secret = fake.secrets.get("dingtalk")
    if secret:
        stamp = r.query.get("timestamp", "")
        mac = hmac.new(secret.encode(), f"{stamp}\n{secret}".encode(), hashlib.sha256)
        if r.query.get("sign") != base64.b64encode(mac.digest()).decode():
            return ["sign not match (310000)"]
    body = r.body or {}
    md = body.get("markdown") or {}
    if body.get("msgtype") != "markdown" or not md.get("title") or not md.get("text"):
        return ["markdown title and text required"]
    if (body.get("at") or {}).get("isAtAll"):
        p.append("isAtAll must stay false")
    _too_long(p, "markdown text", md["text"], 4000, lambda s: len(s.encode()))
    return p


def _wecom(fake: FakeReceivers, r: Received) -> list[str]:
    if r.query.get("key") != "T0KEN-wecom":
        return ["invalid webhook url (93000)"]
    body = r.body or {}
    content = (body.get("markdown") or {}).get("content")
    if body.get("msgtype") != "markdown" or not content:
        return ["markdown content required"]
    p: list[str] = []
    _too_long(p, "markdown.content", content, 4096, lambda s: len(s.encode()))
    return p


class _TelegramHTML(HTMLParser):
    """Telegram's HTML mode: known tags only, balanced; collects the visible text."""

    ALLOWED = frozenset({"b", "i", "a", "code", "pre", "u", "s"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.problems: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag not in self.ALLOWED:
            self.problems.append(f"unsupported tag <{tag}>")
        self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack.pop() != tag:
            self.problems.append(f"unbalanced </{tag}>")

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _telegram(fake: FakeReceivers, r: Received) -> list[str]:
    if not r.path.endswith("/botT0KEN-telegram/sendMessage"):
        return ["Unauthorized"]
    body = r.body or {}
    if body.get("parse_mode") != "HTML" or not body.get("chat_id"):
        return ["chat_id and parse_mode HTML expected"]
    parser = _TelegramHTML()
    parser.feed(body.get("text", ""))
    parser.close()
    p = parser.problems + ([f"unclosed {parser.stack}"] if parser.stack else [])
    _too_long(p, "text after entities parsing", "".join(parser.text), 4096)
    if not "".join(parser.text).strip():
        p.append("message text is empty")
    return p


def _hook(fake: FakeReceivers, r: Received) -> list[str]:
    secret = fake.secrets.get("hook", "")
    stamp = r.headers.get("x-devdigest-timestamp", "")
    mac = hmac.new(secret.encode(), f"{stamp}.".encode() + r.raw, hashlib.sha256).hexdigest()
    given = r.headers.get("x-devdigest-signature", "")
    if not hmac.compare_digest(given, "sha256=" + mac):
        return ["bad signature"]
    if (r.body or {}).get("event") != "devdigest.digest":
        return ["unknown event"]
    return []


def _apprise(fake: FakeReceivers, r: Received) -> list[str]:
    """Apprise's ``json://`` service: ``{"version", "title", "message", "type"}``."""
    body = r.body or {}
    if not body.get("title") or not body.get("message") or body.get("version") != "1.0":
        return ["not an Apprise JSON notification"]
    return []


CHECKS = {
    "slack": _slack,
    "discord": _discord,
    "feishu": _feishu,
    "dingtalk": _dingtalk,
    "wecom": _wecom,
    "telegram": _telegram,
    "hook": _hook,
    "apprise": _apprise,
}


def _handler(fake: FakeReceivers) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, extra, payload = fake.handle(self.path, headers, raw)
            data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for name, value in extra.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    return Handler
