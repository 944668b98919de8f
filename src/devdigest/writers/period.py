"""The offline writer of period (weekly, monthly) reports, zh and en: every number from data."""

# ruff: noqa: E501  (one sentence template per line reads best)

from __future__ import annotations

import re
from datetime import datetime

from devdigest import __version__
from devdigest.analysis.period import PeriodAnalysis, PeriodTopic
from devdigest.errors import ConfigError
from devdigest.models import Provenance, Statement, WindowInfo
from devdigest.period_models import (
    DayRow,
    FocusRollup,
    HotThread,
    PeriodChange,
    PeriodReport,
    PeriodTopicRow,
    RankGroup,
)
from devdigest.window import period_name
from devdigest.writers.common import item_link, zh_spacing
from devdigest.writers.continuity import marker_text
from devdigest.writers.extract import first_sentence
from devdigest.writers.offline import write_appendix

FOCUS_TOP = 5
TOPICS_NAMED = 3

ZH = {
    "totals": "{period} 期间，{project} 新增 {new_issues} 个 Issue、关闭 {closed_issues} 个；新增 {new_prs} 个 PR、合并 {merged_prs} 个，另有 {closed_unmerged_prs} 个 PR 未合并即关闭。",
    "busiest": "合并最多的一天是 {day}（{n} 个 PR）。",
    "vs_previous": "与上一期（{previous}）相比，新 PR {new_prs:+d}，合并 PR {merged_prs:+d}，新 Issue {new_issues:+d}，关闭 Issue {closed_issues:+d}。",
    "no_previous": "存储的历史不覆盖上一期（{previous}），因此没有环比。",
    "dominated": "新开条目最多的类别：{names}。",
    "rose": "比上一期增加最多：{names}。",
    "fell": "比上一期减少最多：{names}。",
    "topic_count": "{name}（{n}）",
    "topic_delta": "{name}（{delta:+d}）",
    "list_sep": "、",
}
EN = {
    "totals": "In {period} {project} saw {new_issues} new issues and {closed_issues} closed, {new_prs} new pull requests, {merged_prs} merged and {closed_unmerged_prs} closed without merging.",
    "busiest": "The busiest day for merges was {day} ({n} PRs).",
    "vs_previous": "Against the previous period ({previous}): new PRs {new_prs:+d}, merged PRs {merged_prs:+d}, new issues {new_issues:+d}, closed issues {closed_issues:+d}.",
    "no_previous": "The stored history does not cover the previous period ({previous}), so there is no comparison.",
    "dominated": "Categories with the most new items: {names}.",
    "rose": "Rose most against the previous period: {names}.",
    "fell": "Fell most against the previous period: {names}.",
    "topic_count": "{name} ({n})",
    "topic_delta": "{name} ({delta:+d})",
    "list_sep": ", ",
}
STRINGS = {"zh": ZH, "en": EN}
REASONS_ZH = (
    (re.compile(r"^category (.+)$"), r"类别 \1"),
    (re.compile(r"^(\d+) reviewers?$"), r"\1 位评审者"),
    (re.compile(r"^(\d+) approvals?$"), r"\1 个批准"),
    (re.compile(r"^links (.+)$"), r"关联 \1"),
    (re.compile(r"^states figures$"), "PR 给出了数据"),
    (re.compile(r"^names (.+)$"), r"涉及 \1"),
    (re.compile(r"^fixes (.+)$"), r"修复 \1"),
    (re.compile(r"^focus (.+)$"), r"关注领域 \1"),
    (re.compile(r"^housekeeping$"), "日常整理"),
    (re.compile(r"^nearly merged: approved, not merged yet$"), "已获批准、尚未合并"),
    (re.compile(r"^bot author$"), "机器人作者"),
)


def reason_text(reason: str, lang: str, names: dict[str, str] | None = None) -> str:
    """A ranking reason of ``analysis.changes`` in ``lang`` (``names``: category → its name
    in ``lang``)."""
    if reason.startswith("category ") and names:
        reason = "category " + names.get(reason[len("category ") :], reason[len("category ") :])
    if lang == "en":
        return re.sub(r"^1 (reviewer|approval)s\b", r"1 \1", reason)
    for pattern, replacement in REASONS_ZH:
        if pattern.match(reason):
            return zh_spacing(pattern.sub(replacement, reason))
    return reason


def period_label(analysis: PeriodAnalysis) -> tuple[str, str]:
    """(kind, label): ``("week", "2026-W11")``, ``("month", "2026-03")`` or a date range."""
    window = analysis.window
    name = period_name(window)
    if name is None:
        return "period", f"{window.local_date} ~ {window.local_end_date}"
    return ("week" if "-W" in name else "month"), name


def _previous_label(analysis: PeriodAnalysis) -> str:
    window = analysis.previous_window
    return period_name(window) or f"{window.local_date} ~ {window.local_end_date}"


def _say(lang: str, key: str, **values: object) -> str:
    text = STRINGS[lang][key].format(**values)
    return zh_spacing(text) if lang == "zh" else text.replace(" 1 PRs", " 1 PR")


def write_period_summary(analysis: PeriodAnalysis, lang: str, label: str) -> list[Statement]:
    counts = analysis.counts.model_dump()
    out = [
        Statement(
            text=_say(lang, "totals", period=label, project=analysis.project.display_name, **counts)
        )
    ]
    day, top = max(analysis.days, key=lambda d: (d[1].merged_prs, d[0]), default=(None, None))
    if top is not None and top.merged_prs:
        out.append(Statement(text=_say(lang, "busiest", day=day.isoformat(), n=top.merged_prs)))
    previous = _previous_label(analysis)
    if analysis.previous is None:
        out.append(Statement(text=_say(lang, "no_previous", previous=previous)))
    else:
        before = analysis.previous.model_dump()
        deltas = {k: counts[k] - before[k] for k in counts}
        out.append(Statement(text=_say(lang, "vs_previous", previous=previous, **deltas)))
    return out


def write_topic_notes(topics: list[PeriodTopic], lang: str) -> list[Statement]:
    """What dominated (most new items), rose and fell (against the previous period)."""
    s = STRINGS[lang]
    out = []

    def note(key: str, chosen: list[PeriodTopic], part: str) -> None:
        if chosen:
            names = s["list_sep"].join(
                s[part].format(name=t.rule.display(lang), n=t.count, delta=t.delta or 0)
                for t in chosen
            )
            out.append(Statement(text=_say(lang, key, names=names)))

    note("dominated", [t for t in topics if t.count][:TOPICS_NAMED], "topic_count")
    moved = [t for t in topics if t.delta]
    note(
        "rose",
        sorted([t for t in moved if t.delta > 0], key=lambda t: -t.delta)[:TOPICS_NAMED],
        "topic_delta",
    )
    note(
        "fell",
        sorted([t for t in moved if t.delta < 0], key=lambda t: t.delta)[:TOPICS_NAMED],
        "topic_delta",
    )
    return out


def write_period_report(analysis: PeriodAnalysis, lang: str, *, now: datetime) -> PeriodReport:
    """The period report of ``analysis`` in ``lang``; the same input always gives the same text."""
    if lang not in STRINGS:
        raise ConfigError(f"unknown language {lang!r}: use zh or en")
    window, zone = analysis.window, analysis.window.zone
    kind, label = period_label(analysis)
    items = analysis.items
    names = {t.rule.name: t.rule.display(lang) for t in analysis.topics}
    return PeriodReport(
        kind=kind,
        period=label,
        repo=analysis.repo,
        project=analysis.project.display_name,
        lang=lang,
        window=WindowInfo(start=window.start, end=window.end, tz=window.tz, label=window.label),
        counts=analysis.counts,
        days=[DayRow(date=d.isoformat(), counts=c) for d, c in analysis.days],
        previous_period=_previous_label(analysis),
        previous=analysis.previous,
        mean=analysis.mean,
        mean_periods=analysis.mean_periods,
        summary=write_period_summary(analysis, lang, label),
        topics=[
            PeriodTopicRow(
                name=t.rule.display(lang),
                count=t.count,
                previous=t.previous,
                delta=t.delta,
                refs=t.numbers,
            )
            for t in analysis.topics
        ],
        topic_notes=write_topic_notes(analysis.topics, lang),
        key_changes=[
            PeriodChange(
                item=item_link(c.item),
                about=first_sentence(c.item.body, c.item.title) or c.item.title,
                reasons=[reason_text(r, lang, names) for r in c.reasons],
                figures=c.figures,
            )
            for c in analysis.key_changes
        ],
        focus_areas=[
            FocusRollup(
                name=f.rule.display(lang),
                issues=len(f.issues),
                prs=len(f.prs),
                top=[item_link(m.item) for m in (f.prs + f.issues)[:FOCUS_TOP]],
            )
            for f in analysis.focus
        ],
        hot_threads=[
            HotThread(item=item_link(i), days=[d.isoformat() for d in days])
            for i, days in analysis.hot_threads
        ],
        long_standing=[_marker(m, lang) for m in analysis.long_standing],
        stale=[_marker(m, lang) for m in analysis.stale if m.number in items],
        new_contributors=analysis.new_contributors,
        first_time_basis=analysis.first_time_basis,
        top_authors=[RankGroup(count=n, logins=names) for n, names in analysis.authors],
        top_reviewers=[RankGroup(count=n, logins=names) for n, names in analysis.reviewers],
        history_from=analysis.history_from.astimezone(zone).date().isoformat()
        if analysis.history_from
        else None,
        appendix=write_appendix(analysis),  # type: ignore[arg-type]  # reads .appendix only
        provenance=Provenance(writer="offline", version=__version__, generated_at=now),
    )


def _marker(marker, lang: str) -> Statement:
    return Statement(text=marker_text(marker, lang), refs=[marker.number])
