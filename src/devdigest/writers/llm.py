"""LLM writer: the offline report, with its narrative fields rewritten by a grounded LLM.

Map: one small structured call per thread that matters (top hot discussions, key changes and
watch-list issues). Reduce: short synthesis calls over the grounded results (summary, each focus
area, trends, activity). Every output passes the grounding guard; a violating field is re-asked
once, else dropped and the offline text stays. A call that keeps failing leaves its section to
the offline writer and is named in ``provenance.fallbacks``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime

from devdigest.config import LLMSettings
from devdigest.models import DailyReport, HotDiscussion, KeyChange, Statement, Viewpoint, WatchItem
from devdigest.store import Store
from devdigest.writers import llm_data as data
from devdigest.writers.guarded import (
    Guarded,
    guard_change,
    guard_discussion,
    guard_statements,
    guard_watch,
    merge_outputs,
)
from devdigest.writers.llm_client import CallFailed, LLMClient
from devdigest.writers.llm_modes import Capability
from devdigest.writers.llm_prompts import Prompt, StatementsOut, templates

log = logging.getLogger(__name__)
MAP_LIMIT = 5  # per-thread calls per section: 5 discussions + 5 changes + 5 watch-list issues

Check = Callable[[object], Guarded]


def write_llm(
    analysis: data.WindowAnalysis,
    lang: str,
    *,
    settings: LLMSettings,
    store: Store | None,
    now: datetime,
    base: DailyReport | None = None,
    map_limit: int = MAP_LIMIT,
    backoff: float = 1.0,
) -> DailyReport:
    """The report for ``analysis`` in ``lang``: ``base`` (default: the offline report) with
    narrative fields written by the configured LLM. Raises LLMError when the endpoint is
    unusable (bad key, unknown model, unreachable), before any thread is sent."""
    if base is None:
        from devdigest.writers.offline import write_offline

        base = write_offline(analysis, lang, now=now)
    writer = _LLMWriter(analysis, lang, base.model_copy(deep=True), settings, store, backoff)
    return asyncio.run(writer.run(now, map_limit))


def check_llm(settings: LLMSettings, store: Store | None = None) -> Capability:
    """Fail fast (LLMError, one line) when the endpoint is unusable: bad key, unknown model,
    unreachable server. Costs one ``/models`` request (plus a 1-token call if the model is not
    listed) and, unless ``store`` holds a recent result, the output-mode probe (≤ 3 tiny calls).
    Returns the output mode the writer will use and why."""

    async def check() -> Capability:
        client = LLMClient(settings, store, lang="en")
        try:
            await client.ensure_ready()
        finally:
            await client.close()
        assert client.capability is not None
        return client.capability

    return asyncio.run(check())


class _LLMWriter:
    def __init__(
        self,
        analysis: data.WindowAnalysis,
        lang: str,
        report: DailyReport,
        settings: LLMSettings,
        store: Store | None,
        backoff: float,
    ) -> None:
        self.analysis, self.lang, self.report = analysis, lang, report
        self.client = LLMClient(settings, store, lang=lang, backoff=backoff)
        self.facts = data.Facts.of(analysis)
        self.corrections = 0
        self.sections = 0
        self.fallbacks: list[str] = []

    async def run(self, now: datetime, map_limit: int) -> DailyReport:
        try:
            report = self.report
            await asyncio.gather(
                *map(self._discussion, report.hot_discussions[:map_limit]),
                *map(self._change, report.key_changes[:map_limit]),
                *map(self._watch, report.watch[:map_limit]),
            )
            await asyncio.gather(
                self._statements(
                    "summary",
                    data.summary_data(report, self.analysis.storylines),
                    report,
                    "summary",
                ),
                *(
                    self._statements(
                        "focus", data.focus_data(f), f, "overview", f"focus_areas {f.name}"
                    )
                    for f in report.focus_areas
                ),
                self._statements(
                    "trends", data.trends_data(report, self.analysis), report, "trend_notes"
                ),
                self._statements("activity", data.activity_data(report), report, "activity_notes"),
            )
        finally:
            await self.client.close()
        return self._finish(now)

    # --- one guarded call ----------------------------------------------------------------------

    async def _guarded(self, prompt: Prompt, check: Check, section: str) -> object | None:
        """Ask, guard, re-ask once with the violations listed; None if the call failed."""
        self.sections += 1
        try:
            reply = await self.client.ask(prompt)
        except CallFailed:
            self.fallbacks.append(section)
            return None
        first = check(reply.parsed)
        self.corrections += first.fixes + len(first.violations)
        if first.fixes or first.violations:
            log.info("%s: %d fixes, violations: %s", section, first.fixes, first.violations)
        if not first.violations:
            return first.output
        listed = "\n".join(f"- {v}" for v in dict.fromkeys(map(str, first.violations)))
        follow_up = [
            {"role": "assistant", "content": reply.content},
            {
                "role": "user",
                "content": templates(self.lang)["repair_guard"].format(violations=listed),
            },
        ]
        try:
            second = check((await self.client.ask(prompt, follow_up)).parsed)
        except CallFailed:
            return first.output
        seen = set(map(str, first.violations))
        self.corrections += second.fixes + len({str(v) for v in second.violations} - seen)
        return merge_outputs(first.output, second.output)

    # --- map -------------------------------------------------------------------------------

    async def _discussion(self, entry: HotDiscussion) -> None:
        thread = self.facts.threads.get(entry.item.number)
        if thread is None:
            return
        prompt = data.discussion_prompt(thread, self.lang, self.report.project)
        ctx = self.facts.thread_ctx(thread.item, thread.comments, prompt.data)
        out = await self._guarded(
            prompt,
            lambda o: guard_discussion(o, ctx, thread.participants),
            f"hot_discussions #{entry.item.number}",
        )
        if out is None:
            return
        entry.core_question = out.core_question or entry.core_question
        entry.contention = out.contention or entry.contention
        entry.status = out.status or entry.status
        if out.viewpoints:
            entry.viewpoints = [
                Viewpoint(
                    login=vp.login,
                    role=data.thread_role(vp.login, thread.item, thread.comments),
                    position=vp.position,
                )
                for vp in out.viewpoints
            ]

    async def _change(self, entry: KeyChange) -> None:
        cand = self.facts.changes.get(entry.item.number)
        if cand is None:
            return
        prompt = data.change_prompt(cand, self.lang, self.report.project)
        ctx = self.facts.thread_ctx(cand.item, cand.comments, prompt.data)
        out = await self._guarded(
            prompt, lambda o: guard_change(o, ctx), f"key_changes #{entry.item.number}"
        )
        if out is not None:
            entry.technical = out.technical or entry.technical
            entry.impact = out.impact or entry.impact

    async def _watch(self, entry: WatchItem) -> None:
        cand = self.facts.watch.get(entry.item.number)
        if cand is None:
            return
        prompt = data.watch_prompt(cand, self.lang, self.report.project)
        ctx = self.facts.thread_ctx(cand.item, cand.comments, prompt.data)
        out = await self._guarded(
            prompt, lambda o: guard_watch(o, ctx), f"watch #{entry.item.number}"
        )
        if out is not None:
            entry.why = out.why or entry.why

    # --- reduce ------------------------------------------------------------------------------

    async def _statements(
        self, task: str, text: str, target: object, attr: str, section: str | None = None
    ) -> None:
        """Statements for ``target.attr`` (a report section or a focus area's overview)."""
        prompt = data.synthesis_prompt(task, text, self.lang, self.report.project)
        counts = self.report.counts.model_dump() if task in {"summary", "activity"} else None
        ctx = self.facts.window_ctx(prompt.data, counts)
        out = await self._guarded(prompt, lambda o: guard_statements(o, ctx), section or attr)
        if isinstance(out, StatementsOut) and out.statements:
            setattr(target, attr, [Statement(text=s.text, refs=s.refs) for s in out.statements])

    def _finish(self, now: datetime) -> DailyReport:
        usage = self.client.usage
        self.report.provenance = self.report.provenance.model_copy(
            update={
                "writer": "llm",
                "generated_at": now,
                "model": self.client.model,
                "llm_calls": usage.calls,
                "prompt_tokens": usage.prompt_tokens,
                "completion_tokens": usage.completion_tokens,
                "cache_hits": usage.cache_hits,
                "cost_usd": self.client.cost(),
                "guard_corrections": self.corrections,
                "fallbacks": sorted(self.fallbacks),
                "llm_mode": self.client.mode,
                "llm_sections": self.sections,
            }
        )
        return self.report


__all__ = ["MAP_LIMIT", "check_llm", "write_llm"]
