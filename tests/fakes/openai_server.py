"""A fake OpenAI-compatible server on 127.0.0.1 (real HTTP, stdlib, in a thread).

``/v1/models`` and ``/v1/chat/completions``. Each chat call is identified by its task (the
json_schema name, else the ``Task: NAME`` line of the system prompt) and, for per-thread calls,
the item number at the head of the ``<thread>`` block. Replies are scripted per (task, number)
or, by default, echoed: a valid structured reply built only from the data in the prompt.
Faults: 401 on a bad key, 404 for an unknown model, scripted 429 (with Retry-After) / 500, slow
replies, malformed JSON, any text at all.

Profiles (``FakeOpenAI(profile=...)``) mimic how real servers treat ``response_format``:
each type is enforced (the reply is bare JSON; json_schema replies follow the schema), rejected
(with the server's status and error shape) or ignored (the "model" answers prose around JSON, and
only knows the shape when the prompt spells the schema out).
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_TASK = re.compile(r"^Task: (\w+)", re.MULTILINE)
_HEAD = re.compile(r"<thread>\n#(\d+) \((pull request|issue), (\w+)\): (.*)")


@dataclass(frozen=True)
class Profile:
    """How one kind of server answers each ``response_format`` type."""

    json_schema: str  # "enforce", "ignore" or "reject STATUS message"
    json_object: str
    json_word: bool = False  # json_object needs the word "json" in the messages (OpenAI API)
    flat_errors: bool = False  # vLLM: {"object": "error", "message": …} instead of {"error": …}


PROFILES = {
    "openai": Profile("enforce", "enforce", json_word=True),
    "vllm": Profile("enforce", "enforce", flat_errors=True),
    "llamacpp": Profile(  # llama-cpp-python 0.3.36's server: a validation error, as HTTP 500
        "reject 500 1 validation error:\n  {'type': 'literal_error', 'loc': ('body', "
        "'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\"}",
        "enforce",
    ),
    "ollama": Profile("ignore", "enforce"),
    "deepseek": Profile(
        "reject 400 This response_format type is unavailable now", "enforce", json_word=True
    ),
    "prose": Profile("ignore", "ignore"),
}
HINT = '"properties"'  # in the system prompt when the client spells the JSON schema out


@dataclass
class Scripted:
    """One scripted answer; ``times`` calls consume it (a large number: every call)."""

    content: str | None = None  # None: the echo reply
    status: int = 200
    retry_after: str | None = None
    delay: float = 0.0
    times: int = 1


@dataclass
class Logged:
    path: str
    task: str | None
    number: int | None
    status: int
    body: dict[str, Any] = field(default_factory=dict)


class FakeOpenAI:
    def __init__(
        self,
        *,
        models: tuple[str, ...] = ("fake-model",),
        api_key: str = "test-key",
        latency: float = 0.0,
        profile: str = "openai",
    ) -> None:
        self.models, self.api_key, self.latency = list(models), api_key, latency
        self.profile = PROFILES[profile]
        self.log: list[Logged] = []
        self._scripts: dict[tuple[str, int | None], list[Scripted]] = {}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    # --- lifecycle ---------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # --- scripting and inspection --------------------------------------------------------------

    def script(self, task: str, *replies: Scripted, number: int | None = None) -> None:
        with self._lock:
            self._scripts.setdefault((task, number), []).extend(replies)

    def chat_calls(self, task: str | None = None) -> list[Logged]:
        """Chat calls for ``task``; without one, every call but the output-mode probes."""
        return [
            e
            for e in self.log
            if e.path.endswith("/chat/completions")
            and (e.task == task if task else e.task != "probe")
        ]

    def _next_script(self, task: str, number: int | None) -> Scripted | None:
        with self._lock:
            for key in ((task, number), (task, None)):
                queue = self._scripts.get(key)
                if queue:
                    reply = queue[0]
                    reply.times -= 1
                    if reply.times <= 0:
                        queue.pop(0)
                    return reply
        return None

    # --- request handling ----------------------------------------------------------------------

    def handle(self, method: str, path: str, auth: str, body: dict) -> tuple[int, dict, dict]:
        """(status, headers, JSON body) for one request; also logged."""
        task, number = _identify(body)
        status, headers, payload = self._answer(method, path, auth, body, task, number)
        with self._lock:
            self.log.append(Logged(path, task, number, status, body))
        return status, headers, payload

    def _answer(self, method, path, auth, body, task, number) -> tuple[int, dict, dict]:
        if auth != f"Bearer {self.api_key}":
            return 401, {}, _error("Incorrect API key provided.", "invalid_api_key")
        if method == "GET" and path.rstrip("/").endswith("/models"):
            data = [
                {"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in self.models
            ]
            return 200, {}, {"object": "list", "data": data}
        if method != "POST" or not path.endswith("/chat/completions"):
            return 404, {}, _error(f"no route {method} {path}", "not_found")
        if body.get("model") not in self.models:
            return (
                404,
                {},
                _error(f"The model {body.get('model')} does not exist.", "model_not_found"),
            )
        fmt = (body.get("response_format") or {}).get("type")
        rule = getattr(self.profile, fmt) if fmt in ("json_schema", "json_object") else "ignore"
        if rule.startswith("reject"):
            _, status, message = rule.split(" ", 2)
            return int(status), {}, self._error(message, "bad_format")
        if fmt == "json_object" and self.profile.json_word and "json" not in _all_text(body):
            message = "'messages' must contain the word 'json' in some form"
            return 400, {}, self._error(message, "bad_format")
        scripted = self._next_script(task or "", number) if task else None
        time.sleep(self.latency + (scripted.delay if scripted else 0.0))
        if scripted and scripted.status != 200:
            headers = {"retry-after": scripted.retry_after} if scripted.retry_after else {}
            return scripted.status, headers, self._error(f"scripted {scripted.status}", "scripted")
        if scripted and scripted.content is not None:
            content = scripted.content
        elif rule == "enforce":
            content = json.dumps(echo(task or "", body), ensure_ascii=False)
        else:
            content = _prose(task or "", body)
        return 200, {}, _completion(body, content)

    def _error(self, message: str, code: str) -> dict:
        if self.profile.flat_errors:
            return {"object": "error", "message": message, "type": "BadRequestError", "code": 400}
        return _error(message, code)


def _handler(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _serve(self, method: str) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else {}
            status, headers, payload = fake.handle(
                method, self.path, self.headers.get("authorization", ""), body
            )
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def log_message(self, *args: object) -> None:
            pass

    return Handler


def _identify(body: dict) -> tuple[str | None, int | None]:
    fmt = body.get("response_format") or {}
    messages = body.get("messages") or []
    task = (fmt.get("json_schema") or {}).get("name") if fmt.get("type") == "json_schema" else None
    if task is None and (match := _TASK.search(_content(messages, "system"))):
        task = match.group(1)
    head = _HEAD.search(_content(messages, "user"))
    return task or ("ping" if messages else None), int(head.group(1)) if head else None


def _all_text(body: dict) -> str:
    return " ".join(m.get("content") or "" for m in body.get("messages") or []).lower()


def _content(messages: list[dict], role: str) -> str:
    """The first message of ``role`` (empty if none)."""
    return next((m["content"] for m in messages if m["role"] == role), "")


def _error(message: str, code: str) -> dict:
    return {"error": {"message": message, "type": "invalid_request_error", "code": code}}


def _completion(body: dict, content: str) -> dict:
    prompt_chars = sum(len(m.get("content") or "") for m in body.get("messages", []))
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_chars // 4,
            "completion_tokens": len(content) // 4 + 1,
            "total_tokens": prompt_chars // 4 + len(content) // 4 + 1,
        },
    }


# --- the echo replies: built from the data in the prompt only ----------------------------------


def _prose(task: str, body: dict) -> str:
    """A chatty model: JSON inside prose, of the right shape only if the prompt gave it."""
    if HINT not in _content(body.get("messages") or [], "system"):
        return 'Sure! Here is a JSON object: {"answer": "ok"} Let me know if you need more.'
    reply = json.dumps(echo(task, body), ensure_ascii=False, indent=1)
    return f"Here is my answer.\n\n```json\n{reply}\n```\n\nI hope this {{helps}}."


def echo(task: str, body: dict) -> dict:
    messages = body.get("messages") or []
    zh = "Write in English" not in _content(messages, "system")
    builder = _ECHO.get(task)
    return builder(_content(messages, "user"), zh) if builder else {}


def _first_sentence(text: str) -> str:
    text = " ".join(line for line in text.splitlines() if line and not line.startswith(("[", "`")))
    match = re.match(r"(.{8,160}?[.!?。])(\s|$)", text)
    return (match.group(1) if match else text[:120]).strip()


def _comments(user: str) -> list[tuple[str, str]]:
    """(login, text) of each comment in the thread block, in order."""
    found: list[tuple[str, list[str]]] = []
    for line in user.splitlines():
        header = re.match(r"^\[([^\s(]+) \(\w+\), [^\]]*\]$", line)
        if header:
            found.append((header.group(1), []))
        elif line.startswith(("</thread>", "participants:", "[")):
            found.append(("", []))
        elif found:
            found[-1][1].append(line)
    return [(login, "\n".join(lines)) for login, lines in found if login]


def _thread(user: str) -> dict[str, Any]:
    head = _HEAD.search(user)
    assert head, "no <thread> block in the prompt"
    participants = re.search(r"^participants: (.*)$", user, re.MULTILINE)
    logins = re.findall(r"([^\s,()]+) \((\w+)\)", participants.group(1)) if participants else []
    first: dict[str, str] = {}
    for login, text in _comments(user):
        first.setdefault(login, _first_sentence(text))
    body = re.search(r"^body:\n(.*?)(?:^comments|^</thread>)", user, re.M | re.S)
    return {
        "number": int(head.group(1)),
        "is_pr": head.group(2) == "pull request",
        "state": head.group(3),
        "title": head.group(4),
        "logins": logins,
        "first": first,
        "body": _first_sentence(body.group(1)) if body else "",
    }


def _discussion(user: str, zh: bool) -> dict:
    t = _thread(user)
    kind = "PR" if t["is_pr"] else "Issue"
    views = [
        {"login": login, "position": (("认为：" if zh else "Says: ") + t["first"][login])}
        for login, _ in t["logins"]
        if t["first"].get(login)
    ]
    if zh:
        return {
            "core_question": f"围绕 #{t['number']}「{t['title']}」的讨论。",
            "viewpoints": views,
            "contention": f"参与者对 #{t['number']} 的做法意见不一。",
            "status": f"该 {kind} 目前为 {t['state']} 状态。",
        }
    return {
        "core_question": f"The discussion is about #{t['number']} ({t['title']}).",
        "viewpoints": views,
        "contention": f"Participants weigh different approaches for #{t['number']}.",
        "status": f"The {kind} is {t['state']}.",
    }


def _change(user: str, zh: bool) -> dict:
    t = _thread(user)
    figures = re.search(r"^figures stated in the body: (.*)$", user, re.MULTILINE)
    if zh:
        impact = f"PR 给出的数据：{figures.group(1)}。" if figures else "影响相关代码路径的用户。"
        return {"technical": f"该 PR 的改动：{t['title']}。", "impact": impact}
    impact = (
        f"The PR reports {figures.group(1)}." if figures else "Affects users of this code path."
    )
    return {"technical": f"This change does the following: {t['title']}.", "impact": impact}


def _watch(user: str, zh: bool) -> dict:
    t = _thread(user)
    signals = re.search(r"^signals: (.*)$", user, re.MULTILINE)
    found = signals.group(1) if signals else ("无" if zh else "none")
    if zh:
        return {"why": f"该 Issue 出现以下信号：{found}，值得跟进。"}
    return {"why": f"The issue shows these signals: {found}; it is worth following ({t['title']})."}


def _summary(user: str, zh: bool) -> dict:
    counts = re.search(r"^counts: (.*)$", user, re.MULTILINE)
    ni, ci, np_, mp, cu = (int(n) for n in re.findall(r"\d+", counts.group(1)))  # type: ignore[union-attr]
    refs = [int(n) for n in re.findall(r"^- #(\d+)", user, re.MULTILINE)][:3]
    if zh:
        text = (
            f"本窗口新增 {ni} 个 Issue，关闭 {ci} 个 Issue，新增 {np_} 个 PR，合并 {mp} 个 PR，"
            f"另有 {cu} 个 PR 未合并即关闭。"
        )
        more = "今天的重点包括 " + "、".join(f"#{n}" for n in refs) + "。"
    else:
        text = (
            f"In this window {ni} new issues were opened, {ci} issues were closed, {np_} new PRs "
            f"were opened, {mp} PRs were merged; {cu} PRs were closed without merge."
        )
        more = "Highlights include " + ", ".join(f"#{n}" for n in refs) + "."
    statements = [{"text": text, "refs": []}]
    if refs:
        statements.append({"text": more, "refs": refs})
    return {"statements": statements}


def _focus(user: str, zh: bool) -> dict:
    name = re.search(r"^focus area: (.*)$", user, re.MULTILINE).group(1)  # type: ignore[union-attr]
    issues, prs = (int(n) for n in re.findall(r"^(?:issues|pull requests) \((\d+)\):", user, re.M))
    refs = [int(n) for n in re.findall(r"^- #(\d+)", user, re.MULTILINE)][:3]
    if zh:
        text = f"{name} 今天涉及 {issues} 个 Issue 和 {prs} 个 PR。"
    else:
        text = f"{name} had {issues} issues and {prs} pull requests today."
    return {"statements": [{"text": text, "refs": refs}]}


def _trends(user: str, zh: bool) -> dict:
    top = re.search(r"^- (.+?): (\d+) today", user, re.MULTILINE)
    if not top:
        return {"statements": []}
    name, count = top.group(1), top.group(2)
    text = f"{name} 以 {count} 项居首。" if zh else f"{name} led with {count} items today."
    return {"statements": [{"text": text, "refs": []}]}


def _activity(user: str, zh: bool) -> dict:
    people = re.search(r"^contributors: (\d+)", user, re.MULTILINE).group(1)  # type: ignore[union-attr]
    first = re.search(r"^first-time contributors \((\d+)\)", user, re.MULTILINE).group(1)  # type: ignore[union-attr]
    if zh:
        text = f"共有 {people} 位贡献者参与，其中 {first} 位是首次贡献。"
    else:
        text = f"{people} people contributed; {first} of them for the first time."
    return {"statements": [{"text": text, "refs": []}]}


_ECHO = {
    "probe": lambda user, zh: {"probe": "ok"},
    "discussion": _discussion,
    "change": _change,
    "watch": _watch,
    "summary": _summary,
    "focus": _focus,
    "trends": _trends,
    "activity": _activity,
}
