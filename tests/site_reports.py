"""Hand-built DailyReport values for the site and HTML tests (fixed clock, hostile text)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from devdigest.models import (
    Appendix,
    AppendixItem,
    Counts,
    DailyReport,
    FocusEntry,
    FocusSection,
    HotDiscussion,
    ItemLink,
    KeyChange,
    Provenance,
    Statement,
    Topic,
    Viewpoint,
    WatchItem,
    WindowInfo,
)

HOSTILE_TITLE = (
    "<script>alert(1)</script> {{ site }} {% endraw %} &lt;b&gt; [x](javascript:alert(1))"
)
HOSTILE_BODY = (
    "See <img src=x onerror=alert(1)> and [click](javascript:alert(2)) and "
    "[data](data:text/html,hi) {{ site.github }} {%- endraw -%} &amp; &lt;tag&gt;"
)


def _item(repo: str, number: int, title: str, is_pr: bool, state: str = "open") -> ItemLink:
    kind = "pull" if is_pr else "issues"
    return ItemLink(
        number=number,
        title=title,
        url=f"https://github.com/{repo}/{kind}/{number}",
        is_pr=is_pr,
        state=state,
    )


def make_report(
    repo: str = "vllm-project/vllm",
    project: str = "vLLM",
    day: str = "2026-03-12",
    lang: str = "zh",
    counts: tuple[int, int, int, int, int] = (3, 2, 5, 4, 1),
    hostile: bool = False,
    topics: tuple[str, ...] = ("ROCm", "Speculative decoding", "Quantization", "CI"),
) -> DailyReport:
    """A small but complete report; ``hostile`` puts attack strings into untrusted fields."""
    tz = "Asia/Shanghai"
    start = datetime.combine(date.fromisoformat(day), time(0), ZoneInfo(tz)).astimezone(UTC)
    end = start + timedelta(days=1)
    n = 1000 + int(day[-2:]) * 10
    title = HOSTILE_TITLE if hostile else f"[ROCm] Fix sparse MLA crash on day {day}"
    body = HOSTILE_BODY if hostile else f"The fix for #{n} also touches #{n + 1}; see `#{n + 2}`."
    new_issues, closed_issues, new_prs, merged_prs, closed_unmerged = counts
    pr = _item(repo, n + 1, title, True, "merged")
    issue = _item(repo, n, "Engine hangs under bursty load", False)
    appendix_rows = [
        AppendixItem(
            number=n + k,
            title=title if k == 1 else f"item {n + k}",
            url=f"https://github.com/{repo}/issues/{n + k}",
            author="alice",
            labels=["rocm"],
            at=start + timedelta(hours=k),
        )
        for k in range(new_issues)
    ]
    return DailyReport(
        repo=repo,
        project=project,
        lang=lang,
        date=day,
        window=WindowInfo(
            start=start, end=end, tz=tz, label=f"{day} 00:00 (UTC+8) ~ next day 00:00 (UTC+8)"
        ),
        counts=Counts(
            new_issues=new_issues,
            closed_issues=closed_issues,
            new_prs=new_prs,
            merged_prs=merged_prs,
            closed_unmerged_prs=closed_unmerged,
        ),
        summary=[Statement(text=body, refs=[n])],
        focus_areas=[
            FocusSection(
                name="AMD/ROCm",
                overview=[Statement(text=f"ROCm work continued in #{n + 1}.", refs=[n + 1])],
                prs=[FocusEntry(item=pr, reasons=["label rocm"], about=body)],
            )
        ],
        hot_discussions=[
            HotDiscussion(
                item=issue,
                comments=4,
                participants=2,
                core_question="Is the hang in the scheduler?",
                viewpoints=[
                    Viewpoint(login="alice", role="author", position=body),
                    Viewpoint(login="bob", role="reviewer", position="Check CPU load first."),
                ],
                contention="Root cause.",
                status="Open.",
            )
        ],
        topics=[Topic(name=t, count=len(topics) - k) for k, t in enumerate(topics)],
        key_changes=[KeyChange(item=pr, technical=body, impact="Stable on MI300X.")],
        watch=[WatchItem(item=issue, signals=["hang"], why="Crashes production servers.")],
        appendix=Appendix(new_issues=appendix_rows),
        provenance=Provenance(
            writer="offline",
            version="0.1.0",
            generated_at=end + timedelta(hours=3),
            data_fetched_at=end + timedelta(hours=2),
        ),
    )
