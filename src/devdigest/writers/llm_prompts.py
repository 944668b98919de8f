"""Prompts for the LLM writer: output schemas, thread compression and message building.

Per-thread prompts depend only on the thread's own content (no "now", no window label), so an
unchanged thread produces a byte-identical prompt and is answered from the cache the next day.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

from pydantic import BaseModel, ConfigDict

from devdigest.models import CommentRecord, ItemRecord
from devdigest.writers.threads import role_of

THREAD_TOKENS = 2400  # data budget of one per-thread call
SYNTHESIS_TOKENS = 3000  # data budget of one synthesis call
_CJK = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")
_FENCE = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_LOGLINE = re.compile(
    r"^\s*(?:\[?\d{4}-\d\d-\d\d|\[?\d\d:\d\d|File \"|at |Traceback|[A-Z]+ \d|\(\w+ pid)"
)


# --- output schemas (strict: the same JSON shape whatever the server) ------------------------


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ViewpointOut(_Out):
    login: str
    position: str


class DiscussionOut(_Out):
    core_question: str
    viewpoints: list[ViewpointOut]
    contention: str
    status: str


class ChangeOut(_Out):
    technical: str
    impact: str


class WatchOut(_Out):
    why: str


class StatementOut(_Out):
    text: str
    refs: list[int]


class StatementsOut(_Out):
    statements: list[StatementOut]


SCHEMAS: dict[str, type[_Out]] = {
    "discussion": DiscussionOut,
    "change": ChangeOut,
    "watch": WatchOut,
    "summary": StatementsOut,
    "focus": StatementsOut,
    "trends": StatementsOut,
    "activity": StatementsOut,
}


def json_schema(task: str) -> dict[str, Any]:
    return SCHEMAS[task].model_json_schema()


# --- templates ---------------------------------------------------------------------------------


@cache
def templates(lang: str) -> dict[str, Any]:
    name = "zh.toml" if lang == "zh" else "en.toml"
    return tomllib.loads(files("devdigest.writers").joinpath("prompts", name).read_text("utf-8"))


@dataclass(frozen=True)
class Prompt:
    """One call: its task, the messages without any output-mode hint, and the data it cites."""

    task: str
    system: str
    user: str
    data: str  # the delimited data block (for grounding: numbers and text the reply may use)

    def messages(self, schema_hint: str | None = None) -> list[dict[str, str]]:
        system = f"{self.system}\n\n{schema_hint}" if schema_hint else self.system
        return [{"role": "system", "content": system}, {"role": "user", "content": self.user}]


def build_prompt(task: str, lang: str, project: str, data: str, tag: str = "data") -> Prompt:
    t = templates(lang)
    system = t["system"].format(project=project, task=task)
    block = f"<{tag}>\n{escape_data(data, tag)}\n</{tag}>"
    return Prompt(task, system, f"{t['tasks'][task]}\n\n{block}", block)


def schema_hint(task: str, lang: str) -> str:
    return f"{templates(lang)['schema_hint']}\n{json.dumps(json_schema(task), sort_keys=True)}"


def escape_data(text: str, tag: str) -> str:
    """Text cannot close or open the delimiter it sits in."""
    return re.sub(rf"<(/?)\s*({tag}|thread|data)\b", r"‹\1\2", text, flags=re.IGNORECASE)


# --- token estimates and compression -----------------------------------------------------------


def estimate_tokens(text: str) -> int:
    """≈ 1 token per CJK character, ≈ 4 characters per token otherwise."""
    cjk = len(_CJK.findall(text))
    return cjk + (len(text) - cjk + 3) // 4


def trim_code(text: str, keep: int = 3) -> str:
    """Fenced code blocks and long log runs keep their first lines and a note of what was cut."""

    def fence(match: re.Match[str]) -> str:
        lines = match.group(1).rstrip("\n").splitlines()
        if len(lines) <= keep + 1:
            return match.group(0)
        return "```\n" + "\n".join(lines[:keep]) + f"\n[… {len(lines) - keep} lines trimmed]\n```"

    text = _FENCE.sub(fence, text)
    out: list[str] = []
    run: list[str] = []
    for line in [*text.splitlines(), ""]:
        if _LOGLINE.match(line):
            run.append(line)
            continue
        out += run if len(run) <= 2 * keep else [*run[:keep], f"[… {len(run) - keep} log lines]"]
        run = []
        out.append(line)
    return "\n".join(out[:-1]).strip()


def head(text: str, tokens: int) -> str:
    """The start of ``text`` within about ``tokens``, cut at a line or sentence end if possible."""
    if estimate_tokens(text) <= tokens:
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # longest prefix within the budget
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if estimate_tokens(text[:mid]) <= tokens else (lo, mid - 1)
    cut = text[:lo]
    stop = max(cut.rfind("\n"), cut.rfind(". "), cut.rfind("。"))
    return (cut[: stop + 1] if stop > lo // 2 else cut).rstrip() + " […]"


def thread_role(login: str, item: ItemRecord, comments: list[CommentRecord]) -> str:
    """author, reviewer, maintainer or commenter (as the offline writer says): never an employer."""
    return role_of(item, login, [c for c in comments if c.author == login])


def _comment_line(c: CommentRecord, item: ItemRecord, comments: list[CommentRecord]) -> str:
    what = c.kind.replace("_", " ") + (f" {c.review_state}" if c.review_state else "")
    when = c.created_at.strftime("%Y-%m-%d %H:%M UTC")
    return f"[{c.author} ({thread_role(c.author, item, comments)}), {what}, {when}]"


def _select_comments(comments: list[CommentRecord], limit: int) -> list[CommentRecord]:
    """Keep each participant's first comment, then the latest ones, up to ``limit``."""
    if len(comments) <= limit:
        return comments
    keep: dict[int, CommentRecord] = {}
    for c in comments:
        if c.author not in {k.author for k in keep.values()}:
            keep[c.id] = c
    for c in reversed(comments):
        if len(keep) >= limit:
            break
        keep.setdefault(c.id, c)
    return sorted(keep.values(), key=lambda c: (c.created_at, c.id))


def render_thread(
    item: ItemRecord,
    comments: list[CommentRecord],
    *,
    linked: list[int] = (),  # type: ignore[assignment]
    extra: list[str] = (),  # type: ignore[assignment]
    budget: int = THREAD_TOKENS,
    max_comments: int = 12,
) -> str:
    """An item and its comments as compact text within ``budget`` tokens."""
    kind = "pull request" if item.is_pr else "issue"
    state = "merged" if item.merged_at else item.state
    lines = [
        f"#{item.number} ({kind}, {state}): {item.title}",
        f"author: {item.author}",
        f"labels: {', '.join(item.labels) or '-'}",
    ]
    if linked:
        lines.append("linked: " + ", ".join(f"#{n}" for n in linked))
    lines += extra
    header = "\n".join(lines)
    body = head(trim_code(item.body or ""), budget * 2 // 5)
    chosen = _select_comments(comments, max_comments)
    omitted = len(comments) - len(chosen)
    left = budget - estimate_tokens(header) - estimate_tokens(body) - 20
    per = max(30, left // max(1, len(chosen)) - 20)  # minus the comment's header line
    parts = [header, "body:", body or "-"]
    if chosen:
        parts.append("comments (oldest first):")
    for c in chosen:
        text = head(trim_code(c.body or ""), per) or "(no text)"
        parts.append(f"{_comment_line(c, item, comments)}\n{text}")
    if omitted:
        parts.append(f"[{omitted} more comments omitted]")
    return "\n".join(parts)


def participants_line(item: ItemRecord, comments: list[CommentRecord], logins: list[str]) -> str:
    roles = ", ".join(f"{login} ({thread_role(login, item, comments)})" for login in logins)
    return f"participants: {roles}"
