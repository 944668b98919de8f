"""The Jekyll export: one Markdown file per report with YAML front matter, Liquid-safe.

The body is wrapped in ``{% raw %}…{% endraw %}``. Untrusted text could carry its own
``{% endraw %}`` (or ``{%- endraw -%}``…) and close the raw block early, so every ``{%`` of the
body is rewritten as ``{% endraw %}{{ '{' }}{% raw %}%``: Liquid prints the same ``{%`` and the
body keeps no tag opener at all. Front matter values are JSON strings and numbers (valid YAML).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from devdigest.models import COUNT_KEYS, DailyReport
from devdigest.render.markdown import render_markdown
from devdigest.render.sanitize import strip_invisible
from devdigest.site.layout import ReportHead, SiteLayout
from devdigest.site.pages import Page

LAYOUT = "default"
_OPENER = "{% endraw %}{{ '{' }}{% raw %}%"


def escape_liquid(text: str) -> str:
    """Text that renders unchanged inside a Liquid ``raw`` block and can never close it."""
    return text.replace("{%", _OPENER)


def front_matter(report: DailyReport | ReportHead, title: str) -> str:
    lines = [
        "---",
        f"layout: {LAYOUT}",
        f"title: {json.dumps(strip_invisible(title), ensure_ascii=False)}",
        f"date: {report.date}",
        f"repo: {json.dumps(report.repo)}",
        f"lang: {json.dumps(report.lang)}",
        "counts:",
        *(f"  {key}: {getattr(report.counts, key)}" for key in COUNT_KEYS),
        "---",
    ]
    return "\n".join(lines) + "\n"


def render_jekyll(report: DailyReport, title: str) -> str:
    """Front matter plus the report's Markdown inside a Liquid-safe raw block."""
    body = escape_liquid(render_markdown(report).rstrip("\n"))
    return f"{front_matter(report, title)}\n{{% raw %}}\n{body}\n{{% endraw %}}\n"


def jekyll_pages(layout: SiteLayout) -> Iterator[Page]:
    for project in layout.projects:
        for day in project.dates:
            for report in project.days[day].values():
                title = f"{project.name} · {day}"
                yield Page(
                    layout.day_path(report, ".md"),
                    title + report.raw,
                    lambda r=report, t=title: render_jekyll(r.full(), t).encode("utf-8"),
                )
