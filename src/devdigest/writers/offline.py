"""The offline writer: a deterministic report from templates and the threads' own sentences."""

from __future__ import annotations

from datetime import datetime

from devdigest import __version__
from devdigest.analysis.types import FocusMatch, FocusResult, WindowAnalysis
from devdigest.errors import ConfigError
from devdigest.models import (
    COUNT_KEYS,
    Appendix,
    AppendixItem,
    DailyReport,
    FocusEntry,
    FocusSection,
    Provenance,
    Statement,
    Topic,
    WindowInfo,
)
from devdigest.writers.common import Context, item_link, short_title
from devdigest.writers.continuity import history_from, write_markers
from devdigest.writers.describe import describe
from devdigest.writers.extract import first_sentence, trim
from devdigest.writers.fact_phrases import symptom_name
from devdigest.writers.phrases import PHRASES, join_list, phrase
from devdigest.writers.readings import change_brief, write_key_changes, write_watch
from devdigest.writers.stories import write_storyline_summary
from devdigest.writers.threads import item_kind, write_discussion_notes, write_discussions

LANGS = ("zh", "en")
MAX_SUMMARY = 7
QUOTE = 120  # characters of a body sentence quoted as evidence
FOCUS_LISTED = 10  # entries described per focus list; the rest are listed by number
RISE = 2.0  # a topic rises or falls when it moves by at least this many items and by half


def write_offline(analysis: WindowAnalysis, lang: str, *, now: datetime) -> DailyReport:
    """The whole report for ``analysis`` in ``lang``; the same input always gives the same text."""
    if lang not in LANGS:
        raise ConfigError(f"unknown language {lang!r}: use zh or en")
    ctx = Context.of(analysis, lang)
    window = analysis.window
    return DailyReport(
        repo=analysis.repo,
        project=analysis.project.display_name,
        lang=lang,
        date=window.local_date.isoformat(),
        window=WindowInfo(start=window.start, end=window.end, tz=window.tz, label=window.label),
        counts=analysis.counts,
        summary=write_summary(ctx),
        focus_areas=[write_focus(ctx, f) for f in analysis.focus],
        hot_discussions=write_discussions(ctx),
        discussion_notes=write_discussion_notes(ctx),
        topics=write_topics(ctx),
        trend_notes=write_trend_notes(ctx),
        key_changes=write_key_changes(ctx),
        activity=analysis.activity,
        activity_notes=write_activity_notes(ctx),
        watch=write_watch(ctx),
        continuity=write_markers(analysis.markers, lang),
        history_from=history_from(analysis),
        appendix=write_appendix(analysis),
        provenance=Provenance(
            writer="offline",
            version=__version__,
            generated_at=now,
            data_fetched_at=analysis.data_fetched_at,
            github_requests=analysis.github_requests,
        ),
    )


# --- summary -------------------------------------------------------------------------------


def write_summary(ctx: Context) -> list[Statement]:
    a, lang = ctx.analysis, ctx.lang
    counts = a.counts.model_dump()
    project = a.project.display_name
    if not any(counts.values()):
        out = [ctx.statement(phrase(lang, "summary_quiet", project=project))]
    else:
        out = [ctx.statement(phrase(lang, "summary_counts", project=project, **counts))]
    out += write_storyline_summary(ctx)
    themes = [t for t in sorted(a.topics, key=lambda t: -t.count) if t.count][:3]
    if themes:
        names = [phrase(lang, "theme", name=t.rule.display(lang), count=t.count) for t in themes]
        out.append(ctx.statement(phrase(lang, "summary_themes", themes=join_list(lang, names))))
    for focus in a.focus[:2]:
        out.append(_focus_summary(ctx, focus))
    out += _merges_summary(ctx) + _discussion_summary(ctx) + _watch_summary(ctx)
    return out[:MAX_SUMMARY]


def _focus_summary(ctx: Context, focus: FocusResult) -> Statement:
    lang, name = ctx.lang, focus.rule.display(ctx.lang)
    if not focus.issues and not focus.prs:
        return ctx.statement(phrase(lang, "summary_focus_none", name=name))
    merged = sum(1 for m in focus.prs if m.item.merged_at is not None)
    detail = phrase(lang, "summary_focus_merged", merged=merged) if merged else ""
    text = phrase(
        lang,
        "summary_focus",
        name=name,
        issues=len(focus.issues),
        prs=len(focus.prs),
        merged=detail,
    )
    return ctx.statement(text)


def _merges_summary(ctx: Context) -> list[Statement]:
    merged = [c for c in ctx.analysis.key_changes if c.item.merged_at is not None][:3]
    if not merged:
        return []
    items = join_list(ctx.lang, [change_brief(ctx, change) for change in merged])
    return [ctx.statement(phrase(ctx.lang, "summary_merges", items=items))]


def _discussion_summary(ctx: Context) -> list[Statement]:
    if not ctx.analysis.discussions:
        return []
    top = ctx.analysis.discussions[0]
    text = phrase(
        ctx.lang,
        "summary_discussion",
        number=top.item.number,
        title=short_title(top.item.title),
        participants=len(top.participants),
        comments=len(top.comments),
    )
    return [ctx.statement(text)]


def _watch_summary(ctx: Context) -> list[Statement]:
    flagged = [w for w in ctx.analysis.watch if w.facts is not None and w.facts.symptoms]
    if not flagged:
        return []
    kinds = list(dict.fromkeys(k for w in flagged for k in w.facts.symptom_kinds))
    signals = join_list(ctx.lang, [symptom_name(ctx.lang, k) for k in kinds[:3]])
    text = phrase(ctx.lang, "summary_watch", count=len(flagged), signals=signals)
    return [ctx.statement(text, [w.item.number for w in flagged])]


# --- focus areas ---------------------------------------------------------------------------


def write_focus(ctx: Context, focus: FocusResult) -> FocusSection:
    lang, name = ctx.lang, focus.rule.display(ctx.lang)
    if not focus.issues and not focus.prs:
        overview = [ctx.statement(phrase(lang, "focus_empty", name=name))]
        return FocusSection(name=name, overview=overview)
    parts = []
    merged = sum(1 for m in focus.prs if m.item.merged_at is not None)
    closed = sum(1 for m in focus.issues if m.item.state == "closed")
    still_open = sum(1 for m in focus.prs if m.item.state == "open")
    for key, n in (("merged", merged), ("closed", closed), ("open", still_open)):
        if n:
            parts.append(phrase(lang, f"focus_part_{key}", n=n))
    detail = (
        phrase(lang, "focus_detail", parts=phrase(lang, "list_sep").join(parts)) if parts else ""
    )
    text = phrase(
        lang,
        "focus_overview",
        issues=len(focus.issues),
        prs=len(focus.prs),
        name=name,
        detail=detail,
    )
    return FocusSection(
        name=name,
        overview=[ctx.statement(text)],
        issues=[_focus_entry(ctx, m) for m in focus.issues[:FOCUS_LISTED]],
        prs=[_focus_entry(ctx, m) for m in focus.prs[:FOCUS_LISTED]],
        more_issues=[item_link(m.item) for m in focus.issues[FOCUS_LISTED:]],
        more_prs=[item_link(m.item) for m in focus.prs[FOCUS_LISTED:]],
    )


def _focus_entry(ctx: Context, match: FocusMatch) -> FocusEntry:
    item = match.item
    if item.body.strip():
        quote = first_sentence(item.body, item.title)
        about = describe(ctx, item, item_kind(ctx, item), quote and trim(quote, QUOTE))
    else:
        kind = phrase(ctx.lang, "kind_pr" if item.is_pr else "kind_issue")
        about = phrase(ctx.lang, "about_title", kind=kind, title=short_title(item.title))
    return FocusEntry(
        item=item_link(item),
        reasons=group_reasons(ctx.lang, match.reasons),
        about=ctx.polish(about.strip()),
    )


_REASON_KINDS = ("title tag", "label", "keyword", "author", "path")


def group_reasons(lang: str, reasons: list[str]) -> list[str]:
    """Reasons grouped by kind: ``keyword ROCm``, ``keyword MI300X`` → ``关键词 ROCm、MI300X``."""
    groups: dict[str, list[str]] = {}
    for reason in reasons:
        kind = next((k for k in _REASON_KINDS if reason.startswith(k + " ")), "")
        value = reason[len(kind) + 1 :] if kind else reason
        groups.setdefault(kind, []).append(value)
    sep = phrase(lang, "signal_join")
    return [
        phrase(lang, f"reason_{kind}", value=sep.join(values)) if kind else sep.join(values)
        for kind, values in groups.items()
    ]


# --- topics and trends ---------------------------------------------------------------------


def write_topics(ctx: Context) -> list[Topic]:
    shown = [t for t in ctx.analysis.topics if t.count or (t.previous_avg or 0) >= 1]
    shown.sort(key=lambda t: (-t.count, t.rule.name))
    return [
        Topic(
            name=t.rule.display(ctx.lang),
            count=t.count,
            previous_avg=t.previous_avg,
            delta=t.delta,
            refs=sorted(t.numbers),
        )
        for t in shown
    ]


def write_trend_notes(ctx: Context) -> list[Statement]:
    a, lang = ctx.analysis, ctx.lang
    if a.history_days:
        out = [ctx.statement(phrase(lang, "trend_baseline", days=a.history_days))]
    else:
        out = [ctx.statement(phrase(lang, "trend_counts"))]
    ranked = sorted((t for t in a.topics if t.count), key=lambda t: (-t.count, t.rule.name))
    if ranked:
        top = ranked[0]
        examples = join_list(lang, [f"#{n}" for n in sorted(top.numbers)[:3]])
        text = phrase(
            lang, "trend_top", name=top.rule.display(lang), count=top.count, examples=examples
        )
        out.append(ctx.statement(text))
    else:
        out.append(ctx.statement(phrase(lang, "no_topics")))
    if a.history_days == 0:
        return [*out, ctx.statement(phrase(lang, "trend_no_history"))]
    rising, falling = _movers(ctx)
    if rising:
        out.append(ctx.statement(phrase(lang, "trend_rising", items=join_list(lang, rising))))
    if falling:
        out.append(ctx.statement(phrase(lang, "trend_falling", items=join_list(lang, falling))))
    if not rising and not falling:
        out.append(ctx.statement(phrase(lang, "trend_steady")))
    return out


def _movers(ctx: Context) -> tuple[list[str], list[str]]:
    rising, falling = [], []
    moving = [t for t in ctx.analysis.topics if t.previous_avg is not None and t.delta is not None]
    moving.sort(key=lambda t: (-abs(t.delta or 0), t.rule.name))
    for t in moving:
        prev, delta = t.previous_avg or 0.0, t.delta or 0.0
        if abs(delta) < max(RISE, 0.5 * prev):
            continue
        refs = join_list(ctx.lang, [f"#{n}" for n in sorted(t.numbers)[-2:]])
        examples = phrase(ctx.lang, "trend_examples", refs=refs) if refs else ""
        name = t.rule.display(ctx.lang)
        text = phrase(
            ctx.lang, "trend_item", name=name, count=t.count, avg=f"{prev:.1f}", examples=examples
        )
        (rising if delta > 0 else falling).append(text)
    return rising[:3], falling[:3]


# --- activity ------------------------------------------------------------------------------


def write_activity_notes(ctx: Context) -> list[Statement]:
    lang, act = ctx.lang, ctx.analysis.activity
    out = [
        ctx.statement(
            phrase(lang, "act_people", contributors=act.contributors, authors=act.authors)
        )
    ]
    if act.first_time_contributors:
        names = act.first_time_contributors
        shown = join_list(lang, names[:8])
        if len(names) > 8:
            shown = phrase(lang, "act_first_more", names=phrase(lang, "list_sep").join(names[:8]))
        key = f"basis_{act.first_time_basis}"
        basis = phrase(lang, key) if key in PHRASES[lang] else ""
        out.append(ctx.statement(phrase(lang, "act_first", n=len(names), names=shown, basis=basis)))
    ranked = [(login, n) for login, n in act.top_reviewers if n > 1]  # ones are no ranking
    if ranked:
        names = [phrase(lang, "act_reviewer", login=login, n=n) for login, n in ranked]
        out.append(ctx.statement(phrase(lang, "act_reviewers", names=join_list(lang, names[:5]))))
    if act.median_hours_to_merge is not None and act.merges_measured:
        out.append(
            ctx.statement(
                phrase(
                    lang,
                    "act_merge_time",
                    n=act.merges_measured,
                    hours=_duration(lang, act.median_hours_to_merge),
                )
            )
        )
    if act.bots_excluded:
        names = join_list(lang, act.bots_excluded)
        out.append(ctx.statement(phrase(lang, "act_bots", names=names, events=act.bot_events)))
    else:
        out.append(ctx.statement(phrase(lang, "act_no_bots")))
    return out


def _duration(lang: str, hours: float) -> str:
    if hours >= 48:
        return phrase(lang, "days", d=f"{hours / 24:.1f}")
    return phrase(lang, "hours", h=f"{hours:.1f}")


# --- appendix ------------------------------------------------------------------------------

_AT = {
    "new_issues": "created_at",
    "closed_issues": "closed_at",
    "new_prs": "created_at",
    "merged_prs": "merged_at",
    "closed_unmerged_prs": "closed_at",
}


def write_appendix(analysis: WindowAnalysis) -> Appendix:
    """Exactly the counted items, each with the time that put it in its list."""
    lists = {}
    for key in COUNT_KEYS:
        lists[key] = [
            AppendixItem(
                number=item.number,
                title=item.title,
                url=item.html_url,
                author=item.author,
                labels=list(item.labels),
                at=getattr(item, _AT[key]),
            )
            for item in analysis.appendix.get(key, [])
        ]
    return Appendix(**lists)
