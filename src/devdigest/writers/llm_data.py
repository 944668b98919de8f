"""What the LLM writer sends and checks against: per-call data blocks and grounding contexts."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from devdigest.analysis.storylines import Storyline
from devdigest.analysis.types import ChangeCandidate, Thread, WatchCandidate, WindowAnalysis
from devdigest.models import CommentRecord, DailyReport, FocusSection, ItemRecord
from devdigest.writers.common import known_numbers
from devdigest.writers.grounding import GuardContext, ItemState, numbers_in, refs_in
from devdigest.writers.llm_facts import facts_lines, storyline_lines
from devdigest.writers.llm_prompts import (
    Prompt,
    build_prompt,
    head,
    participants_line,
    render_thread,
    thread_role,
)

__all__ = ["Facts", "WindowAnalysis", "thread_role"]
_LIST = 12  # entries per list in a synthesis data block


@dataclass
class Facts:
    """Lookups over one analysis: threads by number, the refs and logins a reply may cite."""

    threads: dict[int, Thread]
    changes: dict[int, ChangeCandidate]
    watch: dict[int, WatchCandidate]
    known_refs: frozenset[int]
    logins: frozenset[str]
    states: dict[int, ItemState]

    @classmethod
    def of(cls, analysis: WindowAnalysis) -> Facts:
        items: dict[int, ItemRecord] = dict(analysis.items)
        for records in analysis.appendix.values():
            items.update({r.number: r for r in records})
        comments: list[CommentRecord] = []
        linked: set[int] = set()
        for t in analysis.discussions:
            items[t.item.number] = t.item
            comments += t.comments
            linked.update(t.linked)
        for c in [*analysis.key_changes, *analysis.watch]:
            items[c.item.number] = c.item
            comments += c.comments
            linked.update(getattr(c, "linked", []))
        for item in items.values():
            linked.update(refs_in(item.body or ""))
        logins = {i.author for i in items.values()} | {c.author for c in comments}
        logins |= set(analysis.activity.first_time_contributors)
        logins |= {login for login, _ in analysis.activity.top_reviewers}
        return cls(
            threads={t.item.number: t for t in analysis.discussions},
            changes={c.item.number: c for c in analysis.key_changes},
            watch={w.item.number: w for w in analysis.watch},
            known_refs=frozenset(items) | frozenset(linked) | frozenset(known_numbers(analysis)),
            logins=frozenset(login.lower() for login in logins),
            states=item_states(items, comments),
        )

    def thread_ctx(
        self, item: ItemRecord, comments: list[CommentRecord], data: str
    ) -> GuardContext:
        """Refs: the window; logins: who wrote in this thread; numbers: the thread's own."""
        writers = {item.author.lower()} | {c.author.lower() for c in comments}
        return GuardContext(
            known_refs=self.known_refs,
            all_logins=self.logins,
            thread_logins=frozenset(writers),
            numbers=frozenset(numbers_in(data)),
            status_source=f"{item.title} {' '.join(item.labels)}",
            states=self.states,
            subject=item.number,
        )

    def window_ctx(self, data: str, counts: Mapping[str, int] | None) -> GuardContext:
        return GuardContext(
            known_refs=self.known_refs,
            all_logins=self.logins,
            numbers=frozenset(numbers_in(data)),
            counts=counts,
            states=self.states,
        )


_REVERT = re.compile(r"^\W*(?:\[[^\]]*\]\s*)*revert\b", re.IGNORECASE)


def item_states(
    items: Mapping[int, ItemRecord], comments: list[CommentRecord]
) -> dict[int, ItemState]:
    """Each known item's state for state claims: approvals from the reviews in the analysis,
    reverts from merged "Revert …" PRs that name the item by number or quoted title."""
    approved = {c.number for c in comments if c.review_state == "APPROVED"}
    by_title = {i.title: n for n, i in items.items()}
    reverted: set[int] = set()
    for pr in items.values():
        if pr.is_pr and pr.merged_at and _REVERT.match(pr.title):
            reverted.update(refs_in(f"{pr.title}\n{pr.body or ''}"))
            reverted.update(by_title[t] for t in re.findall(r'"(.+)"', pr.title) if t in by_title)
    return {
        n: ItemState(
            is_pr=i.is_pr,
            state=i.state,
            merged=i.merged_at is not None,
            approved=n in approved,
            reverted=n in reverted,
        )
        for n, i in items.items()
    }


# --- per-thread prompts (content only: byte-identical while the thread is unchanged) ------------


def discussion_prompt(thread: Thread, lang: str, project: str) -> Prompt:
    text = render_thread(thread.item, thread.comments, linked=thread.linked)
    text += "\n" + participants_line(thread.item, thread.comments, thread.participants)
    return build_prompt("discussion", lang, project, text, tag="thread")


def change_prompt(cand: ChangeCandidate, lang: str, project: str) -> Prompt:
    extra = [f"figures stated in the body: {'; '.join(cand.figures)}"] if cand.figures else []
    extra += facts_lines(cand.facts)
    extra.append(f"reviews: {cand.reviews}")
    text = render_thread(cand.item, cand.comments, linked=cand.linked, extra=extra, max_comments=6)
    return build_prompt("change", lang, project, text, tag="thread")


def watch_prompt(cand: WatchCandidate, lang: str, project: str) -> Prompt:
    extra = [f"signals: {', '.join(cand.signals)}"] if cand.signals else []
    extra += facts_lines(cand.facts)
    text = render_thread(cand.item, cand.comments, extra=extra, max_comments=8, budget=1800)
    return build_prompt("watch", lang, project, text, tag="thread")


def synthesis_prompt(task: str, text: str, lang: str, project: str) -> Prompt:
    return build_prompt(task, lang, project, text, tag="data")


# --- synthesis data (from the report after the map step) --------------------------------------

COUNT_LABELS = {
    "new_issues": "new issues",
    "closed_issues": "closed issues",
    "new_prs": "new PRs",
    "merged_prs": "merged PRs",
    "closed_unmerged_prs": "PRs closed without merge",
}


def _line(number: int, title: str, note: str) -> str:
    return f"- #{number} {head(title, 30)}: {head(note, 80)}" if note else f"- #{number} {title}"


def summary_data(report: DailyReport, storylines: Sequence[Storyline] = ()) -> str:
    counts = report.counts.model_dump()
    lines = ["counts: " + ", ".join(f"{label} {counts[k]}" for k, label in COUNT_LABELS.items())]
    lines += storyline_lines(storylines)
    if report.topics:
        top = sorted(report.topics, key=lambda t: -t.count)[:6]
        lines.append("topics: " + "; ".join(f"{t.name} {t.count}" for t in top))
    for f in report.focus_areas:
        lines.append(f"focus area {f.name}: {len(f.issues)} issues, {len(f.prs)} PRs")
    sections = [
        ("hot discussions", [(d.item, d.core_question) for d in report.hot_discussions]),
        ("key changes", [(c.item, c.technical) for c in report.key_changes]),
        ("issues worth watching", [(w.item, w.why) for w in report.watch]),
    ]
    for name, entries in sections:
        if entries:
            lines.append(f"{name}:")
            lines += [_line(i.number, i.title, note) for i, note in entries[:5]]
    return "\n".join(lines)


def focus_data(section: FocusSection) -> str:
    lines = [f"focus area: {section.name}"]
    for name, entries in (("issues", section.issues), ("pull requests", section.prs)):
        lines.append(f"{name} ({len(entries)}):")
        for e in entries[:_LIST]:
            lines.append(_line(e.item.number, f"[{e.item.state}] {e.item.title}", e.about))
        if len(entries) > _LIST:
            lines.append(f"- … {len(entries) - _LIST} more")
    return "\n".join(lines)


def trends_data(report: DailyReport, analysis: WindowAnalysis) -> str:
    lines = [f"previous days compared: {analysis.history_days}"]
    for t in sorted(report.topics, key=lambda t: -t.count)[:_LIST]:
        avg = f", previous average {t.previous_avg:.1f}" if t.previous_avg is not None else ""
        refs = ", ".join(f"#{n}" for n in t.refs[:5])
        lines.append(f"- {t.name}: {t.count} today{avg}" + (f"; e.g. {refs}" if refs else ""))
    return "\n".join(lines + storyline_lines(analysis.storylines))


def activity_data(report: DailyReport) -> str:
    a = report.activity
    lines = [
        f"contributors: {a.contributors}",
        f"authors of new issues and PRs: {a.authors}",
        f"first-time contributors ({len(a.first_time_contributors)}): "
        + (", ".join(a.first_time_contributors[:_LIST]) or "-"),
        "top reviewers: "
        + (", ".join(f"{login} ({n} reviews)" for login, n in a.top_reviewers[:8]) or "-"),
    ]
    if a.median_hours_to_merge is not None:
        lines.append(
            f"median hours to merge: {a.median_hours_to_merge:.1f} over {a.merges_measured} merges"
        )
    if a.bots_excluded:
        lines.append(f"bot events excluded: {a.bot_events}")
    return "\n".join(lines)
