"""What the site contains (projects, days, languages) and where each page lives.

Paths are relative to the site root and use ``/``. Day pages follow ``Config.site_path_pattern``
(default ``{owner}/{repo}/{date}{lang_suffix}.html``: ``2026-03-12.html`` in the site language,
``2026-03-12.en.html`` in another). A project's index is ``{owner}/{repo}/index.html`` and its
feed ``{owner}/{repo}/feed.xml``; the home page is ``index.html``, the overall feed ``feed.xml``,
the JSON index ``index.json``. Owner and repository names are lower-cased in paths, so a
path never changes with the spelling of a configured name.

A day shows one window in every language, never a mix: when several stored reports share a
repository and date (e.g. ``--date`` and ``--last 24h`` runs), the project's calendar day (in its
``tz``) is published if there is one, else the window ending last.
"""

from __future__ import annotations

import posixpath
import string
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, PrivateAttr

from devdigest.config import REPO_RE, Config
from devdigest.errors import ConfigError
from devdigest.models import Counts, DailyReport, Provenance, Statement, Topic, WindowInfo
from devdigest.period_models import PeriodReport
from devdigest.run.windows import standard_date
from devdigest.window import Window

PATTERN_FIELDS = {"owner", "repo", "date", "year", "month", "lang", "lang_suffix"}
HOME = "index.html"
ALL_FEED = "feed.xml"
JSON_INDEX = "index.json"
CSS = "static/site.css"


class ReportHead(BaseModel):
    """The fields of a stored report that index pages need, parsed without the rest.

    Parsing a whole vLLM-sized report costs milliseconds; an incremental build only parses the
    reports whose pages it renders (``full()``), and hashes the stored JSON text (``raw``).
    """

    model_config = ConfigDict(extra="ignore")
    repo: str
    sample: bool = False
    project: str
    lang: str
    date: str
    window: WindowInfo
    counts: Counts
    summary: list[Statement] = []
    topics: list[Topic] = []
    provenance: Provenance
    _raw: str = PrivateAttr("")
    _full: DailyReport | None = PrivateAttr(None)

    @classmethod
    def from_json(cls, raw: str) -> ReportHead:
        head = cls.model_validate_json(raw)
        head._raw = raw
        return head

    @classmethod
    def from_report(cls, report: DailyReport) -> ReportHead:
        head = cls.from_json(report.model_dump_json())
        head._full = report
        return head

    @property
    def raw(self) -> str:
        return self._raw

    def full(self) -> DailyReport:
        if self._full is None:
            self._full = DailyReport.model_validate_json(self._raw)
        return self._full


@dataclass
class Project:
    """One project of the site and its reports: ``days[date][lang]``."""

    repo: str
    name: str
    days: dict[str, dict[str, ReportHead]] = field(default_factory=dict)
    # (kind, period) -> lang -> the stored week or month report (``site/periods.py``)
    periods: dict[tuple[str, str], dict[str, PeriodReport]] = field(default_factory=dict)

    @property
    def sample(self) -> bool:
        """Generated sample data (the demo): no link to GitHub, a note saying so."""
        return any(r.sample for reports in self.days.values() for r in reports.values())

    @property
    def key(self) -> str:
        return self.repo.lower()

    @property
    def dates(self) -> list[str]:
        """Dates with a report, oldest first."""
        return sorted(self.days)

    def main_report(self, date: str, lang: str) -> ReportHead:
        """The report of ``date`` in ``lang`` if there is one, else in any language."""
        reports = self.days[date]
        return reports.get(lang) or reports[sorted(reports)[0]]


@dataclass
class SiteLayout:
    """The projects to publish and the path of every page."""

    projects: list[Project]
    pattern: str
    lang: str
    skipped: list[str] = field(default_factory=list)  # stored repos whose names are not valid

    def day_path(self, report: ReportHead, ext: str = ".html") -> str:
        owner, name = report.repo.lower().split("/", 1)
        suffix = "" if report.lang == self.lang else f".{report.lang}"
        path = self.pattern.format(
            owner=owner,
            repo=name,
            date=report.date,
            year=report.date[:4],
            month=report.date[5:7],
            lang=report.lang,
            lang_suffix=suffix,
        )
        return path.removesuffix(".html") + ext

    def project_path(self, project: Project, leaf: str = "index.html") -> str:
        return f"{project.key}/{leaf}"


def check_pattern(pattern: str) -> str:
    """Validate a day-page path pattern; raise ConfigError saying how to fix it."""
    fix = "fix site_path_pattern, e.g. '{owner}/{repo}/{date}{lang_suffix}.html'"
    try:
        names = {f for _, f, _, _ in string.Formatter().parse(pattern) if f is not None}
    except ValueError as exc:
        raise ConfigError(f"site_path_pattern {pattern!r} is malformed ({exc}): {fix}") from exc
    unknown = names - PATTERN_FIELDS
    if unknown:
        raise ConfigError(f"site_path_pattern has unknown fields {sorted(unknown)}: {fix}")
    missing = {"owner", "repo", "date"} - names
    if missing or not names & {"lang", "lang_suffix"}:
        raise ConfigError(f"site_path_pattern must use owner, repo, date and lang(_suffix): {fix}")
    if not pattern.endswith(".html") or pattern.startswith("/") or ".." in pattern.split("/"):
        raise ConfigError(f"site_path_pattern must be a relative path ending in .html: {fix}")
    return pattern


def relative(from_page: str, to_path: str) -> str:
    """A relative link from one site page to another path of the site (works from file://)."""
    start = posixpath.dirname(from_page) or "."
    return posixpath.relpath(to_path, start)


def collect_layout(reports: list[ReportHead], config: Config) -> SiteLayout:
    """Group stored reports by project, date and language (configured projects first)."""
    projects: dict[str, Project] = {}
    for configured in config.projects:
        projects[configured.repo.lower()] = Project(configured.repo, configured.display_name)
    skipped = sorted({r.repo for r in reports if not REPO_RE.fullmatch(r.repo)})
    days: dict[tuple[str, str], list[ReportHead]] = {}
    for report in reports:
        if report.repo not in skipped:  # a name like ../.. must never become a path
            days.setdefault((report.repo.lower(), report.date), []).append(report)
    for (repo, date), candidates in sorted(days.items()):
        if repo not in projects:  # not configured: named by its reports
            projects[repo] = Project(candidates[0].repo, candidates[0].project or repo)
        chosen = {r.lang: r for r in _one_window(candidates, config)}
        projects[repo].days[date] = dict(sorted(chosen.items()))
    ordered = sorted(projects.values(), key=lambda p: (p.name.lower(), p.key))
    return SiteLayout(ordered, check_pattern(config.site_path_pattern), config.site_lang, skipped)


def _one_window(reports: list[ReportHead], config: Config) -> list[ReportHead]:
    """The reports of the day's published window: the project's own daily window (its
    schedule's or its calendar day) if there is one, else the window ending last; within it,
    the latest report of each language."""

    def rank(report: ReportHead) -> tuple:
        window = Window(report.window.start, report.window.end, report.window.tz)
        day = standard_date(config, report.repo, window)
        return (day is not None and day.isoformat() == report.date, window.end, window.start)

    best = max(rank(r) for r in reports)
    chosen = [r for r in reports if rank(r) == best]
    return sorted(chosen, key=lambda r: r.provenance.generated_at)
