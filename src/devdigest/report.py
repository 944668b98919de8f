"""Producing reports end to end: sync (optional), analysis, writing, rendering and files.

``generate_reports`` is the plain-function form of ``devdigest report``; the site build, the
demo and the benchmarks call it too.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from devdigest.analysis import compute_window_analysis
from devdigest.analysis.trends import history_start
from devdigest.analysis.types import WindowAnalysis
from devdigest.config import Config, Project
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
# The demo's fictional repository; its links go to a reserved, never-resolving host (RFC 2606).
SAMPLE_REPO = "example-org/sample-llm-server"
SAMPLE_NAME = "Sample LLM Server"
SAMPLE_WEB = "https://sample.invalid"
SAMPLE_PRESET = "vllm-project/vllm"  # the demo borrows this preset's focus areas


@dataclass
class ReportRun:
    """What one ``generate_reports`` call produced."""

    reports: list[DailyReport]
    analysis: WindowAnalysis
    sync: SyncStats | None = None


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
    history: bool = True,
) -> SyncStats | None:
    """Bring the store up to date for ``window`` (nothing with ``no_sync``), and unless
    ``history`` is off, list the items of the days before it that trends compare with."""
    if no_sync:
        if store.repo_id(repo, create=False) < 0:
            raise ConfigError(
                f"no stored data for {repo}: run `devdigest sync {repo}` or drop --no-sync"
            )
        return None
    from devdigest.github.sync import ensure_history, ensure_synced

    stats = ensure_synced(config, store, repo, window.start, no_sync=False, progress=progress)
    if history:
        since = history_start(window)
        more = ensure_history(config, store, repo, since, progress=progress)
        if stats is not None and more is not None:
            stats.requests += more.requests
            stats.items += more.items
            stats.finished_at = more.finished_at
    return stats


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
    history: bool = True,
) -> ReportRun:
    """Sync (unless ``no_sync``), analyse once, write one report per language, store them.

    The demo's sample repository gets its project settings, and its reports say they are
    sample data."""
    sample = repo.lower() == SAMPLE_REPO
    if sample:
        config = sample_config(config)
    check_writer(config, config.project(repo), writer)  # fail before any sync or analysis
    timings: dict[str, float] = {}
    started = time.perf_counter()
    stats = sync_for(
        config, store, repo, window, no_sync=no_sync, progress=progress, history=history
    )
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
        report = write_report(analysis, lang, writer=writer, config=config, store=store, now=clock)
        report.sample = sample
        spent = timings | {"write": time.perf_counter() - started} | report.provenance.timings
        report.provenance.timings = {stage: round(s, 4) for stage, s in spent.items()}
        store.save_report(report)
        reports.append(report)
    return ReportRun(reports=reports, analysis=analysis, sync=stats)


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


def sample_config(config: Config) -> Config:
    """``config`` with the sample repository as a project (the preset's focus areas)."""
    if any(p.repo == SAMPLE_REPO for p in config.projects):
        return config
    preset = config.project(SAMPLE_PRESET)
    project = Project(
        repo=SAMPLE_REPO,
        name=SAMPLE_NAME,
        tz=DEMO_TZ,
        focus=preset.focus,
        categories=preset.categories,
    )
    return config.model_copy(update={"projects": [*config.projects, project]})


def check_demo_store(store: Store, db: str) -> None:
    """The demo writes only into a new database or one holding nothing but its sample."""
    _refuse_others(db, store.repos())


def check_demo_file(db: str) -> None:
    """Before opening (which could migrate it): an existing SQLite file must hold only the
    sample; it is read in read-only mode."""
    path = Path(db)
    if "://" in db or not path.exists():
        return
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as conn:
            repos = [row[0] for row in conn.execute("SELECT full_name FROM repos")]
    except sqlite3.DatabaseError:
        repos = ["data devdigest did not write"]
    _refuse_others(db, repos)


def _refuse_others(db: str, repos: list[str]) -> None:
    others = [repo for repo in repos if repo != SAMPLE_REPO]
    if others:
        raise ConfigError(
            f"--db {db} holds other data ({', '.join(others[:3])}): the demo never writes into "
            "it; drop --db (the demo uses its own database) or name a new file"
        )


def sample_window(end: datetime, tz: str = DEMO_TZ) -> Window:
    """The 24 hours ending at ``end``, shown in ``tz``."""
    return Window(end - timedelta(hours=24), end, tz)
