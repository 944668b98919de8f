"""Hand-built WindowAnalysis values for writer and renderer tests."""

from __future__ import annotations

from typing import Any

from devdigest.analysis.types import (
    ChangeCandidate,
    FocusMatch,
    FocusResult,
    Thread,
    TopicCount,
    WatchCandidate,
    WindowAnalysis,
)
from devdigest.config import Project, Rule
from devdigest.models import COUNT_KEYS, ActivityFigures, Counts, ItemRecord
from devdigest.window import Window
from tests.helpers import REPO, at, day_window, make_comment, make_item, make_pr, make_review

ROCM = Rule(name="AMD/ROCm", name_zh="AMD/ROCm 生态", labels=["rocm"])
BUGS = Rule(name="Bug fixes", name_zh="缺陷修复", title_tags=["Bugfix"])


def empty_analysis(**kw: Any) -> WindowAnalysis:
    """A window with nothing in it (one focus area configured)."""
    day = day_window()
    base: dict[str, Any] = dict(
        repo=REPO,
        project=Project(repo=REPO, name="Demo", tz="Asia/Shanghai", focus=[ROCM]),
        window=Window(day.start, day.end, "Asia/Shanghai"),
        counts=Counts(),
        appendix={key: [] for key in COUNT_KEYS},
        items={},
        categories={},
        topics=[],
        focus=[FocusResult(rule=ROCM, issues=[], prs=[])],
        discussions=[],
        key_changes=[],
        watch=[],
        activity=ActivityFigures(),
        history_days=0,
    )
    return WindowAnalysis(**(base | kw))


def busy_analysis(title: str = "[Bugfix] Fix the sampler on MI300X") -> WindowAnalysis:
    """A small but complete window: an issue, a merged PR with a review debate, a topic."""
    issue = make_item(
        10,
        title="[Bug]: Server crashes on MI300X",
        body="### Describe the bug\nWhen serving GLM-5 the server crashes after ten minutes.",
        labels=["bug", "rocm"],
    )
    pr = make_pr(
        11,
        title=title,
        author="bob",
        body=(
            "## Purpose\nThis PR fixes the sampler on ROCm. Fixes #10\n\n"
            "## Test Result\n+6% throughput"
        ),
        labels=["rocm"],
        merged_at=at(20),
    )
    comments = [
        make_review(11, "carol", at(3), "CHANGES_REQUESTED", "Please add tests before we merge."),
        make_comment(11, "bob", at(4), body="Added a unit test that covers the ROCm path."),
        make_review(11, "dave", at(5), "APPROVED", "LGTM"),
        make_comment(
            11,
            "erin",
            at(6),
            body="I'm not sure we should change the default here; it affects every user.",
        ),
    ]
    thread = Thread(
        item=pr,
        comments=comments,
        participants=["carol", "bob", "dave", "erin"],
        reactions=2,
        score=9.0,
        linked=[10],
    )
    appendix = {key: [] for key in COUNT_KEYS}
    appendix |= {"new_issues": [issue], "new_prs": [pr], "merged_prs": [pr]}
    items: dict[int, ItemRecord] = {10: issue, 11: pr}
    return empty_analysis(
        counts=Counts(new_issues=1, new_prs=1, merged_prs=1),
        appendix=appendix,
        items=items,
        categories={10: ["Bug fixes"], 11: ["Bug fixes", "AMD/ROCm"]},
        topics=[
            TopicCount(rule=BUGS, count=2, numbers=[10, 11], previous_avg=None, delta=None),
            TopicCount(rule=ROCM, count=1, numbers=[11], previous_avg=None, delta=None),
        ],
        focus=[
            FocusResult(
                rule=ROCM,
                issues=[FocusMatch(issue, ["label rocm", "keyword MI300X"])],
                prs=[FocusMatch(pr, ["label rocm"])],
            )
        ],
        discussions=[thread],
        key_changes=[
            ChangeCandidate(
                item=pr,
                score=5.0,
                reasons=["category Bug fixes"],
                figures=["+6% throughput"],
                linked=[10],
                reviews=2,
            )
        ],
        watch=[WatchCandidate(item=issue, signals=["crash"], score=4.0, severity=["crashes"])],
        activity=ActivityFigures(
            contributors=5,
            authors=2,
            first_time_contributors=["erin"],
            top_reviewers=[("carol", 1), ("dave", 1)],
            median_hours_to_merge=19.0,
            merges_measured=1,
            bots_excluded=["mergify[bot]"],
            bot_events=3,
        ),
    )
