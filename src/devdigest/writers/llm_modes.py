"""The output-mode ladder: json_schema → json_object → text, chosen once per (endpoint, model).

Servers differ in what ``response_format`` they take: OpenAI and vLLM enforce a JSON schema,
llama.cpp's Python server answers ``json_schema`` with HTTP 500, DeepSeek takes ``json_object``
only, older Ollama ignores ``json_schema`` silently and some servers ignore ``response_format``
altogether and answer prose around JSON. A probe of at most three tiny calls finds the first mode
the server really honours; the LLM client stores the result and reuses it for ``PROBE_TTL``.
In ``text`` mode the schema travels in the prompt and the JSON is extracted from the reply;
every reply, in every mode, is validated against its schema.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from pydantic import BaseModel, ValidationError

from devdigest.errors import LLMError

MODES = ("json_schema", "json_object", "text")
PROBE_TTL = timedelta(days=7)  # a stored probe result is trusted this long, then re-probed
PROBE_SCHEMA = {
    "type": "object",
    "properties": {"probe": {"type": "string", "enum": ["ok"]}},
    "required": ["probe"],
    "additionalProperties": False,
}
_ASK = "Task: probe\nYou check that this server can answer in JSON."
_DECODER = json.JSONDecoder()


class ProbeRejected(Exception):
    """The server refused a probe call with an HTTP status (carried in the message)."""


@dataclass(frozen=True)
class Capability:
    mode: str
    reason: str  # why this mode: what the modes above it did
    probed_at: datetime | None = None  # None: probed by this run

    def describe(self, model: str, base_url: str) -> str:
        """One line for stderr: the mode, why, and whether it was probed now or stored."""
        when = (
            "probed now and saved for later runs"
            if self.probed_at is None
            else f"from a probe on {self.probed_at:%Y-%m-%d %H:%M} UTC"
        )
        return f"LLM {model} at {base_url}: output mode {self.mode} ({self.reason}; {when})"


def probe_request(model: str, mode: str) -> dict:
    """A tiny call that only a server honouring ``mode`` answers as expected."""
    if mode == "json_schema":  # the shape is not in the prompt: only an enforced schema gives it
        messages = [{"role": "system", "content": _ASK}, {"role": "user", "content": "Reply."}]
        schema = {"name": "probe", "schema": PROBE_SCHEMA, "strict": True}
        fmt: dict | None = {"type": "json_schema", "json_schema": schema}
    else:
        ask = 'Reply with exactly this JSON object: {"probe": "ok"}'
        messages = [{"role": "system", "content": _ASK}, {"role": "user", "content": ask}]
        fmt = {"type": "json_object"} if mode == "json_object" else None
    request = {"model": model, "messages": messages, "temperature": 0, "max_tokens": 20}
    return request | ({"response_format": fmt} if fmt else {})


def judge(mode: str, content: str) -> str | None:
    """Why the reply shows ``mode`` is not honoured, or None when it is."""
    if mode == "text":
        return None  # the last rung: JSON is extracted from whatever comes back
    text = content.strip()
    if not text.startswith(("{", "[")):
        return "ignored (the reply was not bare JSON)"
    try:
        value = json.loads(text)
    except ValueError:
        value = None  # bare JSON cut at max_tokens (a small model rambles): the mode holds
    if mode == "json_schema" and value != {"probe": "ok"}:
        return "ignored (the reply did not follow the schema)"
    if text.startswith("["):
        return "ignored (the reply was not a JSON object)"
    return None


async def probe_capability(send: Callable[[dict], Awaitable[str]], model: str) -> Capability:
    """The first mode of the ladder the server honours; ``send`` returns a reply's content or
    raises ProbeRejected."""
    failed: list[str] = []
    for mode in MODES:
        try:
            problem = judge(mode, await send(probe_request(model, mode)))
        except ProbeRejected as exc:
            problem = f"rejected ({exc})"
        if problem is None:
            reason = "; ".join(failed) if failed else "the server enforces the JSON schema"
            return Capability(mode, reason)
        failed.append(f"{mode} {problem}")
    raise LLMError(
        f"the LLM server refused every output mode for model {model!r}: {'; '.join(failed)}; "
        "check the server's log, or use --writer offline"
    )


def parse_reply(schema: type[BaseModel], content: str) -> BaseModel:
    """The first JSON object in ``content`` (bare, fenced or inside prose) valid for ``schema``."""
    first_error: ValidationError | None = None
    for match in re.finditer(r"\{", content):
        try:
            value, _ = _DECODER.raw_decode(content, match.start())
        except ValueError:
            continue
        if not isinstance(value, dict):
            continue
        try:
            return schema.model_validate(value)
        except ValidationError as exc:
            first_error = first_error or exc
    if first_error is not None:
        raise first_error
    raise ValueError("no JSON object in the reply")
