"""Producing reports end to end: sync (optional), analysis, writing, rendering and files.

``generate_reports`` is the plain-function form of ``devdigest report``; the site build, the
demo and the benchmarks call it too.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from devdigest.analysis import compute_window_analysis
from devdigest.analysis.types import WindowAnalysis
from devdigest.config import Config
from devdigest.errors import ConfigError
from devdigest.github.normalize import (
    normalize_issue_comment,
    normalize_item,
    normalize_review,
    normalize_review_comment,
)
from devdigest.models import DailyReport, SyncStats
from devdigest.render.markdown import render_json, render_markdown
from devdigest.sample.model import Dataset
from devdigest.store import Store
from devdigest.window import Window
from devdigest.writers import check_writer, write_report

LANGS = ("zh", "en")
Progress = Callable[[str, int], None]  # (resource, rows read so far), as the sync reports it
DEMO_TZ = "Asia/Shanghai"


@dataclass
class ReportRun:
    """What one ``generate_reports`` call produced."""

    reports: list[DailyReport]
    analysis: WindowAnalysis
    sync: SyncStats | None = None
    writer_note: str | None = None  # the LLM's output mode, or why the run wrote offline


def languages(choice: str) -> list[str]:
    """``zh``, ``en`` or ``both`` → the languages to write."""
    if choice == "both":
        return list(LANGS)
    if choice not in LANGS:
        raise ConfigError(f"unknown language {choice!r}: use zh, en or both")
    return [choice]


def sync_for(
    config: Config,
    store: Store,
    repo: str,
    window: Window,
    *,
    no_sync: bool,
    progress: Progress | None = None,
) -> SyncStats | None:
    """Bring the store up to date for ``window`` (nothing with ``no_sync``)."""
    if no_sync:
        if store.repo_id(repo, create=False) < 0:
            raise ConfigError(
                f"no stored data for {repo}: run `devdigest sync {repo}` or drop --no-sync"
            )
        return None
    from devdigest.github.sync import ensure_synced

    return ensure_synced(config, store, repo, window.start, no_sync=False, progress=progress)


def generate_reports(
    config: Config,
    store: Store,
    repo: str,
    window: Window,
    langs: list[str],
    *,
    writer: str = "auto",
    no_sync: bool = False,
    now: datetime | None = None,
    progress: Progress | None = None,
) -> ReportRun:
    """Sync (unless ``no_sync``), analyse once, write one report per language, store them."""
    choice = check_writer(config, config.project(repo), writer, store)  # before any sync
    timings: dict[str, float] = {}
    started = time.perf_counter()
    stats = sync_for(config, store, repo, window, no_sync=no_sync, progress=progress)
    timings["sync"] = time.perf_counter() - started
    clock = now or datetime.now(UTC)
    started = time.perf_counter()
    analysis = compute_window_analysis(store, config, repo, window, now=now)
    timings["analysis"] = time.perf_counter() - started
    if stats is not None:
        analysis.github_requests = stats.requests
        analysis.data_fetched_at = stats.finished_at or analysis.data_fetched_at
    reports = []
    for lang in langs:
        started = time.perf_counter()
        report = write_report(
            analysis, lang, writer=choice.writer, config=config, store=store, now=clock
        )
        spent = timings | {"write": time.perf_counter() - started} | report.provenance.timings
        report.provenance.timings = {stage: round(s, 4) for stage, s in spent.items()}
        store.save_report(report)
        reports.append(report)
    return ReportRun(reports=reports, analysis=analysis, sync=stats, writer_note=choice.note)


def report_path(out: str | Path, report: DailyReport, suffix: str) -> Path:
    """``OUT/OWNER/REPO/<date>.<lang>.<suffix>``."""
    owner, name = report.repo.split("/", 1)
    return Path(out) / owner / name / f"{report.date}.{report.lang}.{suffix}"


def write_files(report: DailyReport, out: str | Path) -> list[Path]:
    """The Markdown and JSON files of ``report`` under ``out``; returns their paths."""
    paths = []
    for suffix, text in (("md", render_markdown(report)), ("json", render_json(report))):
        path = report_path(out, report, suffix)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        paths.append(path)
    return paths


# --- the bundled sample day (``devdigest demo``) ---------------------------------------------


def upsert_sample(store: Store, dataset: Dataset, at: datetime | None = None) -> None:
    """Put ``dataset`` into ``store`` as GitHub would show it at ``at`` (default: its end)."""
    at = at or dataset.end
    items = [
        normalize_item(dataset.issue_json(item, at))
        for item in dataset.items.values()
        if item.created_at <= at
    ]
    comments = [normalize_issue_comment(dataset.comment_json(c, at)) for c in dataset.comments]
    comments += [
        normalize_review_comment(dataset.review_comment_json(rc, at))
        for rc in dataset.review_comments
    ]
    comments += [normalize_review(dataset.review_json(r), r.number) for r in dataset.reviews]
    with store.transaction() as conn:
        repo_id = store.repo_id(dataset.repo, conn)
        store.upsert_items(conn, repo_id, items)
        store.upsert_comments(conn, repo_id, [c for c in comments if c.created_at <= at])
    store.record_sync_run(repo_id, SyncStats(started_at=at, finished_at=at), "sample")


def sample_window(end: datetime, tz: str = DEMO_TZ) -> Window:
    """The 24 hours ending at ``end``, shown in ``tz``."""
    return Window(end - timedelta(hours=24), end, tz)
