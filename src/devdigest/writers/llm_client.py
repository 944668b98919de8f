"""The LLM endpoint: preflight check, structured calls, retries, content-hash cache, usage.

Any OpenAI-compatible server through the official SDK. The output mode comes from the ladder in
``llm_modes`` (probed once per endpoint and model, stored); every reply is validated with
pydantic and a malformed one is re-asked once.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import openai
from openai import AsyncOpenAI
from pydantic import BaseModel, ValidationError

from devdigest.config import LLMSettings
from devdigest.errors import LLMError
from devdigest.store import Store
from devdigest.writers.llm_modes import (
    MODES,
    PROBE_TTL,
    Capability,
    ProbeRejected,
    parse_reply,
    probe_capability,
)
from devdigest.writers.llm_prompts import (
    SCHEMAS,
    Prompt,
    estimate_tokens,
    json_schema,
    schema_hint,
    templates,
)

MAX_TOKENS = {"discussion": 700, "change": 400, "watch": 250}
SYNTHESIS_MAX_TOKENS = 600


class CallFailed(Exception):
    """A call that failed after retries, was malformed twice, or was over the token budget."""


@dataclass
class Usage:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_hits: int = 0


@dataclass
class Reply:
    parsed: BaseModel
    content: str


class LLMClient:
    def __init__(
        self,
        settings: LLMSettings,
        store: Store | None,
        *,
        lang: str,
        retries: int = 3,
        backoff: float = 1.0,
        backoff_cap: float = 30.0,
    ) -> None:
        if not settings.configured:
            raise LLMError(
                "no LLM configured: set [llm] base_url and model, or DEVDIGEST_LLM_BASE_URL"
            )
        key = settings.api_key.get_secret_value() if settings.api_key else "none"
        self.settings = settings
        self.endpoint = settings.base_url or ""
        self.model = settings.model or ""
        self.store = store
        self.lang = lang
        self.retries, self.backoff, self.backoff_cap = retries, backoff, backoff_cap
        self.client = AsyncOpenAI(
            api_key=key, base_url=settings.base_url, timeout=settings.timeout, max_retries=0
        )
        self.usage = Usage()
        self.capability = self._stored_capability()
        self.mode = self.capability.mode if self.capability else MODES[0]
        self._sem = asyncio.Semaphore(settings.max_concurrency)
        self._ready = False
        self._failure: LLMError | None = None
        self._ready_lock = asyncio.Lock()
        self._reprobe_lock = asyncio.Lock()
        self._reprobed = False

    async def close(self) -> None:
        await self.client.close()

    # --- preflight ---------------------------------------------------------------------------

    async def ensure_ready(self) -> None:
        """One cheap check before the first real call: key, server and model."""
        async with self._ready_lock:
            if self._failure is not None:
                raise self._failure
            if self._ready:
                return
            try:
                await self._preflight()
                if self.capability is None:
                    self.capability = await probe_capability(self._probe_send, self.model)
                    self._save_mode(self.capability.mode, self.capability.reason)
            except LLMError as exc:
                self._failure = exc
                raise
            self.mode = self.capability.mode
            self._ready = True

    def _stored_capability(self) -> Capability | None:
        """The stored probe result for this endpoint and model, unless it is too old."""
        row = self.store.llm_capability(self.endpoint, self.model) if self.store else None
        if row is None or datetime.now(UTC) - row["probed_at"] > PROBE_TTL:
            return None
        return Capability(row["mode"], row["reason"], row["probed_at"])

    def _save_mode(self, mode: str, reason: str) -> None:
        if self.store:
            self.store.save_llm_capability(self.endpoint, self.model, mode, reason)

    async def _probe_send(self, request: dict) -> str:
        """A probe call: rate limits and dropped connections are retried, a status is a
        verdict on the mode (raised as ProbeRejected)."""
        for attempt in range(self.retries + 1):
            try:
                response = await self.client.chat.completions.create(**request)
                return response.choices[0].message.content or "" if response.choices else ""
            except openai.RateLimitError as exc:
                if attempt == self.retries:
                    raise LLMError(f"the LLM server {self.endpoint} keeps answering 429") from exc
                await asyncio.sleep(self._delay(exc, attempt))
            except openai.APIStatusError as exc:
                raise ProbeRejected(f"HTTP {exc.status_code}: {_msg(exc)}") from exc
            except openai.APIConnectionError as exc:  # incl. timeouts
                if attempt == self.retries:
                    raise LLMError(
                        f"the LLM server {self.endpoint} dropped every probe call: {exc}"
                    ) from exc
                await asyncio.sleep(self._delay(exc, attempt))
        raise AssertionError("unreachable")

    async def _preflight(self) -> None:
        where = self.settings.base_url
        try:
            listed = [m.id async for m in self.client.models.list()]
        except openai.AuthenticationError as exc:
            raise LLMError(
                f"the LLM server {where} rejected the API key (401): {_msg(exc)}; "
                "fix [llm] api_key or DEVDIGEST_LLM_API_KEY"
            ) from exc
        except openai.APIConnectionError as exc:
            raise LLMError(
                f"cannot reach the LLM server {where}: {exc}; "
                "check [llm] base_url or DEVDIGEST_LLM_BASE_URL"
            ) from exc
        except openai.APIStatusError:
            listed = []  # some servers have no /models: the 1-token call decides
        if self.model in listed:
            return
        try:
            await self.client.chat.completions.create(
                model=self.model, messages=[{"role": "user", "content": "ping"}], max_tokens=1
            )
        except openai.NotFoundError as exc:
            choices = ", ".join(listed[:8]) or "a model the server lists"
            raise LLMError(
                f"model {self.model!r} is not served by {where}: set [llm] model to {choices}"
            ) from exc
        except openai.AuthenticationError as exc:
            raise LLMError(
                f"the LLM server {where} rejected the API key (401); "
                "fix [llm] api_key or DEVDIGEST_LLM_API_KEY"
            ) from exc
        except openai.APIError as exc:
            raise LLMError(
                f"the LLM server {where} failed a test call for model {self.model!r}: {_msg(exc)}"
            ) from exc

    # --- calls -------------------------------------------------------------------------------

    async def ask(self, prompt: Prompt, follow_up: list[dict[str, str]] = ()) -> Reply:  # type: ignore[assignment]
        """A validated structured reply for ``prompt`` (plus an optional follow-up exchange)."""
        content = await self._complete(prompt, list(follow_up))
        schema = SCHEMAS[prompt.task]
        try:
            return Reply(parse_reply(schema, content), content)
        except (ValueError, ValidationError) as exc:
            error = _brief(exc)
        repair = [
            {"role": "assistant", "content": content},
            {"role": "user", "content": templates(self.lang)["repair_json"].format(error=error)},
        ]
        content = await self._complete(prompt, [*follow_up, *repair])
        try:
            return Reply(parse_reply(schema, content), content)
        except (ValueError, ValidationError) as exc:
            raise CallFailed(f"{prompt.task}: malformed reply twice ({_brief(exc)})") from exc

    async def _complete(self, prompt: Prompt, follow_up: list[dict[str, str]]) -> str:
        """Content for the prompt: from the cache (any output mode) or from the server."""
        for mode in MODES[MODES.index(self.mode) :]:
            request = self._request(prompt, follow_up, mode)
            hit = self.store.llm_cached(_key(request)) if self.store else None
            if hit:
                self.usage.cache_hits += 1
                return json.loads(hit["response"])
        await self.ensure_ready()  # settles the output mode
        while True:
            async with self._sem:  # the mode is read when the call can go out
                request = self._request(prompt, follow_up, self.mode)
                try:
                    return await self._send(request, prompt.task)
                except openai.BadRequestError as exc:
                    failed = (request.get("response_format") or {}).get("type")
                    if not failed or not await self._reprobe(failed):
                        raise CallFailed(f"{prompt.task}: rejected (400): {_msg(exc)}") from exc

    async def _reprobe(self, failed: str) -> bool:
        """After a 400 in mode ``failed``: probe again once per run (a stored mode may be
        stale); True when the call should be retried in another mode."""
        async with self._reprobe_lock:
            if self.mode != failed:
                return True  # another call already moved on
            if self._reprobed:
                return False
            self._reprobed = True
            try:
                self.capability = await probe_capability(self._probe_send, self.model)
            except LLMError:
                return False
            self._save_mode(self.capability.mode, self.capability.reason)
            self.mode = self.capability.mode
            return self.mode != failed

    def _request(self, prompt: Prompt, follow_up: list[dict[str, str]], mode: str) -> dict:
        hint = None if mode == "json_schema" else schema_hint(prompt.task, self.lang)
        request: dict[str, Any] = {
            "model": self.model,
            "messages": [*prompt.messages(hint), *follow_up],
            "temperature": self.settings.temperature,
            "max_tokens": MAX_TOKENS.get(prompt.task, SYNTHESIS_MAX_TOKENS),
        }
        if mode == "json_schema":
            schema = {"name": prompt.task, "schema": json_schema(prompt.task), "strict": True}
            request["response_format"] = {"type": "json_schema", "json_schema": schema}
        elif mode == "json_object":
            request["response_format"] = {"type": "json_object"}
        return request

    async def _send(self, request: dict, task: str) -> str:
        estimate = sum(estimate_tokens(m["content"]) for m in request["messages"])
        spent = self.usage.prompt_tokens + self.usage.completion_tokens  # this run's tokens
        if spent + estimate + request["max_tokens"] > self.settings.token_budget:
            raise CallFailed(f"{task}: token budget {self.settings.token_budget} reached")
        response = await self._with_retries(request, task)
        usage = response.usage
        prompt_tokens = usage.prompt_tokens if usage else estimate
        completion_tokens = usage.completion_tokens if usage else 0
        content = response.choices[0].message.content or "" if response.choices else ""
        self.usage.prompt_tokens += prompt_tokens
        self.usage.completion_tokens += completion_tokens
        if self.store:
            self.store.save_llm(
                _key(request), self.model, content, prompt_tokens, completion_tokens
            )
        return content

    async def _with_retries(self, request: dict, task: str) -> Any:
        for attempt in range(self.retries + 1):
            self.usage.calls += 1
            try:
                return await self.client.chat.completions.create(**request)
            except openai.BadRequestError:
                raise
            except (openai.APIConnectionError, openai.APIStatusError) as exc:  # incl. timeouts
                status = getattr(exc, "status_code", None)
                if status is not None and status < 500 and status != 429:
                    raise CallFailed(f"{task}: {status} {_msg(exc)}") from exc
                if attempt == self.retries:
                    raise CallFailed(f"{task}: {_msg(exc)} after {attempt + 1} tries") from exc
                await asyncio.sleep(self._delay(exc, attempt))
        raise AssertionError("unreachable")

    def _delay(self, exc: Exception, attempt: int) -> float:
        """``Retry-After`` when the server sends one, else exponential backoff with jitter."""
        response = getattr(exc, "response", None)
        header = response.headers.get("retry-after") if response is not None else None
        try:
            wait = float(header) if header is not None else None
        except ValueError:
            wait = None
        if wait is None:
            wait = self.backoff * 2**attempt * (1 + random.random() / 2)
        return min(max(wait, 0.0), self.backoff_cap)

    def cost(self) -> float | None:
        pp, pc = self.settings.price_prompt_per_m, self.settings.price_completion_per_m
        if pp is None and pc is None:
            return None
        used = self.usage
        return round(
            used.prompt_tokens * (pp or 0) / 1e6 + used.completion_tokens * (pc or 0) / 1e6, 6
        )


def _key(request: dict) -> str:
    """sha256 of (model, messages, output format, sampling): the cache key."""
    blob = json.dumps(
        {k: request.get(k) for k in ("model", "messages", "response_format", "temperature")},
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _brief(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:5])
    return str(exc).splitlines()[0][:200]


def _msg(exc: Exception) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return " ".join(str(inner["message"]).split())[:200]  # one line, whatever the server
    return str(exc).splitlines()[0][:200]
