"""Writers turn a WindowAnalysis into a DailyReport: offline (templates) or with an LLM."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from devdigest.analysis.types import WindowAnalysis
from devdigest.config import Config, Project
from devdigest.errors import ConfigError
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


def check_writer(config: Config, project: Project, writer: str) -> str:
    """Resolve ``writer`` and, for the LLM, check the endpoint before any other work is done."""
    chosen = resolve_writer(config, project, writer)
    if chosen == "llm":
        from devdigest.writers.llm import check_llm

        check_llm(config.llm_for(project))
    return chosen


__all__ = ["WRITERS", "check_writer", "resolve_writer", "write_offline", "write_report"]
