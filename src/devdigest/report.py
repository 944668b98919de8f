"""Producing reports end to end: sync (optional), analysis, writing, rendering and files.

``generate_reports`` is the plain-function form of ``devdigest report``; the site build, the
demo and the benchmarks call it too.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from devdigest.analysis import compute_window_analysis
from devdigest.analysis.trends import history_start
from devdigest.analysis.types import WindowAnalysis
from devdigest.config import Config, Project, Schedule, validate_repo
from devdigest.errors import ConfigError
from devdigest.github.normalize import (
    normalize_event,
    normalize_issue_comment,
    normalize_item,
    normalize_review,
    normalize_review_comment,
)
from devdigest.models import DailyReport, SyncStats
from devdigest.period_models import PeriodReport
from devdigest.render.markdown import render_json, render_markdown
from devdigest.sample.model import Dataset
from devdigest.store import Store
from devdigest.window import Window, format_local
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
    notes: list[str] = field(default_factory=list)  # for stderr, e.g. a partly covered window
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
    wait: bool = True,
    progress: Progress | None = None,
    history: bool = True,
) -> SyncStats | None:
    """Bring the store up to date for ``window`` (nothing with ``no_sync``), and unless
    ``history`` is off, list the items of the days before it that trends compare with;
    ``wait=False`` stops at an exhausted rate limit instead of waiting for its reset."""
    if no_sync:
        return None
    from devdigest.github.sync import ensure_history, ensure_synced

    stats = ensure_synced(config, store, repo, window.start, wait=wait, progress=progress)
    if history:
        since = history_start(window)
        more = ensure_history(config, store, repo, since, wait=wait, progress=progress)
        if stats is not None and more is not None:
            stats.requests += more.requests
            stats.items += more.items
            stats.finished_at = more.finished_at
    return stats


def stored_range(store: Store, repo: str) -> tuple[datetime, datetime] | None:
    """``[from, to]``: the span in which the store holds every change of ``repo``, or ``None``
    when no sync of every listing has completed. ``to`` is the server time the oldest listing
    watermark was taken at (the watermark plus its safety margin)."""
    from devdigest.github.sync import LISTINGS, MARGIN, covered_from

    start = covered_from(store, repo)
    if start is None:
        return None
    repo_id = store.repo_id(repo, create=False)
    marks = [store.watermark(repo_id, name) for name in LISTINGS]
    return None if None in marks else (start, min(marks) + MARGIN)


def check_coverage(store: Store, repo: str, window: Window) -> str | None:
    """For ``--no-sync``: refuse a window the store cannot count (never synced, or starting
    before the stored history); return a note when it ends after the last sync."""
    if store.repo_id(repo, create=False) < 0:
        raise ConfigError(
            f"no stored data for {repo}: run `devdigest sync {repo}` or drop --no-sync"
        )
    span = stored_range(store, repo)
    if span is None:
        raise ConfigError(
            f"the store holds no complete sync of {repo} (never run or interrupted): run "
            f"`devdigest sync {repo}` or drop --no-sync"
        )
    zone = window.zone
    first, last = (format_local(moment, zone) for moment in span)
    held = f"the store holds {repo} from {first} to {last}"
    if window.start < span[0]:
        raise ConfigError(
            f"{held}, but the window starts at {format_local(window.start, zone)}: drop --no-sync "
            "to fetch the missing days, or choose a window inside that range"
        )
    if window.end > span[1]:
        return (
            f"{held}, but the window ends at {format_local(window.end, zone)}: later changes are "
            "not counted (drop --no-sync to fetch them)"
        )
    return None


def generate_reports(
    config: Config,
    store: Store,
    repo: str,
    window: Window,
    langs: list[str],
    *,
    writer: str = "auto",
    no_sync: bool = False,
    wait: bool = True,
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
    choice = check_writer(config, config.project(repo), writer, store)  # before any sync
    timings: dict[str, float] = {}
    note = check_coverage(store, repo, window) if no_sync else None
    started = time.perf_counter()
    stats = sync_for(
        config, store, repo, window, no_sync=no_sync, wait=wait, progress=progress, history=history
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
        report = write_report(
            analysis, lang, writer=choice.writer, config=config, store=store, now=clock
        )
        report.sample = sample
        spent = timings | {"write": time.perf_counter() - started} | report.provenance.timings
        report.provenance.timings = {stage: round(s, 4) for stage, s in spent.items()}
        store.save_report(report)
        reports.append(report)
    return ReportRun(reports, analysis, stats, [note] if note else [], choice.note)


@dataclass
class PeriodRun:
    """What one ``generate_period_reports`` call produced."""

    reports: list[PeriodReport]
    sync: SyncStats | None = None


def generate_period_reports(
    config: Config,
    store: Store,
    repo: str,
    window: Window,
    langs: list[str],
    *,
    no_sync: bool = False,
    now: datetime | None = None,
    progress: Progress | None = None,
) -> PeriodRun:
    """The period report (week, month, any window longer than a day) of ``repo`` over
    ``window``: sync (unless ``no_sync``), analyse once, write and store one report per
    language.

    Period reports are written offline: their numbers and rankings come from the store.
    """
    from devdigest.analysis.period import compute_period_analysis
    from devdigest.store.periods import save_period_report
    from devdigest.writers.period import write_period_report

    stats = sync_for(config, store, repo, window, no_sync=no_sync, progress=progress)
    started = time.perf_counter()
    analysis = compute_period_analysis(store, config, repo, window)
    spent = time.perf_counter() - started
    clock = now or datetime.now(UTC)
    reports = []
    for lang in langs:
        report = write_period_report(analysis, lang, now=clock)
        report.provenance.timings = {"analysis": round(spent, 4)}
        if stats is not None:
            report.provenance.github_requests = stats.requests
            report.provenance.data_fetched_at = stats.finished_at
        save_period_report(store, report)
        reports.append(report)
    return PeriodRun(reports=reports, sync=stats)


def write_period_files(report: PeriodReport, out: str | Path) -> list[Path]:
    """``OUT/OWNER/REPO/<period>.<lang>.md``, ``.json`` and the chart ``.svg``."""
    from devdigest.render.period import (
        chart_name,
        period_slug,
        render_period_chart,
        render_period_json,
        render_period_markdown,
    )

    owner, name = report.repo.split("/", 1)
    folder = Path(out) / owner / name
    folder.mkdir(parents=True, exist_ok=True)
    slug = period_slug(report)
    files = {
        f"{slug}.{report.lang}.md": render_period_markdown(report),
        f"{slug}.{report.lang}.json": render_period_json(report),
        chart_name(report): render_period_chart(report),
    }
    paths = []
    for filename, text in files.items():
        path = folder / filename
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        paths.append(path)
    return paths


def report_stem(config: Config | None, repo: str, window: Window) -> str:
    """The date for one of the project's own daily windows (``standard_date``), else the
    window's ``slug``: two different windows never share a file name."""
    from devdigest.run.windows import standard_date

    day = standard_date(config, repo, window) if config is not None else None
    return day.isoformat() if day else window.slug


def report_path(
    out: str | Path, report: DailyReport, suffix: str, config: Config | None = None
) -> Path:
    """``OUT/OWNER/REPO/<stem>.<lang>.<suffix>`` (see ``report_stem``)."""
    owner, name = validate_repo(report.repo).split("/", 1)
    info = report.window
    stem = report_stem(config, report.repo, Window(info.start, info.end, info.tz))
    return Path(out) / owner / name / f"{stem}.{report.lang}.{suffix}"


def write_files(report: DailyReport, out: str | Path, config: Config | None = None) -> list[Path]:
    """The Markdown and JSON files of ``report`` under ``out``; returns their paths."""
    paths = []
    for suffix, text in (("md", render_markdown(report)), ("json", render_json(report))):
        path = report_path(out, report, suffix, config)
        tmp = path.with_suffix(path.suffix + ".tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(path)
        except OSError as exc:
            reason = exc.strerror or exc.__class__.__name__
            raise ConfigError(
                f"cannot write {path}: {reason}; choose a writable folder with --out"
            ) from exc
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
    events = [normalize_event(obj) for obj in dataset.issue_events_json(at)]
    from devdigest.github.sync import MARGIN, RESOURCES

    with store.transaction() as conn:
        repo_id = store.repo_id(dataset.repo, conn)
        store.upsert_items(conn, repo_id, items)
        store.upsert_item_events(conn, repo_id, [e for e in events if e is not None])
        store.upsert_comments(conn, repo_id, [c for c in comments if c.created_at <= at])
        # the store holds the whole dataset up to ``at``, as a sync since its oldest item would;
        # a store that was ever synced keeps its own records
        oldest = min([dataset.start] + [item.created_at for item in items])
        for listing in RESOURCES:
            if store.watermark(repo_id, listing) is None:
                store.set_watermark(conn, repo_id, listing, at - MARGIN)
                store.set_watermark(conn, repo_id, f"{listing}:from", oldest)
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
        schedule=Schedule(cutoff="11:24", window="24h"),  # the sample day's window
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
