"""What analysis hands to the writers: plain data about one window, no prose."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from devdigest.config import Project, Rule

if TYPE_CHECKING:
    from devdigest.analysis.continuity import Marker
from devdigest.models import ActivityFigures, CommentRecord, Counts, ItemRecord
from devdigest.window import Window

if TYPE_CHECKING:  # the facts layer imports classify, which imports these types
    from devdigest.analysis.facts.types import ItemFacts
    from devdigest.analysis.storylines import Storyline


@dataclass
class Thread:
    """An item and its in-window human discussion (a hot-discussion candidate)."""

    item: ItemRecord
    comments: list[CommentRecord]  # in-window, humans only, oldest first (reviews included)
    participants: list[str]  # distinct human logins, in order of first in-window appearance
    reactions: int
    score: float
    linked: list[int] = field(default_factory=list)  # "#N" references in the item body


@dataclass
class FocusMatch:
    item: ItemRecord
    reasons: list[str]  # "label rocm", "title tag [ROCm]", "keyword MI300X"


@dataclass
class FocusResult:
    rule: Rule
    issues: list[FocusMatch]
    prs: list[FocusMatch]


@dataclass
class TopicCount:
    rule: Rule  # the category
    count: int  # window items in this category
    numbers: list[int]
    previous_avg: float | None  # per-day mean over the previous days with data, if any
    delta: float | None


@dataclass
class ChangeCandidate:
    """A merged (or approved, nearly merged) PR ranked for "key technical changes"."""

    item: ItemRecord
    score: float
    reasons: list[str]  # why it ranks: "category Performance", "3 approvals", "states figures"
    figures: list[str]  # figures the PR body states, verbatim: "+6.2% throughput"
    linked: list[int]
    reviews: int
    comments: list[CommentRecord] = field(default_factory=list)  # its discussion, all time
    nearly_merged: bool = False  # open, approved in the window, no outstanding change request
    facts: ItemFacts | None = None


@dataclass
class WatchCandidate:
    """A new or active issue with severity signals."""

    item: ItemRecord
    signals: list[str]  # crash, hang, OOM, wrong output, regression, security…
    score: float
    comments: list[CommentRecord] = field(default_factory=list)
    severity: list[str] = field(default_factory=list)  # the severity words found, verbatim
    breadth: list[str] = field(default_factory=list)  # popular models / hardware named
    bug_like: bool = False  # label bug, a [Bug] title tag, or a severity word
    window_comments: int = 0  # in-window human comments and reviews
    participants: int = 0  # distinct humans who wrote in the window
    reactions: int = 0
    facts: ItemFacts | None = None
    out_of_proportion: bool = False  # a memory figure absurd for the model's size
    regression: bool = False  # says it regressed from an item or a version
    comments_complete: bool = False  # the store holds every comment GitHub counts on it


@dataclass
class WindowAnalysis:
    repo: str
    project: Project
    window: Window
    counts: Counts
    appendix: dict[str, list[ItemRecord]]  # the five COUNT_KEYS, exactly the items counted
    items: dict[int, ItemRecord]  # every item the analysis mentions, by number
    categories: dict[int, list[str]]  # item number → category names (English names)
    topics: list[TopicCount]
    focus: list[FocusResult]
    discussions: list[Thread]  # ranked, each with ≥ 2 human participants
    key_changes: list[ChangeCandidate]  # ranked
    watch: list[WatchCandidate]  # ranked
    activity: ActivityFigures
    history_days: int  # how many previous days of stored data the trends compare with
    data_fetched_at: datetime | None = None
    github_requests: int = 0
    facts: dict[int, ItemFacts] = field(default_factory=dict)  # per window item, by number
    storylines: list[Storyline] = field(default_factory=list)  # ranked
    markers: list[Marker] = field(default_factory=list)  # continuity markers (memory across days)
    history_from: datetime | None = None  # where the stored history begins
    busiest: list[Thread] = field(default_factory=list)  # most-commented threads, if none is hot
