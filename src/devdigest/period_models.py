"""The structured period (weekly, monthly) report; Markdown, JSON and the chart come from it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from devdigest.models import Appendix, Counts, ItemLink, Provenance, Statement, WindowInfo


class DayRow(BaseModel):
    date: str  # YYYY-MM-DD in the report's time zone
    counts: Counts


class PeriodTopicRow(BaseModel):
    name: str
    count: int  # items created in the period in this category
    previous: int | None = None  # the same in the previous period; None: not in the store
    delta: int | None = None
    refs: list[int] = Field(default_factory=list)


class PeriodChange(BaseModel):
    item: ItemLink
    about: str  # the PR's own first sentence, or its title
    reasons: list[str]  # why it ranks: "category Performance", "3 reviewers"
    figures: list[str] = Field(default_factory=list)  # figures the PR itself states


class FocusRollup(BaseModel):
    name: str
    issues: int  # matching issues opened or closed in the period
    prs: int  # matching PRs opened or merged in the period
    top: list[ItemLink] = Field(default_factory=list)


class HotThread(BaseModel):
    item: ItemLink
    days: list[str]  # the local days it was hot


class RankGroup(BaseModel):
    count: int
    logins: list[str]  # tied: sorted by name, not ranked among themselves


class PeriodReport(BaseModel):
    schema_version: int = 1
    kind: Literal["week", "month", "period"]
    period: str  # "2026-W11", "2026-03", or "2026-03-01 ~ 2026-03-10"
    repo: str
    project: str
    lang: str
    window: WindowInfo
    counts: Counts  # equal to the appendix and to `devdigest stats` for the same window
    days: list[DayRow]  # they tile the period: their counts add up to ``counts``
    previous_period: str
    previous: Counts | None = None  # None: the previous period is not in the stored history
    mean: dict[str, float] | None = None  # mean of the last ``mean_periods`` periods
    mean_periods: int = 0
    summary: list[Statement] = Field(default_factory=list)
    topics: list[PeriodTopicRow] = Field(default_factory=list)
    topic_notes: list[Statement] = Field(default_factory=list)  # dominated, rose, fell
    key_changes: list[PeriodChange] = Field(default_factory=list)
    focus_areas: list[FocusRollup] = Field(default_factory=list)
    hot_threads: list[HotThread] = Field(default_factory=list)
    long_standing: list[Statement] = Field(default_factory=list)
    stale: list[Statement] = Field(default_factory=list)
    new_contributors: list[str] = Field(default_factory=list)
    first_time_basis: str = "association"
    top_authors: list[RankGroup] = Field(default_factory=list)
    top_reviewers: list[RankGroup] = Field(default_factory=list)
    history_from: str | None = None
    appendix: Appendix = Field(default_factory=Appendix)
    provenance: Provenance
