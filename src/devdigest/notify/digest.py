"""The neutral message content every platform renders: a ``Digest`` built from a report.

Untrusted text (titles, summary sentences) is reduced to plain text with ``@login`` pings
neutralised here, once; each platform module escapes it for its own markup.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from devdigest.config import Config
from devdigest.models import COUNT_KEYS, DailyReport
from devdigest.render.i18n import t
from devdigest.site.layout import ReportHead, SiteLayout, check_pattern
from devdigest.writers.extract import neutralize_mentions, plain, squash

SUMMARY_LINES = 5  # top summary sentences in a message
FOCUS_LINES = 6  # per focus area: its overview sentences, then its items

_TEXT = {
    "zh": {
        "more": "更多内容见网站",
        "more_offline": "更多内容见完整报告",
        "open": "查看完整报告",
        "summary": "摘要",
        "test_title": "devdigest 测试消息",
        "test_heading": "测试",
        "test_body": "通知目标 {target} 配置正确。",
    },
    "en": {
        "more": "more on the site",
        "more_offline": "more in the full report",
        "open": "Read the full report",
        "summary": "Summary",
        "test_title": "devdigest test message",
        "test_heading": "Test",
        "test_body": "Notification target {target} is set up correctly.",
    },
}


class Line(BaseModel):
    """One highlight: plain text, optionally about a linked item (``url``)."""

    text: str
    url: str | None = None


class Section(BaseModel):
    heading: str
    lines: list[Line] = Field(default_factory=list)


class Digest(BaseModel):
    """What one message says, whatever the report kind (daily, weekly, monthly)."""

    repo: str
    kind: str = "daily"
    lang: str
    window_start: datetime
    window_end: datetime
    title: str
    window: str  # the window label, e.g. "2026-03-12 11:24 (UTC+8) ~ 2026-03-13 11:24 (UTC+8)"
    counts: list[tuple[str, int]]  # (localized label, value), in COUNT_KEYS order
    sections: list[Section] = Field(default_factory=list)
    link: str | None = None  # the report's page on the site (absolute)

    @property
    def more(self) -> str:
        """The note that replaces whatever does not fit."""
        return _TEXT[self.lang]["more" if self.link else "more_offline"]

    @property
    def open_label(self) -> str:
        return _TEXT[self.lang]["open"]

    def counts_line(self, sep: str = " · ") -> str:
        return sep.join(f"{label} {value}" for label, value in self.counts)


def digest_from_report(report: DailyReport, config: Config) -> Digest:
    """The daily message: counts, top summary sentences, each focus area's highlights, link."""
    lang = report.lang
    summary = Section(
        heading=_TEXT[lang]["summary"],
        lines=[Line(text=plain(s.text)) for s in report.summary[:SUMMARY_LINES]],
    )
    return Digest(
        repo=report.repo,
        kind="daily",
        lang=lang,
        window_start=report.window.start,
        window_end=report.window.end,
        title=plain(t(lang, "title", project=report.project, date=report.date)),
        window=report.window.label,
        counts=[(t(lang, f"count_{key}"), getattr(report.counts, key)) for key in COUNT_KEYS],
        sections=[s for s in [summary, *_focus_sections(report)] if s.lines],
        link=day_url(report, config),
    )


def _focus_sections(report: DailyReport) -> list[Section]:
    out = []
    for area in report.focus_areas:
        lines = [Line(text=plain(s.text)) for s in area.overview]
        for entry in area.issues + area.prs:
            item = entry.item
            lines.append(Line(text=f"#{item.number} {title_text(item.title)}", url=item.url))
        heading = plain(t(report.lang, "h_focus", name=area.name))
        out.append(Section(heading=heading, lines=lines[:FOCUS_LINES]))
    return out


def title_text(title: str) -> str:
    """An item title as shown: one line, no ``@`` pings, otherwise as written (each platform
    escapes it)."""
    return squash(neutralize_mentions(title))


def day_url(report: DailyReport, config: Config) -> str | None:
    """The absolute URL of the report's day page, if ``site_url`` is configured."""
    if not config.site_url:
        return None
    layout = SiteLayout([], check_pattern(config.site_path_pattern), config.site_lang)
    return config.site_url.rstrip("/") + "/" + layout.day_path(ReportHead.from_report(report))


def probe_digest(target: str, lang: str, now: datetime, config: Config) -> Digest:
    """The message ``notify test`` sends: no report data, just proof the target works."""
    text = _TEXT[lang]
    body = text["test_body"].format(target=target)
    return Digest(
        repo="devdigest/test",
        kind="test",
        lang=lang,
        window_start=now,
        window_end=now,
        title=text["test_title"],
        window=now.strftime("%Y-%m-%d %H:%M UTC"),
        counts=[],
        sections=[Section(heading=text["test_heading"], lines=[Line(text=body)])],
        link=config.site_url,
    )
