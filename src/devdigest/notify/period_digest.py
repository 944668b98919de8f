"""The weekly and monthly message: a ``Digest`` built from a stored period report."""

from __future__ import annotations

from devdigest.config import Config
from devdigest.models import COUNT_KEYS
from devdigest.notify.digest import SUMMARY_LINES, Digest, Line, Section, title_text
from devdigest.period_models import PeriodReport
from devdigest.render.i18n import t
from devdigest.render.period import PERIOD_STRINGS
from devdigest.site.layout import SiteLayout, check_pattern
from devdigest.writers.extract import plain

KINDS = {"week": "weekly", "month": "monthly"}  # report kind -> message kind (targets' `kinds`)
CHANGE_LINES = 5


def digest_from_period(report: PeriodReport, config: Config) -> Digest:
    """Counts, the period's top summary sentences, its key changes and the link to its page."""
    lang = report.lang
    strings = PERIOD_STRINGS[lang]
    summary = Section(
        heading=plain(strings["p_h_summary"]),
        lines=[Line(text=plain(s.text)) for s in report.summary[:SUMMARY_LINES]],
    )
    changes = Section(
        heading=plain(strings["p_h_changes"]),
        lines=[
            Line(text=f"#{c.item.number} {title_text(c.item.title)}", url=c.item.url)
            for c in report.key_changes[:CHANGE_LINES]
        ],
    )
    return Digest(
        repo=report.repo,
        kind=KINDS.get(report.kind, report.kind),
        lang=lang,
        window_start=report.window.start,
        window_end=report.window.end,
        title=plain(strings["p_title"].format(project=report.project, period=report.period)),
        window=report.window.label,
        counts=[(t(lang, f"count_{key}"), getattr(report.counts, key)) for key in COUNT_KEYS],
        sections=[s for s in (summary, changes) if s.lines],
        link=period_url(report, config),
    )


def period_url(report: PeriodReport, config: Config) -> str | None:
    """The absolute URL of the report's page on the site, if ``site_url`` is configured."""
    from devdigest.site.periods import period_path

    if not config.site_url:
        return None
    layout = SiteLayout([], check_pattern(config.site_path_pattern), config.site_lang)
    return config.site_url.rstrip("/") + "/" + period_path(layout, report)
