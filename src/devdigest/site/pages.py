"""The pages of the site as (path, inputs, render) triples; templates are Jinja with autoescape.

Each page's ``inputs`` is a string that fully determines its output together with the code
fingerprint; the build hashes it to decide whether the page must be rendered again.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from jinja2 import Environment, PackageLoader
from markupsafe import Markup

from devdigest.models import COUNT_KEYS, DailyReport
from devdigest.render.charts import SERIES, last_days, line_chart_svg, series_values, sparkline_svg
from devdigest.render.charts import total_activity as _activity
from devdigest.render.html import render_html_parts
from devdigest.render.sanitize import strip_invisible
from devdigest.site.layout import (
    ALL_FEED,
    CSS,
    HOME,
    JSON_INDEX,
    Project,
    ReportHead,
    SiteLayout,
    relative,
)
from devdigest.site.strings import HTML_LANG, LANG_NAMES, strings


def _finalize(value: object) -> object:
    """Every printed value loses its invisible characters (Markup is built from clean text)."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return strip_invisible(value)
    return value


ENV = Environment(
    loader=PackageLoader("devdigest.site", "templates"),
    autoescape=True,
    finalize=_finalize,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)


@dataclass
class Page:
    """An output file: ``inputs`` decide whether it changed, ``render`` makes its bytes.

    ``job`` (a module-level function and its picklable arguments) lets the build render the
    page in a worker process; ``render`` must return the same bytes.
    """

    path: str
    inputs: str
    render: Callable[[], bytes]
    job: tuple[Callable[..., bytes], tuple] | None = None


def _page(path: str, template: str, ctx: dict) -> Page:
    def render() -> bytes:
        return ENV.get_template(template).render(ctx).encode("utf-8")

    return Page(path, json.dumps(ctx, sort_keys=True, ensure_ascii=False), render)


def _common(path: str, lang: str) -> dict:
    return {
        "lang": lang,
        "html_lang": HTML_LANG.get(lang, lang),
        "s": strings(lang),
        "css": relative(path, CSS),
        "home": relative(path, HOME),
    }


def github_url(project: Project) -> str | None:
    """The project on GitHub; none for sample data (its repository is fictional)."""
    return None if project.sample else f"https://github.com/{project.repo}"


def html_pages(layout: SiteLayout) -> Iterator[Page]:
    """Every HTML page: home, one index per project, one page per report."""
    yield home_page(layout)
    for project in layout.projects:
        yield project_page(layout, project)
        yield from day_pages(layout, project)


def _counts(report: ReportHead) -> dict[str, int]:
    return report.counts.model_dump(include=set(COUNT_KEYS))


def home_page(layout: SiteLayout) -> Page:
    s = strings(layout.lang)
    rows = []
    for project in layout.projects:
        row = {
            "name": project.name,
            "repo": project.repo,
            "github": github_url(project),
            "sample": project.sample,
            "href": relative(HOME, layout.project_path(project)),
            "feed": relative(HOME, layout.project_path(project, "feed.xml")),
            "latest": None,
        }
        if project.days:
            last = project.dates[-1]
            report = project.main_report(last, layout.lang)
            values = [
                _activity(project.main_report(d, layout.lang).counts) if d in project.days else None
                for d in last_days(last)
            ]
            row["latest"] = {
                "date": last,
                "href": relative(HOME, layout.day_path(report)),
                "counts": _counts(report),
                "spark": sparkline_svg(values, f"{project.name}: {s['spark_title']}"),
            }
        rows.append(row)
    ctx = _common(HOME, layout.lang) | {
        "projects": rows,
        "feed": ALL_FEED,
        "json_index": JSON_INDEX,
        "count_keys": list(COUNT_KEYS),
    }
    return _page(HOME, "home.html.j2", ctx)


def project_chart(project: Project, lang: str) -> str:
    if not project.days:
        return ""
    s = strings(lang)
    days = last_days(project.dates[-1])
    series: dict[str, list[int | None]] = {name: [] for name in SERIES}
    for day in days:
        values = series_values(project.main_report(day, lang).counts) if day in project.days else {}
        for name in SERIES:
            series[name].append(values.get(name))
    return line_chart_svg(
        days, series, {n: s[n] for n in SERIES}, f"{project.name}: {s['chart_title']}"
    )


def project_page(layout: SiteLayout, project: Project) -> Page:
    from devdigest.site.periods import period_feed_links, period_rows  # they build on this module

    path = layout.project_path(project)
    rows = []
    for day in reversed(project.dates):
        report = project.main_report(day, layout.lang)
        links = [
            {
                "lang": lang,
                "name": LANG_NAMES.get(lang, lang),
                "href": relative(path, layout.day_path(project.days[day][lang])),
            }
            for lang in sorted(project.days[day], key=lambda x: (x != layout.lang, x))
        ]
        rows.append(
            {
                "date": day,
                "href": links[0]["href"],
                "links": links,
                "counts": _counts(report),
                "themes": [t.name for t in report.topics[:3]],
            }
        )
    ctx = _common(path, layout.lang) | {
        "name": project.name,
        "repo": project.repo,
        "github": github_url(project),
        "sample": project.sample,
        "chart": project_chart(project, layout.lang),
        "series": list(SERIES),
        "rows": rows,
        "periods": period_rows(layout, project, path),
        "period_feeds": period_feed_links(layout, project, path),
        "feed": "feed.xml",
        "count_keys": list(COUNT_KEYS),
    }
    return _page(path, "project.html.j2", ctx)


def _neighbour(layout: SiteLayout, project: Project, path: str, day: str | None, lang: str):
    if day is None:
        return None
    return {"date": day, "href": relative(path, layout.day_path(project.main_report(day, lang)))}


def day_pages(layout: SiteLayout, project: Project) -> Iterator[Page]:
    from devdigest.site.periods import week_link  # it builds on this module

    dates = project.dates
    for k, day in enumerate(dates):
        for lang, report in sorted(project.days[day].items()):
            path = layout.day_path(report)
            prev_day = dates[k - 1] if k > 0 else None
            next_day = dates[k + 1] if k + 1 < len(dates) else None
            s = strings(lang)
            ctx = _common(path, lang) | {
                "title": f"{project.name} · {day}",
                "date": day,
                "project": {
                    "name": project.name,
                    "href": relative(path, layout.project_path(project)),
                },
                "back": s["back_project"].format(name=project.name),
                "github": github_url(project),
                "sample": project.sample,
                "prev": _neighbour(layout, project, path, prev_day, lang),
                "next": _neighbour(layout, project, path, next_day, lang),
                "week": week_link(layout, project, path, day, lang),
                "alternates": [
                    {
                        "lang": other,
                        "name": LANG_NAMES.get(other, other),
                        "href": relative(path, layout.day_path(alt)),
                        "current": other == lang,
                    }
                    for other, alt in sorted(project.days[day].items())
                ],
            }
            yield _day_page(path, ctx, report)


def toc_label(text: str) -> str:
    """A heading without its leading pictograph (the report's headings start with one)."""
    start = 0
    while start < len(text) and (
        unicodedata.category(text[start]) in {"So", "Sk", "Mn", "Cf", "Zs"}
        or text[start] in "\ufe0f\u2139"
    ):
        start += 1
    return text[start:] or text


def render_day(raw: str, ctx: dict) -> bytes:
    """A day page from the stored report JSON and its navigation context."""
    return _render_day(DailyReport.model_validate_json(raw), ctx)


def _render_day(report: DailyReport, ctx: dict) -> bytes:
    parts = render_html_parts(report)
    toc = [(e.anchor, toc_label(e.text)) for e in parts.toc if e.level == 2]
    full = ctx | {"body": Markup(parts.body), "toc": toc}
    return ENV.get_template("day.html.j2").render(full).encode("utf-8")


def _day_page(path: str, ctx: dict, report: ReportHead) -> Page:
    inputs = json.dumps(ctx, sort_keys=True, ensure_ascii=False) + report.raw
    job = (render_day, (report.raw, ctx))
    return Page(path, inputs, lambda: _render_day(report.full(), ctx), job)
