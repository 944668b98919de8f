"""Values passed between stages: normalized GitHub records and the structured daily report."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

COUNT_KEYS = ("new_issues", "closed_issues", "new_prs", "merged_prs", "closed_unmerged_prs")
CommentKind = Literal["issue_comment", "review_comment", "review"]


# --- normalized GitHub records (sync → store → analysis) -------------------------------------


@dataclass(slots=True)
class ItemRecord:
    """An issue or a pull request, as of its ``updated_at``."""

    id: int
    number: int
    is_pr: bool
    title: str
    body: str
    author: str  # "ghost" for a deleted account (GitHub sends ``user: null``)
    author_type: str  # "User" or "Bot"
    author_association: str
    state: str  # "open" or "closed"
    state_reason: str | None
    draft: bool
    labels: list[str]
    created_at: datetime
    updated_at: datetime
    closed_at: datetime | None
    merged_at: datetime | None
    comments: int
    reactions: int
    html_url: str

    @property
    def is_bot(self) -> bool:
        return is_bot_login(self.author, self.author_type)


@dataclass(slots=True)
class CommentRecord:
    """An issue comment, a PR review comment or a PR review."""

    id: int
    kind: CommentKind
    number: int
    author: str
    author_type: str
    author_association: str
    body: str
    created_at: datetime
    updated_at: datetime
    review_state: str | None = None  # reviews only: APPROVED, CHANGES_REQUESTED, COMMENTED…
    path: str | None = None  # review comments only
    reactions: int = 0
    html_url: str = ""

    @property
    def is_bot(self) -> bool:
        return is_bot_login(self.author, self.author_type)


StateEvent = Literal["closed", "reopened", "merged"]
STATE_EVENTS: tuple[str, ...] = ("closed", "reopened", "merged")


@dataclass(slots=True)
class ItemEvent:
    """A state change of an issue or PR (from the repository's issue events listing)."""

    id: int
    number: int
    event: StateEvent
    created_at: datetime


def is_bot_login(login: str, user_type: str = "User") -> bool:
    """GitHub Apps are ``type == "Bot"``; classic bot accounts end in ``[bot]`` or ``-bot``."""
    lowered = login.lower()
    return user_type == "Bot" or lowered.endswith("[bot]") or lowered.endswith("-bot")


@dataclass(slots=True)
class SyncStats:
    """What one sync run cost; feeds the provenance footer and the benchmarks."""

    requests: int = 0
    not_modified: int = 0
    retried: int = 0
    slept_seconds: float = 0.0
    items: int = 0
    comments: int = 0
    reviews: int = 0
    events: int = 0
    started_at: datetime | None = None
    finished_at: datetime | None = None
    notes: list[str] = field(default_factory=list)


# --- the report (write → render → publish) ---------------------------------------------------


class Counts(BaseModel):
    new_issues: int = 0
    closed_issues: int = 0
    new_prs: int = 0
    merged_prs: int = 0
    closed_unmerged_prs: int = 0


class WindowInfo(BaseModel):
    start: datetime
    end: datetime
    tz: str
    label: str  # "2026-03-12 11:24 (UTC+8) ~ 2026-03-13 11:24 (UTC+8)"


class Statement(BaseModel):
    """One sentence or short paragraph, with the item numbers it is about."""

    text: str
    refs: list[int] = Field(default_factory=list)


class ItemLink(BaseModel):
    number: int
    title: str
    url: str
    is_pr: bool
    state: str = "open"  # open, closed, merged, draft


class FocusEntry(BaseModel):
    item: ItemLink
    reasons: list[str]  # why it matched: "label rocm", "title tag [ROCm]", "keyword MI300X"
    about: str  # what it is about, one sentence


class FocusSection(BaseModel):
    name: str
    overview: list[Statement] = Field(default_factory=list)
    issues: list[FocusEntry] = Field(default_factory=list)
    prs: list[FocusEntry] = Field(default_factory=list)
    more_issues: list[ItemLink] = Field(default_factory=list)  # matched but not described
    more_prs: list[ItemLink] = Field(default_factory=list)


class Viewpoint(BaseModel):
    login: str
    role: str  # author, reviewer, maintainer, commenter (from the thread, never an employer)
    position: str


class HotDiscussion(BaseModel):
    item: ItemLink
    comments: int  # in-window human comments and reviews
    participants: int  # distinct human participants in the window
    core_question: str
    viewpoints: list[Viewpoint]
    contention: str
    status: str


class Topic(BaseModel):
    name: str
    count: int
    previous_avg: float | None = None  # mean per day over the previous days in the store
    delta: float | None = None  # count - previous_avg
    refs: list[int] = Field(default_factory=list)


class KeyChange(BaseModel):
    item: ItemLink
    technical: str
    impact: str
    figures: list[str] = Field(default_factory=list)  # figures the PR itself states


class WatchItem(BaseModel):
    item: ItemLink
    signals: list[str]  # crash, hang, OOM, regression… and engagement
    why: str


class ActivityFigures(BaseModel):
    contributors: int = 0  # distinct humans who opened, commented or reviewed
    authors: int = 0  # distinct humans who opened an issue or PR
    first_time_contributors: list[str] = Field(default_factory=list)
    top_reviewers: list[tuple[str, int]] = Field(default_factory=list)
    median_hours_to_merge: float | None = None
    merges_measured: int = 0
    bots_excluded: list[str] = Field(default_factory=list)
    bot_events: int = 0
    # "association": GitHub's FIRST_TIME_CONTRIBUTOR/FIRST_TIMER marks only; "association+history":
    # also authors with no stored activity before the window (the store covers ≥ 30 days)
    first_time_basis: str = "association"


class AppendixItem(BaseModel):
    number: int
    title: str
    url: str
    author: str
    labels: list[str]
    at: datetime  # the timestamp that put it in its list (created, closed or merged)


class Appendix(BaseModel):
    new_issues: list[AppendixItem] = Field(default_factory=list)
    closed_issues: list[AppendixItem] = Field(default_factory=list)
    new_prs: list[AppendixItem] = Field(default_factory=list)
    merged_prs: list[AppendixItem] = Field(default_factory=list)
    closed_unmerged_prs: list[AppendixItem] = Field(default_factory=list)


class Provenance(BaseModel):
    writer: str  # "offline" or "llm"
    version: str
    generated_at: datetime
    data_fetched_at: datetime | None = None
    github_requests: int = 0
    timings: dict[str, float] = Field(default_factory=dict)  # stage → seconds
    model: str | None = None
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_hits: int = 0
    cost_usd: float | None = None
    guard_corrections: int = 0
    fallbacks: list[str] = Field(default_factory=list)  # sections written offline after LLM failure
    llm_mode: str | None = None  # json_schema, json_object or text
    llm_sections: int = 0  # sections the LLM was asked to write


class DailyReport(BaseModel):
    """The structured report; Markdown, HTML and JSON are rendered from it."""

    schema_version: int = 1
    repo: str
    sample: bool = False  # generated sample data (``devdigest demo``), not a real repository
    project: str  # display name, e.g. "vLLM"
    lang: str  # "zh" or "en"
    date: str  # the window's start date in its time zone, YYYY-MM-DD
    window: WindowInfo
    counts: Counts
    summary: list[Statement] = Field(default_factory=list)
    focus_areas: list[FocusSection] = Field(default_factory=list)
    hot_discussions: list[HotDiscussion] = Field(default_factory=list)
    # when no thread qualifies: one line naming the most-commented threads
    discussion_notes: list[Statement] = Field(default_factory=list)
    topics: list[Topic] = Field(default_factory=list)
    trend_notes: list[Statement] = Field(default_factory=list)
    key_changes: list[KeyChange] = Field(default_factory=list)
    activity: ActivityFigures = Field(default_factory=ActivityFigures)
    activity_notes: list[Statement] = Field(default_factory=list)
    watch: list[WatchItem] = Field(default_factory=list)
    continuity: list[Statement] = Field(default_factory=list)  # markers across days
    history_from: str | None = None  # YYYY-MM-DD: where the stored history begins
    appendix: Appendix = Field(default_factory=Appendix)
    provenance: Provenance
