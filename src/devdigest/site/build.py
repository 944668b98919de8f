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
   Jekyll site) are linked over as well. Files are never modified in place, so the old folder
   stays intact whatever happens.
3. The new manifest is written, then the folders are swapped with two renames: the old folder
   becomes ``.NAME.old-*``, the staging folder becomes the output folder, and the old one is
   deleted. An exception at any point before the swap removes the staging folder and leaves the
   previous site untouched; a crash between the two renames is repaired by the next build,
   which restores the ``.old`` folder. One build at a time per output folder.

Only pages whose inputs changed are rendered: a new report rewrites its own page, the pages of
its neighbouring days (their previous/next links), its project's index, the home page, the
feeds and the JSON index; every other page is linked from the previous build.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import markdown_it

from devdigest import __version__
from devdigest.config import Config
from devdigest.errors import SiteError
from devdigest.models import DailyReport
from devdigest.site.feeds import feed_pages, json_pages
from devdigest.site.layout import CSS, SiteLayout, collect_layout
from devdigest.site.pages import Page, html_pages

MANIFEST = ".devdigest-manifest.json"
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
    seconds: float = 0.0

    @property
    def pages(self) -> int:
        return len(self.written) + len(self.reused)

    def summary(self) -> str:
        return (
            f"{self.out}: {self.pages} files ({len(self.written)} written, "
            f"{len(self.reused)} unchanged, {len(self.removed)} removed) in {self.seconds:.2f} s"
        )


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
    """Publish every report of ``store`` into ``out`` (default ``config.site_out``)."""
    return build_from_reports(
        store.reports(), config, out or config.site_out, fmt, base_url, on_page
    )


def build_from_reports(
    reports: list[DailyReport],
    config: Config,
    out: str | Path,
    fmt: str = "html",
    base_url: str | None = None,
    on_page: Callable[[str], None] | None = None,
) -> BuildReport:
    """``build_site`` over a list of reports (see the module docstring for the design)."""
    if fmt not in FORMATS:
        raise SiteError(f"unknown site format {fmt!r}: use one of {', '.join(FORMATS)}")
    started = time.perf_counter()
    out = Path(out).expanduser().absolute()
    layout = collect_layout(reports, config)
    pages = list(_pages(layout, fmt, base_url))
    report = BuildReport(out=out, format=fmt)
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
    yield from feed_pages(layout, base_url)
    yield from json_pages(layout)


def _write_pages(
    pages: Iterable[Page],
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
        digest = hashlib.sha256(f"{fingerprint}\0{page.path}\0{page.inputs}".encode()).hexdigest()
        hashes[page.path] = digest
        target = staging / page.path
        target.parent.mkdir(parents=True, exist_ok=True)
        previous = out / page.path
        if old.get(page.path) == digest and previous.is_file():
            _link(previous, target)
            report.reused.append(page.path)
        else:
            target.write_bytes(page.render())
            report.written.append(page.path)
        if on_page is not None:
            on_page(page.path)
    return hashes


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
            if rel == MANIFEST or rel in owned or target.exists() or target.is_symlink():
                continue
            if source.is_symlink():
                target.parent.mkdir(parents=True, exist_ok=True)
                os.symlink(os.readlink(source), target)
            elif source.is_dir():
                target.mkdir(parents=True, exist_ok=True)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                _link(source, target)
                kept.append(rel)
        dirs[:] = [d for d in dirs if not (Path(root) / d).is_symlink()]
    return kept


def _stage(out: Path) -> Path:
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=f".{out.name}.staging-", dir=out.parent))
    except OSError as exc:
        raise SiteError(f"cannot create a folder next to {out}: {exc}; check --out") from exc


def _swap(staging: Path, out: Path) -> None:
    os.chmod(staging, 0o755)
    backup = None
    if out.exists():
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
