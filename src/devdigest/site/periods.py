"""Week and month pages, their Atom feeds, and the links to them from project and day pages.

A period page lives beside the days: ``{owner}/{repo}/{period}{lang_suffix}.html`` (``2026-W11``,
``2026-03``), with the period's per-day chart inline. Each project has ``weekly.xml`` and
``monthly.xml``. The report's text is rendered from Markdown with raw HTML disabled, as for days.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date

from markupsafe import Markup

from devdigest.config import REPO_RE
from devdigest.models import COUNT_KEYS
from devdigest.period_models import PeriodReport
from devdigest.render.period import period_slug, render_period_chart, render_period_html
from devdigest.site.feeds import EPOCH, _absolute, _stamp, _sub, _url, feed_bytes, feed_head
from devdigest.site.layout import Project, SiteLayout, relative
from devdigest.site.pages import ENV, Page, _common, github_url
from devdigest.site.strings import LANG_NAMES, strings

KINDS = ("week", "month")
FEEDS = {"week": "weekly.xml", "month": "monthly.xml"}
FEED_ENTRIES = 50


def attach_periods(layout: SiteLayout, reports: list[PeriodReport]) -> None:
    """File each week and month report under its project (invalid repository names dropped)."""
    projects = {p.key: p for p in layout.projects}
    for report in reports:
        if report.kind not in KINDS or not REPO_RE.fullmatch(report.repo):
            continue
        project = projects.get(report.repo.lower())
        if project is None:
            project = projects[report.repo.lower()] = Project(report.repo, report.project)
            layout.projects.append(project)
        project.periods.setdefault((report.kind, report.period), {})[report.lang] = report


def period_path(layout: SiteLayout, report: PeriodReport) -> str:
    suffix = "" if report.lang == layout.lang else f".{report.lang}"
    return f"{report.repo.lower()}/{period_slug(report)}{suffix}.html"


def _main(reports: dict[str, PeriodReport], lang: str) -> PeriodReport:
    return reports.get(lang) or reports[sorted(reports)[0]]


def period_rows(layout: SiteLayout, project: Project, page: str) -> list[dict]:
    """The project page's table of weeks and months, newest first."""
    s = strings(layout.lang)
    rows = []
    for (kind, period), reports in sorted(project.periods.items(), key=_newest_first):
        links = [
            {
                "lang": lang,
                "name": LANG_NAMES.get(lang, lang),
                "href": relative(page, period_path(layout, reports[lang])),
            }
            for lang in sorted(reports, key=lambda x: (x != layout.lang, x))
        ]
        counts = _main(reports, layout.lang).counts.model_dump(include=set(COUNT_KEYS))
        rows.append(
            {"period": period, "kind": s[kind], "href": links[0]["href"], "links": links}
            | {"counts": counts}
        )
    return rows


def _newest_first(entry: tuple[tuple[str, str], dict[str, PeriodReport]]) -> tuple:
    (kind, _), reports = entry
    report = next(iter(reports.values()))
    return (-report.window.end.timestamp(), KINDS.index(kind))


def period_feed_links(layout: SiteLayout, project: Project, page: str) -> list[dict]:
    s = strings(layout.lang)
    kinds = sorted({kind for kind, _ in project.periods}, key=KINDS.index)
    return [
        {"title": s[f"{k}_feed"], "href": relative(page, layout.project_path(project, FEEDS[k]))}
        for k in kinds
    ]


def week_of(day: str) -> str:
    """The ISO week (``2026-W11``) of a local date."""
    year, week, _ = date.fromisoformat(day).isocalendar()
    return f"{year}-W{week:02d}"


def week_link(layout: SiteLayout, project: Project, page: str, day: str, lang: str) -> dict | None:
    """The link from a day page to its week's page, if that week is published."""
    reports = project.periods.get(("week", week_of(day)))
    if not reports:
        return None
    report = _main(reports, lang)
    s = strings(lang)
    href = relative(page, period_path(layout, report))
    return {"href": href, "label": s["week_link"].format(period=report.period)}


def period_pages(layout: SiteLayout, base_url: str | None) -> Iterator[Page]:
    """One page per stored week and month report, and each project's two feeds."""
    for project in layout.projects:
        for (_, _), reports in sorted(project.periods.items()):
            for report in reports.values():
                yield _period_page(layout, project, report, reports)
        for kind in KINDS:
            chosen = [r for (k, _), rs in project.periods.items() if k == kind for r in rs.values()]
            if chosen:
                yield _feed(layout, project, kind, chosen, base_url)


def _period_page(
    layout: SiteLayout, project: Project, report: PeriodReport, alternates: dict
) -> Page:
    path = period_path(layout, report)
    s = strings(report.lang)
    ctx = _common(path, report.lang) | {
        "title": f"{project.name} · {report.period}",
        "project": {"name": project.name, "href": relative(path, layout.project_path(project))},
        "back": s["back_project"].format(name=project.name),
        "github": github_url(project),
        "alternates": [
            {
                "lang": other,
                "name": LANG_NAMES.get(other, other),
                "href": relative(path, period_path(layout, alt)),
                "current": other == report.lang,
            }
            for other, alt in sorted(alternates.items())
        ],
    }
    raw = report.model_dump_json()

    def render() -> bytes:
        head, tail = render_period_html(report)
        body = {"head": Markup(head), "tail": Markup(tail), "chart": render_period_chart(report)}
        return ENV.get_template("period.html.j2").render(ctx | body).encode("utf-8")

    return Page(path, json.dumps(ctx, sort_keys=True, ensure_ascii=False) + raw, render)


def _feed(
    layout: SiteLayout,
    project: Project,
    kind: str,
    reports: list[PeriodReport],
    base_url: str | None,
) -> Page:
    """The Atom feed of a project's weeks (or months), newest first."""
    path = layout.project_path(project, FEEDS[kind])
    s = strings(layout.lang)
    urn = f"urn:devdigest:{project.key}:{kind}"
    feed_id = _absolute(base_url, path) if base_url else urn
    title = f"{s['project_title'].format(name=project.name)} · {s[kind]}"
    newest = sorted(reports, key=lambda r: (r.window.end, r.lang), reverse=True)[:FEED_ENTRIES]
    inputs = json.dumps(
        [path, title, feed_id, base_url] + [r.model_dump_json() for r in newest],
        ensure_ascii=False,
    )

    def render() -> bytes:
        updated = max((r.provenance.generated_at for r in newest), default=EPOCH)
        feed = feed_head(feed_id, title, updated, base_url, path, layout.project_path(project))
        for report in newest:
            page = period_path(layout, report)
            entry = _sub(feed, "entry")
            entry_id = f"{urn}:{report.period}:{report.lang}"
            _sub(entry, "id", _absolute(base_url, page) if base_url else entry_id)
            _sub(entry, "title", f"{report.project} · {report.period} ({report.lang})")
            _sub(entry, "updated", _stamp(report.provenance.generated_at))
            href = _url(base_url, path, page)
            _sub(entry, "link", rel="alternate", type="text/html", href=href, hreflang=report.lang)
            summary = "\n\n".join(st.text for st in report.summary) or report.window.label
            _sub(entry, "summary", summary, type="text")
        return feed_bytes(feed)

    return Page(path, inputs, render)
