"""Markdown, JSON and the SVG chart of a period report (one Jinja2 template, strings per language)."""

# ruff: noqa: E501  (one string per line reads best)

from __future__ import annotations

import re
from datetime import datetime

from devdigest.models import COUNT_KEYS
from devdigest.period_models import PeriodReport
from devdigest.render.charts import line_chart_svg, series_values
from devdigest.render.i18n import catalogue
from devdigest.render.markdown import _ENV, _ESCAPED_REF, item_ref, md_escape
from devdigest.window import format_local, resolve_tz

ZH = {
    "p_title": "{project} 开发动态报告 - {period}",
    "p_chart": "每日新增、合并与关闭",
    "p_h_summary": "📊 本期概览",
    "p_col_count": "统计项",
    "p_col_change": "变化",
    "p_col_mean": "近 {n} 期均值",
    "p_history": "存储的历史从 {date} 开始；环比、均值和新贡献者只依据这之后的数据。",
    "p_h_days": "📅 每日数据",
    "p_col_day": "日期",
    "p_total": "合计",
    "p_days_note": (
        "注：本期内关闭、重新打开后再次关闭的 Issue/PR 在每个关闭日各计一次，在合计中只计一次，"
        "因此各日之和可能大于合计。"
    ),
    "p_h_topics": "🔥 本期话题：主导、上升与下降",
    "p_h_changes": "🛠️ 本期重点技术变更",
    "p_why": "入选原因",
    "p_no_reasons": "无额外信号",
    "p_h_focus": "🎯 关注领域汇总",
    "p_focus_counts": "{issues} 个 Issue，{prs} 个 PR",
    "p_focus_top": "；代表条目：",
    "p_empty_focus": "没有配置关注领域。",
    "p_h_hot": "💬 高热度天数最多的讨论",
    "p_hot_days": "{n} 天高热度：{days}",
    "p_empty_hot": "本期没有在两天以上处于高热度的讨论（高热度：当天至少 3 条评论或评审、至少 2 位参与者）。",
    "p_h_long": "🏁 长期未决条目的关闭与合并",
    "p_empty_long": "本期没有开启 90 天以上的 Issue 被关闭，也没有开启 60 天以上的 PR 被合并。",
    "p_h_stale": "⏳ 需要认领的问题",
    "p_empty_stale": "本期活跃的条目中没有长期无维护者回复的严重 bug。",
    "p_h_people": "👥 贡献者",
    "p_new_contributors": "新贡献者 {n} 位",
    "p_basis_association": "（依据 GitHub 的首次贡献标记）",
    "p_basis_association_history": "（依据 GitHub 的首次贡献标记和存储的历史）",
    "p_authors": "提交 Issue 和 PR 最多",
    "p_reviewers": "评审最多（评审与评审评论，不含自己的 PR）",
    "p_rank_sep": "；",
    "p_none": "无",
    "p_and_more": "等（另有 {n} 位）",
    "p_people_note": "不含机器人；数量相同者并列，按名字排序。",
}
EN = {
    "p_title": "{project} development report - {period}",
    "p_chart": "New, merged and closed per day",
    "p_h_summary": "📊 The period at a glance",
    "p_col_count": "Count",
    "p_col_change": "Change",
    "p_col_mean": "Mean of last {n}",
    "p_history": "The stored history begins on {date}; comparisons, means and new contributors rest only on data since then.",
    "p_h_days": "📅 Day by day",
    "p_col_day": "Day",
    "p_total": "Total",
    "p_days_note": (
        "An issue or PR closed, reopened and closed again within the period counts on each day"
        " it closed and once in the total, so the days can add up to more than the total."
    ),
    "p_h_topics": "🔥 Topics: what dominated, rose and fell",
    "p_h_changes": "🛠️ Key changes of the period",
    "p_why": "Why it ranks",
    "p_no_reasons": "no extra signal",
    "p_h_focus": "🎯 Focus areas",
    "p_focus_counts": "{issues} issues, {prs} PRs",
    "p_focus_top": "; notable: ",
    "p_empty_focus": "No focus area is configured.",
    "p_h_hot": "💬 Threads hot on the most days",
    "p_hot_days": "hot on {n} days: {days}",
    "p_empty_hot": "No thread was hot on two days or more (hot: at least 3 comments or reviews from at least 2 people that day).",
    "p_h_long": "🏁 Long-standing items closed or merged",
    "p_empty_long": "No issue open 90 days or more was closed and no PR open 60 days or more was merged.",
    "p_h_stale": "⏳ Stale items that need an owner",
    "p_empty_stale": "No severe bug active in the period has gone without a maintainer reply.",
    "p_h_people": "👥 Contributors",
    "p_new_contributors": "{n} new contributors",
    "p_basis_association": " (by GitHub's first-time marks)",
    "p_basis_association_history": " (by GitHub's first-time marks and the stored history)",
    "p_authors": "Most issues and PRs opened",
    "p_reviewers": "Most reviews (reviews and review comments, own PRs excluded)",
    "p_rank_sep": "; ",
    "p_none": "none",
    "p_and_more": " and {n} more",
    "p_people_note": "Bots excluded; equal counts share a place, listed by name.",
}
PERIOD_STRINGS = {"zh": ZH, "en": EN}
NEW_CONTRIBUTORS_LISTED = 30


def period_slug(report: PeriodReport) -> str:
    """``2026-W11``, ``2026-03`` or ``2026-03-01_2026-03-10``: names the report's files."""
    return report.period.replace(" ~ ", "_")


def chart_name(report: PeriodReport) -> str:
    """The chart's file name, beside the Markdown file."""
    return f"{period_slug(report)}.{report.lang}.svg"


def render_period_chart(report: PeriodReport) -> str:
    """The per-day chart as inline SVG (new, merged, closed), from the report's day rows."""
    strings = catalogue(report.lang) | PERIOD_STRINGS[report.lang]
    days = [d.date for d in report.days]
    values = [series_values(d.counts) for d in report.days]
    series = {name: [v[name] for v in values] for name in ("new", "merged", "closed")}
    labels = {
        "new": strings["count_new_issues"] + " + " + strings["count_new_prs"],
        "merged": strings["count_merged_prs"],
        "closed": strings["count_closed_issues"] + " + " + strings["count_closed_unmerged_prs"],
    }
    return line_chart_svg(days, series, labels, strings["p_chart"])


def _links(report: PeriodReport) -> dict[int, str]:
    links: dict[int, str] = {}
    for key in COUNT_KEYS:
        links.update({a.number: a.url for a in getattr(report.appendix, key)})
    entries = [k.item for k in report.key_changes] + [h.item for h in report.hot_threads]
    entries += [link for f in report.focus_areas for link in f.top]
    links.update({link.number: link.url for link in entries})
    return links


def render_period_markdown(report: PeriodReport) -> str:
    """The period report as Markdown, in the report's language."""
    strings = catalogue(report.lang) | PERIOD_STRINGS[report.lang]
    zone = resolve_tz(report.window.tz)
    links = _links(report)
    base = f"https://github.com/{report.repo}"

    def text(value: object) -> str:
        def link(match: re.Match[str]) -> str:
            number = int(match.group(1))
            return item_ref(number, links.get(number) or f"{base}/issues/{number}")

        return _ESCAPED_REF.sub(link, md_escape(value))

    def when(moment: datetime | None) -> str:
        return format_local(moment, zone) if moment else strings["prov_unknown"]

    out = _ENV.get_template("period.md.j2").render(
        r=report,
        t=lambda key, **values: strings[key].format(**values),
        text=text,
        md=md_escape,
        ref=item_ref,
        when=when,
        keys=COUNT_KEYS,
        chart=chart_name(report),
        listed=NEW_CONTRIBUTORS_LISTED,
        days_differ=any(
            sum(getattr(day.counts, key) for day in report.days) != getattr(report.counts, key)
            for key in COUNT_KEYS
        ),
    )
    return re.sub(r"\n{3,}", "\n\n", out).strip() + "\n"


def render_period_json(report: PeriodReport) -> str:
    """The report as JSON; ``PeriodReport.model_validate_json`` reads it."""
    return report.model_dump_json(indent=2) + "\n"


def render_period_html(report: PeriodReport) -> tuple[str, str]:
    """The report as HTML (raw HTML disabled, as for days), in two fragments: before and after
    the chart's image line, so a page can show the chart inline in its place."""
    from devdigest.render.html import _mark_external, make_parser

    chart_line = f"]({chart_name(report)})"
    lines = render_period_markdown(report).splitlines()
    at = next(
        (k for k, line in enumerate(lines) if line.startswith("![") and line.endswith(chart_line)),
        len(lines),
    )
    parser = make_parser()

    def html(part: list[str]) -> str:
        tokens = parser.parse("\n".join(part) + "\n")
        _mark_external(tokens)
        return parser.renderer.render(tokens, parser.options, {})

    return html(lines[:at]), html(lines[at + 1 :])
