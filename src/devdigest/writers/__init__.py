"""Writers turn a WindowAnalysis into a DailyReport: offline (templates) or with an LLM."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from devdigest.analysis.types import WindowAnalysis
from devdigest.config import Config, Project
from devdigest.errors import ConfigError, LLMError
from devdigest.models import DailyReport
from devdigest.writers.offline import write_offline

if TYPE_CHECKING:
    from devdigest.store import Store

WRITERS = ("auto", "offline", "llm")


def write_report(
    analysis: WindowAnalysis,
    lang: str,
    *,
    writer: str = "auto",
    config: Config,
    store: Store | None,
    now: datetime,
) -> DailyReport:
    """The report in ``lang``: ``auto`` uses the LLM when one is configured, else offline."""
    settings = config.llm_for(analysis.project)
    if resolve_writer(config, analysis.project, writer) == "offline":
        return write_offline(analysis, lang, now=now)
    from devdigest.writers.llm import write_llm

    return write_llm(analysis, lang, settings=settings, store=store, now=now)


def resolve_writer(config: Config, project: Project, writer: str) -> str:
    """``offline`` or ``llm`` for the ``--writer`` choice; an ``llm`` without settings fails."""
    if writer not in WRITERS:
        raise ConfigError(f"unknown writer {writer!r}: use auto, offline or llm")
    configured = config.llm_for(project).configured
    if writer == "auto":
        return "llm" if configured else "offline"
    if writer == "llm" and not configured:
        raise ConfigError(
            "the llm writer needs an endpoint: set DEVDIGEST_LLM_BASE_URL and "
            "DEVDIGEST_LLM_MODEL, or use --writer offline"
        )
    return writer


@dataclass(frozen=True)
class WriterChoice:
    writer: str  # "offline" or "llm"
    note: str | None = None  # one line for stderr: the LLM's output mode, or why offline


def check_writer(
    config: Config, project: Project, writer: str, store: Store | None = None
) -> WriterChoice:
    """Resolve ``writer`` and, for the LLM, check the endpoint and settle its output mode before
    any other work is done. ``auto`` with an unusable LLM writes offline and says why;
    ``llm`` raises LLMError."""
    chosen = resolve_writer(config, project, writer)
    if chosen != "llm":
        return WriterChoice(chosen)
    from devdigest.writers.llm import check_llm

    settings = config.llm_for(project)
    try:
        capability = check_llm(settings, store)
    except LLMError as exc:
        if writer == "llm":
            raise
        return WriterChoice("offline", f"writing offline: {exc} (--writer llm makes this an error)")
    return WriterChoice("llm", capability.describe(settings.model or "", settings.base_url or ""))


def fallback_note(report: DailyReport) -> str | None:
    """One line when more than half of the LLM's sections fell back to the offline text."""
    p = report.provenance
    if p.writer != "llm" or 2 * len(p.fallbacks) <= p.llm_sections:
        return None
    return (
        f"the {report.lang} report is mostly offline text: {len(p.fallbacks)} of "
        f"{p.llm_sections} LLM sections fell back (listed in its provenance)"
    )


__all__ = [
    "WRITERS",
    "WriterChoice",
    "check_writer",
    "fallback_note",
    "resolve_writer",
    "write_offline",
    "write_report",
]
