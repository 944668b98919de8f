"""The grounding guard applied to each structured LLM output, field by field.

Each ``guard_*`` returns the output with automatic fixes applied and violating parts emptied
(an empty field falls back to the offline text), the violations found and the number of fixes.
Pure functions: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel

from devdigest.writers.grounding import GuardContext, Violation, check_text, clean_text
from devdigest.writers.llm_prompts import (
    ChangeOut,
    DiscussionOut,
    StatementOut,
    StatementsOut,
    ViewpointOut,
    WatchOut,
)


@dataclass
class Guarded:
    output: object
    violations: list[Violation] = field(default_factory=list)
    fixes: int = 0


def _field(text: str, ctx: GuardContext, acc: Guarded, refs: list[int] | None = None) -> str:
    cleaned = clean_text(text)
    acc.fixes += len(cleaned.fixes)
    found = check_text(cleaned.text, ctx, refs or [])
    acc.violations += found
    return "" if found else cleaned.text


def guard_discussion(out: DiscussionOut, ctx: GuardContext, participants: list[str]) -> Guarded:
    """Viewpoints must belong to a participant of the thread; other fields are checked as text."""
    acc = Guarded(out)
    spelled = {p.lower(): p for p in participants}
    viewpoints: list[ViewpointOut] = []
    seen: set[str] = set()
    for vp in out.viewpoints:
        login = vp.login.strip().lstrip("@")
        if login.lower() not in spelled:
            acc.violations.append(Violation("login", f"{login} is not a participant"))
            continue
        position = _field(vp.position, ctx, acc)
        if position and login.lower() not in seen:
            seen.add(login.lower())
            viewpoints.append(ViewpointOut(login=spelled[login.lower()], position=position))
    acc.output = DiscussionOut(
        core_question=_field(out.core_question, ctx, acc),
        viewpoints=viewpoints,
        contention=_field(out.contention, ctx, acc),
        status=_field(out.status, ctx, acc),
    )
    return acc


def guard_change(out: ChangeOut, ctx: GuardContext) -> Guarded:
    acc = Guarded(out)
    acc.output = ChangeOut(
        technical=_field(out.technical, ctx, acc), impact=_field(out.impact, ctx, acc)
    )
    return acc


def guard_watch(out: WatchOut, ctx: GuardContext) -> Guarded:
    acc = Guarded(out)
    acc.output = WatchOut(why=_field(out.why, ctx, acc))
    return acc


def guard_statements(out: StatementsOut, ctx: GuardContext) -> Guarded:
    """Each statement stands or falls alone; its refs are checked with its text."""
    acc = Guarded(out)
    kept = []
    for st in out.statements:
        text = _field(st.text, ctx, acc, st.refs)
        if text:
            kept.append(StatementOut(text=text, refs=list(dict.fromkeys(st.refs))))
    acc.output = StatementsOut(statements=kept)
    return acc


def merge_outputs(first: object, second: object) -> object:
    """After a repair: take each field from the repaired reply, else from the first one."""
    if isinstance(first, BaseModel) and type(second) is type(first):
        fields = type(first).model_fields
        return first.model_copy(update={n: getattr(second, n) or getattr(first, n) for n in fields})
    return second
