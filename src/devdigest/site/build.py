"""``build_site``: every stored report into a static site (or a Jekyll export), atomically and
incrementally.

Design (atomic and incremental at once):

1. Everything is collected first: the reports, the layout, and for each output file its path and
   a hash of its inputs (the page's own data plus a fingerprint of the rendering code, so an
   upgrade re-renders everything).
2. A fresh staging folder is created next to the output folder (``.NAME.staging-*``, same file
   system). For each page, if the previous build's manifest (``.devdigest-manifest.json``)
   records the same hash for the same path, the previous file is hard-linked into the staging
   folder (copied where hard links are unsupported); otherwise the page is rendered and written
   there. Files of the old folder that devdigest did not produce (a ``CNAME``, the rest of a
   Jekyll site) are linked over as well; symbolic links are not (nor reused as pages), so a
   link to ``/etc/passwd`` never becomes part of the site. The new folder keeps the old one's
   permissions (a first build: the umask's). Files are never modified in place, so the old folder
   stays intact whatever happens.
3. The new manifest is written, then the folders are swapped with two renames: the old folder
   becomes ``.NAME.old-*``, the staging folder becomes the output folder, and the old one is
   deleted. An exception at any point before the swap removes the staging folder and leaves the
   previous site untouched; a crash between the two renames is repaired by the next build,
   which restores the ``.old`` folder. One build at a time per output folder.

Only pages whose inputs changed are rendered (in worker processes when there are many, as in a
first build): a new report rewrites its own page, the pages of
its neighbouring days (their previous/next links), its project's index, the home page, the
feeds and the JSON index; every other page is linked from the previous build. Stored week and
month reports get their pages and feeds the same way (``site/periods.py``).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import shutil
import stat
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import markdown_it
from pydantic import ValidationError

from devdigest import __version__
from devdigest.config import Config
from devdigest.errors import SiteError
from devdigest.models import DailyReport
from devdigest.period_models import PeriodReport
from devdigest.site.feeds import feed_pages, json_pages
from devdigest.site.layout import CSS, ReportHead, SiteLayout, collect_layout
from devdigest.site.pages import Page, html_pages
from devdigest.site.periods import attach_periods, period_pages
from devdigest.store.periods import period_report_json

MANIFEST = ".devdigest-manifest.json"
PARALLEL_MIN = 64  # pages to render before worker processes pay off
FORMATS = ("html", "jekyll")
_PACKAGE = Path(__file__).resolve().parent.parent


@dataclass
class BuildReport:
    """What a build did; paths are relative to ``out``."""

    out: Path
    format: str
    written: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # repositories with invalid names
    unreadable: int = 0  # stored reports whose JSON does not parse
    seconds: float = 0.0

    @property
    def pages(self) -> int:
        return len(self.written) + len(self.reused)

    def summary(self) -> str:
        text = (
            f"{self.out}: {self.pages} files ({len(self.written)} written, "
            f"{len(self.reused)} unchanged, {len(self.removed)} removed) in {self.seconds:.2f} s"
        )
        if self.skipped:
            names = ", ".join(repr(name) for name in self.skipped)
            text += f"; skipped the reports of invalid repository names: {names}"
        if self.unreadable:
            text += (
                f"; skipped {self.unreadable} unreadable stored report(s) (damaged JSON): "
                "write them again with `devdigest report`"
            )
        return text


def code_fingerprint() -> str:
    """A hash of everything that shapes the output: the render and site packages, versions."""
    digest = hashlib.sha256(f"{__version__}|{markdown_it.__version__}".encode())
    for sub in ("render", "site"):
        for path in sorted((_PACKAGE / sub).rglob("*")):
            if path.is_file() and path.suffix in {".py", ".j2", ".css", ".json", ".toml"}:
                digest.update(str(path.relative_to(_PACKAGE)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def build_site(
    store,
    config: Config,
    out: str | Path | None = None,
    fmt: str = "html",
    base_url: str | None = None,
    on_page: Callable[[str], None] | None = None,
) -> BuildReport:
    """Publish every report of ``store`` into ``out`` (default ``config.site_out``); feed links
    are absolute under ``base_url`` (default ``config.site_url``), else relative."""
    heads = []
    unreadable = 0
    for raw in store.report_json():
        try:
            heads.append(ReportHead.from_json(raw))
        except ValidationError:  # a damaged row must not take the whole site down
            unreadable += 1
    periods = []
    for raw in period_report_json(store):
        try:
            periods.append(PeriodReport.model_validate_json(raw))
        except ValidationError:
            unreadable += 1
    base_url = base_url or config.site_url
    out = out or config.site_out
    report = build_from_reports(heads, config, out, fmt, base_url, on_page, periods)
    report.unreadable = unreadable
    return report


def build_from_reports(
    reports: list[DailyReport] | list[ReportHead],
    config: Config,
    out: str | Path,
    fmt: str = "html",
    base_url: str | None = None,
    on_page: Callable[[str], None] | None = None,
    periods: list[PeriodReport] | None = None,
) -> BuildReport:
    """``build_site`` over a list of reports and week/month reports (see the module docstring
    for the design)."""
    heads = [r if isinstance(r, ReportHead) else ReportHead.from_report(r) for r in reports]
    if fmt not in FORMATS:
        raise SiteError(f"unknown site format {fmt!r}: use one of {', '.join(FORMATS)}")
    started = time.perf_counter()
    out = Path(out).expanduser().absolute()
    layout = collect_layout(heads, config)
    attach_periods(layout, periods or [])
    pages = list(_pages(layout, fmt, base_url))
    report = BuildReport(out=out, format=fmt, skipped=layout.skipped)
    _recover(out)
    old = _read_manifest(out, fmt)
    staging = _stage(out)
    try:
        hashes = _write_pages(pages, out, staging, old, report, on_page)
        report.removed = sorted(set(old) - set(hashes))
        report.kept = _carry_over(out, staging, set(old) | set(hashes))
        manifest = {"format": fmt, "version": __version__, "pages": hashes}
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=0, sort_keys=True), "utf-8")
        _swap(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    report.seconds = time.perf_counter() - started
    return report


def _pages(layout: SiteLayout, fmt: str, base_url: str | None) -> Iterator[Page]:
    if fmt == "jekyll":
        from devdigest.site.jekyll import jekyll_pages

        yield from jekyll_pages(layout)
        return
    css = (Path(__file__).parent / "static" / "site.css").read_bytes()
    yield Page(CSS, css.decode("utf-8"), lambda: css)
    yield from html_pages(layout)
    yield from period_pages(layout, base_url)
    yield from feed_pages(layout, base_url)
    yield from json_pages(layout)


def _write_pages(
    pages: list[Page],
    out: Path,
    staging: Path,
    old: dict[str, str],
    report: BuildReport,
    on_page: Callable[[str], None] | None,
) -> dict[str, str]:
    fingerprint = code_fingerprint()
    hashes: dict[str, str] = {}
    for page in pages:
        if page.path in hashes:
            raise SiteError(
                f"two pages map to {page.path}: make site_path_pattern unique per date and lang"
            )
        hashes[page.path] = hashlib.sha256(
            f"{fingerprint}\0{page.path}\0{page.inputs}".encode()
        ).hexdigest()
    stale = [p for p in pages if old.get(p.path) != hashes[p.path] or not _plain_file(out / p.path)]
    pool = _pool(stale)
    try:
        rendered = _submit(pool, stale)
        for page in pages:
            target = staging / page.path
            target.parent.mkdir(parents=True, exist_ok=True)
            if page.path in rendered:
                target.write_bytes(rendered.pop(page.path)())
                report.written.append(page.path)
            else:
                _link(out / page.path, target)
                report.reused.append(page.path)
            if on_page is not None:
                on_page(page.path)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return hashes


def _pool(pages: list[Page]) -> ProcessPoolExecutor | None:
    """Worker processes when enough pages are to be rendered (a full build), else None.
    None too inside a daemonic process (a Celery pool process), which may not have children."""
    workers = min(os.cpu_count() or 1, 8)
    if sum(p.job is not None for p in pages) < PARALLEL_MIN or workers < 2:
        return None
    if multiprocessing.current_process().daemon:
        return None
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method))


def _submit(pool: ProcessPoolExecutor | None, pages: list[Page]) -> dict[str, Callable[[], bytes]]:
    """A function giving each page's bytes, by path (a future's result when in a worker)."""
    result: dict[str, Callable[[], bytes]] = {}
    for page in pages:
        if pool is not None and page.job is not None:
            result[page.path] = pool.submit(page.job[0], *page.job[1]).result
        else:
            result[page.path] = page.render
    return result


def _plain_file(path: Path) -> bool:
    """A regular file, not a symbolic link (a link is never reused: it may lead anywhere)."""
    return path.is_file() and not path.is_symlink()


def _link(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _read_manifest(out: Path, fmt: str) -> dict[str, str]:
    if out.exists() and not out.is_dir():
        raise SiteError(f"{out} is a file, not a folder: choose another --out")
    try:
        data = json.loads((out / MANIFEST).read_text("utf-8"))
    except FileNotFoundError:
        if fmt == "html" and out.is_dir() and any(out.iterdir()):
            raise SiteError(
                f"{out} is not empty and holds no devdigest site: choose an empty or new --out"
            ) from None
        return {}
    except (OSError, ValueError):
        return {}  # unreadable manifest: rebuild every page
    pages = data.get("pages") if isinstance(data, dict) else None
    return pages if isinstance(pages, dict) else {}


def _carry_over(out: Path, staging: Path, owned: set[str]) -> list[str]:
    """Link files of the old folder that devdigest does not own into the staging folder."""
    kept: list[str] = []
    if not out.is_dir():
        return kept
    for root, dirs, files in os.walk(out):
        rel_root = Path(root).relative_to(out)
        for name in dirs + files:
            source = Path(root) / name
            rel = (rel_root / name).as_posix()
            target = staging / rel
            if rel == MANIFEST or rel in owned or target.exists() or source.is_symlink():
                continue  # symbolic links are dropped: the site must not lead out of itself
            if source.is_dir():
                target.mkdir(parents=True, exist_ok=True)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                _link(source, target)
                kept.append(rel)
        dirs[:] = [d for d in dirs if not (Path(root) / d).is_symlink()]
    return kept


def _stage(out: Path) -> Path:
    """A new folder next to ``out``, with the permissions a new folder gets (the umask)."""
    staging = out.with_name(f".{out.name}.staging-{os.getpid()}-{time.time_ns()}")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        staging.mkdir()
    except OSError as exc:
        raise SiteError(f"cannot create a folder next to {out}: {exc}; check --out") from exc
    return staging


def _swap(staging: Path, out: Path) -> None:
    backup = None
    if out.exists():  # the new folder keeps the old one's permissions, never wider
        os.chmod(staging, stat.S_IMODE(out.stat().st_mode))
        backup = out.with_name(f".{out.name}.old-{os.getpid()}-{time.time_ns()}")
        os.rename(out, backup)
    os.rename(staging, out)
    if backup is not None:
        shutil.rmtree(backup, ignore_errors=True)


def _recover(out: Path) -> None:
    """Undo a crash between the two renames of a swap; drop leftovers of failed builds."""
    if not out.parent.is_dir():
        return
    backups = sorted(out.parent.glob(f".{out.name}.old-*"), key=lambda p: p.stat().st_mtime)
    if backups and not out.exists():
        os.rename(backups.pop(), out)
    for leftover in backups + list(out.parent.glob(f".{out.name}.staging-*")):
        shutil.rmtree(leftover, ignore_errors=True)
