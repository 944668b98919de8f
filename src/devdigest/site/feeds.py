"""Atom feeds (one per project, one for all) and the JSON index of reports.

Feeds are built with ``xml.etree.ElementTree`` (every text escaped). Links are relative to the
feed unless a base URL is given, in which case they are absolute. Entry ids are the page URL
with a base URL, else ``urn:devdigest:OWNER/REPO:DATE:LANG``; an entry's ``updated`` is the
report's generation time, the feed's the newest of its entries. A feed holds the newest
``FEED_ENTRIES`` reports.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from datetime import UTC, datetime

from devdigest.models import COUNT_KEYS
from devdigest.render.markdown import clean_json
from devdigest.render.sanitize import strip_invisible, strip_invisible_tree
from devdigest.site.layout import ALL_FEED, JSON_INDEX, ReportHead, SiteLayout, relative
from devdigest.site.pages import Page, github_url
from devdigest.site.strings import strings

ATOM = "http://www.w3.org/2005/Atom"
FEED_ENTRIES = 50
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
ET.register_namespace("", ATOM)


def _q(tag: str) -> str:
    return f"{{{ATOM}}}{tag}"


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    element = ET.SubElement(parent, _q(tag), {k: strip_invisible(v) for k, v in attrs.items()})
    if text is not None:
        element.text = strip_invisible(text)
    return element


def _stamp(value: datetime) -> str:
    aware = value if value.tzinfo else value.replace(tzinfo=UTC)
    return aware.astimezone(UTC).isoformat().replace("+00:00", "Z")


def summary_text(report: ReportHead) -> str:
    return "\n\n".join(s.text for s in report.summary)


def _absolute(base_url: str, target: str) -> str:
    return base_url.rstrip("/") + "/" + target


def _url(base_url: str | None, feed_path: str, target: str) -> str:
    return _absolute(base_url, target) if base_url else relative(feed_path, target)


def _entry_id(base_url: str | None, layout: SiteLayout, report: ReportHead) -> str:
    if base_url:
        return _absolute(base_url, layout.day_path(report))
    return f"urn:devdigest:{report.repo.lower()}:{report.date}:{report.lang}"


def feed_head(
    feed_id: str, title: str, updated: datetime, base_url: str | None, path: str, alternate: str
) -> ET.Element:
    """An Atom feed element with its id, title, time, self and alternate links, author and
    generator; entries are added to it."""
    feed = ET.Element(_q("feed"))
    _sub(feed, "id", feed_id)
    _sub(feed, "title", title)
    _sub(feed, "updated", _stamp(updated))
    _sub(feed, "link", rel="self", href=_url(base_url, path, path))
    _sub(feed, "link", rel="alternate", type="text/html", href=_url(base_url, path, alternate))
    _sub(_sub(feed, "author"), "name", "devdigest")
    _sub(feed, "generator", "devdigest")
    return feed


def feed_bytes(feed: ET.Element) -> bytes:
    ET.indent(feed)
    return ET.tostring(feed, encoding="utf-8", xml_declaration=True) + b"\n"


def _feed_page(
    layout: SiteLayout,
    path: str,
    title: str,
    urn: str,
    alternate: str,
    reports: list[ReportHead],
    base_url: str | None,
) -> Page:
    """The Atom feed of ``reports`` (newest first) written at ``path``; its id is the feed's URL
    with a base URL, else ``urn``."""
    feed_id = _absolute(base_url, path) if base_url else urn
    inputs = json.dumps(
        [path, title, feed_id, alternate, base_url]
        + [
            [
                r.repo,
                r.date,
                r.lang,
                r.project,
                _stamp(r.provenance.generated_at),
                summary_text(r),
                r.window.label,
            ]
            for r in reports
        ],
        ensure_ascii=False,
    )

    def render() -> bytes:
        newest = sorted(reports, key=lambda r: (r.date, r.provenance.generated_at), reverse=True)
        newest = newest[:FEED_ENTRIES]
        updated = max((r.provenance.generated_at for r in newest), default=EPOCH)
        feed = feed_head(feed_id, title, updated, base_url, path, alternate)
        for report in newest:
            entry = _sub(feed, "entry")
            _sub(entry, "id", _entry_id(base_url, layout, report))
            _sub(entry, "title", f"{report.project} · {report.date} ({report.lang})")
            _sub(entry, "updated", _stamp(report.provenance.generated_at))
            href = _url(base_url, path, layout.day_path(report))
            _sub(entry, "link", rel="alternate", type="text/html", href=href, hreflang=report.lang)
            _sub(entry, "summary", summary_text(report) or report.window.label, type="text")
        return feed_bytes(feed)

    return Page(path, inputs, render)


def feed_pages(layout: SiteLayout, base_url: str | None = None) -> Iterator[Page]:
    """The overall feed and one per project."""
    everything: list[ReportHead] = []
    s = strings(layout.lang)
    for project in layout.projects:
        reports = [r for day in project.dates for r in project.days[day].values()]
        everything += reports
        path = layout.project_path(project, "feed.xml")
        title = s["project_title"].format(name=project.name)
        urn = f"urn:devdigest:{project.key}"
        yield _feed_page(layout, path, title, urn, layout.project_path(project), reports, base_url)
    urn = "urn:devdigest:all"
    yield _feed_page(layout, ALL_FEED, s["site_title"], urn, "index.html", everything, base_url)


def json_pages(layout: SiteLayout) -> Iterator[Page]:
    """One JSON file per report (the stored DailyReport) and the index of all reports."""
    rows = []
    projects = []
    for project in layout.projects:
        projects.append(
            {
                "repo": project.repo,
                "name": project.name,
                "path": layout.project_path(project),
                "feed": layout.project_path(project, "feed.xml"),
                "github": github_url(project),
                "latest": project.dates[-1] if project.days else None,
            }
        )
        for day in project.dates:
            for lang, report in sorted(project.days[day].items()):
                data = report.raw
                paths = {"html": layout.day_path(report), "json": layout.day_path(report, ".json")}
                yield Page(paths["json"], data, lambda data=data: clean_json(data, None).encode())
                rows.append(
                    {
                        "repo": report.repo,
                        "project": project.name,
                        "date": day,
                        "lang": lang,
                        "counts": {k: getattr(report.counts, k) for k in COUNT_KEYS},
                        "window": report.window.label,
                        "paths": paths,
                    }
                )
    index = json.dumps(
        strip_invisible_tree({"schema_version": 1, "projects": projects, "reports": rows}),
        ensure_ascii=False,
        indent=1,
    )
    yield Page(JSON_INDEX, index, lambda: index.encode("utf-8"))
