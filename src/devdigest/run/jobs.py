"""The per-repository steps of a run, as plain functions of plain arguments.

The in-process executor calls them in order; a distributed executor can call the same functions
from its tasks (each opens its own ``Config`` and ``Store``). Each is idempotent: rerunning one
after a crash converges on what a clean run produces.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from devdigest.config import Config
from devdigest.github.sync import Progress, ensure_synced
from devdigest.models import DailyReport, SyncStats
from devdigest.report import generate_reports, report_stem, write_files
from devdigest.site.build import BuildReport, build_site
from devdigest.store import Store
from devdigest.store.runs import WindowKey, stored_windows
from devdigest.window import Window


def sync_repository(
    config: Config,
    store: Store,
    repo: str,
    since: datetime,
    *,
    progress: Progress | None = None,
    wait: bool = True,
) -> SyncStats | None:
    """One incremental sync of ``repo`` that covers every window starting at or after ``since``.

    ``wait=False``: raise ``RateLimited`` (with the reset time) instead of waiting for a reset.
    """
    return ensure_synced(config, store, repo, since, progress=progress, wait=wait)


def write_window_reports(
    config: Config,
    store: Store,
    repo: str,
    start: datetime,
    end: datetime,
    tz: str,
    langs: list[str],
    *,
    writer: str = "auto",
    now: datetime,
) -> list[DailyReport]:
    """Analyse ``[start, end)`` from the store (no sync), write the reports in ``langs``, store
    them and write their Markdown and JSON files under ``config.out``."""
    window = Window(start, end, tz)
    run = generate_reports(config, store, repo, window, langs, writer=writer, no_sync=True, now=now)
    for report in run.reports:
        write_files(report, config.out, config)
    return run.reports


def publish_site(config: Config, store: Store) -> BuildReport:
    """Rebuild the site from every stored report (incremental: unchanged pages are reused)."""
    return build_site(store, config, config.site_out)


def finished_windows(config: Config, store: Store, repo: str) -> dict[WindowKey, set[str]]:
    """Stored windows of ``repo`` → languages whose report is stored AND whose files exist
    under ``config.out``.

    The store row is written before the files, so a crash between the two leaves a window that
    the next run writes again instead of one without files.
    """
    owner, name = repo.split("/", 1)
    folder = Path(config.out) / owner / name
    tz = config.project(repo).tz
    done: dict[WindowKey, set[str]] = {}
    for (start, end), langs in stored_windows(store, repo).items():
        stem = report_stem(config, repo, Window(start, end, tz))
        present = {
            lang
            for lang in langs
            if all((folder / f"{stem}.{lang}.{ext}").is_file() for ext in ("md", "json"))
        }
        if present:
            done[(start, end)] = present
    return done


__all__ = [
    "finished_windows",
    "publish_site",
    "sync_repository",
    "write_window_reports",
]
