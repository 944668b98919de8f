"""Event-sourced model of a GitHub repository, materialised as REST JSON "as of" a time.

Objects are stored once with their history (state events, edit times); `Dataset` answers
"what did GitHub show at time T": only objects created at or before T, state from the events
at or before T, and `updated_at` as the latest of the object's own events and of the comments,
reviews and review comments on it at or before T.
"""

from __future__ import annotations

import copy
import hashlib
import zlib
from bisect import bisect_right, insort
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple

from devdigest.window import iso_z

REACTION_KEYS = ("+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes")
BOT_LOGINS = frozenset({"github-actions[bot]", "mergify[bot]", "dosubot[bot]"})
_LABEL_COLORS = ("d73a4a", "a2eeef", "0075ca", "cfd3d7", "7057ff", "008672", "e4e669", "fbca04")


def iso(value: datetime | None) -> str | None:
    """Format a time as GitHub does: `YYYY-MM-DDTHH:MM:SSZ`, UTC."""
    return None if value is None else iso_z(value)


def parse_iso(value: str) -> datetime:
    """Parse `YYYY-MM-DDTHH:MM:SSZ` (or any ISO 8601 with offset) into an aware UTC datetime."""
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def user_id(login: str) -> int:
    """A stable numeric id for a login."""
    return 1_000_000 + zlib.crc32(login.encode()) % 200_000_000


def sha_for(*parts: object) -> str:
    return hashlib.sha1(":".join(str(p) for p in parts).encode()).hexdigest()


@dataclass(slots=True)
class Event:
    """A state change of an item: closed, reopened, merged, edited, labeled, unlabeled."""

    kind: str
    at: datetime
    state_reason: str | None = None
    label: str | None = None


@dataclass(slots=True)
class Item:
    """An issue or a pull request with its history."""

    number: int
    is_pr: bool
    title: str
    body: str | None
    author: str | None
    created_at: datetime
    author_type: str = "User"
    author_association: str = "CONTRIBUTOR"
    labels: list[str] = field(default_factory=list)
    draft: bool = False
    events: list[Event] = field(default_factory=list)
    head_ref: str | None = None
    base_ref: str = "main"
    linked_issues: list[int] = field(default_factory=list)
    reactions: dict[str, int] = field(default_factory=dict)
    requested_reviewers: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    additions: int = 0
    deletions: int = 0
    locked: bool = False
    id: int = 0


@dataclass(slots=True)
class Comment:
    """An issue comment (on an issue or on a pull request's conversation)."""

    id: int
    number: int
    author: str | None
    created_at: datetime
    body: str
    updated_at: datetime | None = None
    author_type: str = "User"
    author_association: str = "NONE"
    reactions: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class ReviewComment:
    """A pull request review comment (on a line of the diff)."""

    id: int
    number: int
    author: str | None
    created_at: datetime
    body: str
    path: str = "vllm/engine/llm_engine.py"
    line: int = 1
    diff_hunk: str = "@@ -1,3 +1,4 @@"
    in_reply_to: int | None = None
    review_id: int | None = None
    updated_at: datetime | None = None
    author_type: str = "User"
    author_association: str = "NONE"
    reactions: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class Review:
    """A pull request review: APPROVED, CHANGES_REQUESTED, COMMENTED or DISMISSED."""

    id: int
    number: int
    author: str | None
    submitted_at: datetime
    state: str = "COMMENTED"
    body: str = ""
    author_type: str = "User"
    author_association: str = "NONE"


class ItemState(NamedTuple):
    state: str
    state_reason: str | None
    closed_at: datetime | None
    merged_at: datetime | None
    labels: list[str]


def item_state(item: Item, at: datetime) -> ItemState:
    """Fold an item's events up to `at` into its visible state."""
    state, reason, closed_at, merged_at = "open", None, None, None
    labels = list(item.labels)
    for ev in item.events:
        if ev.at > at:
            break
        if ev.kind == "closed":
            state, closed_at = "closed", ev.at
            reason = None if item.is_pr else (ev.state_reason or "completed")
        elif ev.kind == "merged":
            state, closed_at, merged_at, reason = "closed", ev.at, ev.at, None
        elif ev.kind == "reopened":
            state, closed_at = "open", None
            reason = None if item.is_pr else "reopened"
        elif ev.kind == "labeled" and ev.label and ev.label not in labels:
            labels.append(ev.label)
        elif ev.kind == "unlabeled" and ev.label in labels:
            labels.remove(ev.label)
    return ItemState(state, reason, closed_at, merged_at, labels)


class _Index:
    """Lookup tables derived from a dataset; rebuilt when the dataset's version changes."""

    def __init__(self, ds: Dataset) -> None:
        self.touches: dict[int, list[float]] = {}
        self.comment_times: dict[int, list[float]] = {}
        self.review_comment_times: dict[int, list[float]] = {}
        self.reviews: dict[int, list[Review]] = {}
        for item in ds.items.values():
            times = [item.created_at.timestamp()]
            times.extend(ev.at.timestamp() for ev in item.events)
            self.touches[item.number] = times
        for c in ds.comments:
            self._touch(c.number, c.created_at, c.updated_at)
            self.comment_times.setdefault(c.number, []).append(c.created_at.timestamp())
        for rc in ds.review_comments:
            self._touch(rc.number, rc.created_at, rc.updated_at)
            self.review_comment_times.setdefault(rc.number, []).append(rc.created_at.timestamp())
        for r in ds.reviews:
            self._touch(r.number, r.submitted_at, None)
            self.reviews.setdefault(r.number, []).append(r)
        for table in (self.touches, self.comment_times, self.review_comment_times):
            for values in table.values():
                values.sort()
        for reviews in self.reviews.values():
            reviews.sort(key=lambda r: (r.submitted_at, r.id))

    def _touch(self, number: int, created: datetime, updated: datetime | None) -> None:
        times = self.touches.get(number)
        if times is None:
            return
        times.append(created.timestamp())
        if updated is not None:
            times.append(updated.timestamp())


def _count_at(times: list[float] | None, at: datetime) -> int:
    return bisect_right(times, at.timestamp()) if times else 0


@dataclass
class Dataset:
    """A repository's issues, pull requests and discussions with their history."""

    repo: str = "vllm-project/vllm"
    web: str = "https://github.com"  # where html_url links point (the demo: a reserved host)
    items: dict[int, Item] = field(default_factory=dict)
    comments: list[Comment] = field(default_factory=list)
    review_comments: list[ReviewComment] = field(default_factory=list)
    reviews: list[Review] = field(default_factory=list)
    start: datetime | None = None
    end: datetime | None = None
    private: bool = False
    repo_id: int = 599547518
    version: int = 0
    _index_cache: _Index | None = field(default=None, repr=False, compare=False)
    _index_version: int = field(default=-1, repr=False, compare=False)
    _next_id: int = field(default=4_100_000_000, repr=False, compare=False)

    # ---- building -------------------------------------------------------------------------

    def invalidate(self) -> None:
        """Call after changing objects in place, so derived indexes are rebuilt."""
        self.version += 1

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def add_item(
        self,
        number: int | None = None,
        *,
        is_pr: bool = False,
        created_at: datetime,
        title: str = "An item",
        body: str | None = "",
        author: str | None = "octocat",
        closed_at: datetime | None = None,
        state_reason: str = "completed",
        merged_at: datetime | None = None,
        events: list[Event] | None = None,
        **fields: Any,
    ) -> Item:
        """Add an item; `closed_at` / `merged_at` are shortcuts for close and merge events."""
        if number is None:
            number = max(self.items, default=0) + 1
        if number in self.items:
            raise ValueError(f"item #{number} already exists")
        item = Item(number, is_pr, title, body, author, created_at, **fields)
        if not item.id:
            item.id = 2_000_000_000 + number
        if is_pr and item.head_ref is None:
            item.head_ref = f"branch-{number}"
        self.items[number] = item
        for ev in events or []:
            self.add_event(number, ev)
        if merged_at is not None:
            self.add_event(number, Event("merged", merged_at))
        elif closed_at is not None:
            self.add_event(number, Event("closed", closed_at, state_reason))
        self.invalidate()
        return item

    def add_event(self, number: int, event: Event) -> Event:
        insort(self.items[number].events, event, key=lambda ev: ev.at)
        self.invalidate()
        return event

    def close(self, number: int, at: datetime, reason: str = "completed") -> Event:
        return self.add_event(number, Event("closed", at, reason))

    def reopen(self, number: int, at: datetime) -> Event:
        return self.add_event(number, Event("reopened", at))

    def merge(self, number: int, at: datetime) -> Event:
        return self.add_event(number, Event("merged", at))

    def add_comment(
        self,
        number: int,
        author: str | None,
        created_at: datetime,
        body: str = "Thanks!",
        **kw: Any,
    ) -> Comment:
        comment = Comment(
            kw.pop("id", None) or self.new_id(), number, author, created_at, body, **kw
        )
        self.comments.append(comment)
        self.invalidate()
        return comment

    def add_review_comment(
        self, number: int, author: str | None, created_at: datetime, body: str = "nit", **kw: Any
    ) -> ReviewComment:
        rid = kw.pop("id", None) or self.new_id()
        rc = ReviewComment(rid, number, author, created_at, body, **kw)
        self.review_comments.append(rc)
        self.invalidate()
        return rc

    def add_review(
        self, number: int, author: str | None, submitted_at: datetime, state: str = "APPROVED", **kw
    ) -> Review:
        review = Review(
            kw.pop("id", None) or self.new_id(), number, author, submitted_at, state, **kw
        )
        self.reviews.append(review)
        self.invalidate()
        return review

    def copy(self) -> Dataset:
        """A deep copy that can be changed without affecting this dataset."""
        clone = copy.deepcopy(self)
        clone._index_cache = None
        clone._index_version = -1
        return clone

    # ---- queries --------------------------------------------------------------------------

    @property
    def index(self) -> _Index:
        if self._index_cache is None or self._index_version != self.version:
            self._index_cache = _Index(self)
            self._index_version = self.version
        return self._index_cache

    def updated_at(self, item: Item, at: datetime) -> datetime:
        times = self.index.touches[item.number]
        pos = bisect_right(times, at.timestamp())
        if pos == 0:
            return item.created_at
        return datetime.fromtimestamp(times[pos - 1], UTC)

    def reviews_at(self, number: int, at: datetime) -> list[Review]:
        return [r for r in self.index.reviews.get(number, []) if r.submitted_at <= at]

    # ---- JSON -----------------------------------------------------------------------------

    @property
    def api(self) -> str:
        return f"https://api.github.com/repos/{self.repo}"

    @property
    def html(self) -> str:
        return f"{self.web}/{self.repo}"

    def user_json(self, login: str | None, kind: str = "User") -> dict[str, Any] | None:
        if login is None:
            return None
        uid = user_id(login)
        return {
            "login": login,
            "id": uid,
            "node_id": f"MDQ6VXNlcj{uid}",
            "avatar_url": f"https://avatars.githubusercontent.com/u/{uid}?v=4",
            "url": f"https://api.github.com/users/{login}",
            "html_url": f"https://github.com/{login}",
            "type": "Bot" if login in BOT_LOGINS else kind,
            "site_admin": False,
        }

    def label_json(self, name: str) -> dict[str, Any]:
        lid = 5_000_000_000 + zlib.crc32(name.encode()) % 900_000_000
        return {
            "id": lid,
            "node_id": f"LA_kwDO{lid}",
            "url": f"{self.api}/labels/{name.replace(' ', '%20')}",
            "name": name,
            "color": _LABEL_COLORS[lid % len(_LABEL_COLORS)],
            "default": name in ("bug", "documentation"),
            "description": None,
        }

    def reactions_json(self, url: str, reactions: dict[str, int]) -> dict[str, Any]:
        out: dict[str, Any] = {"url": f"{url}/reactions", "total_count": sum(reactions.values())}
        for key in REACTION_KEYS:
            out[key] = reactions.get(key, 0)
        return out

    def issue_json(self, item: Item, at: datetime) -> dict[str, Any]:
        """An item as listed by `GET /repos/{o}/{r}/issues` at time `at`."""
        st = item_state(item, at)
        url = f"{self.api}/issues/{item.number}"
        data: dict[str, Any] = {
            "url": url,
            "repository_url": self.api,
            "labels_url": f"{url}/labels{{/name}}",
            "comments_url": f"{url}/comments",
            "events_url": f"{url}/events",
            "html_url": f"{self.html}/{'pull' if item.is_pr else 'issues'}/{item.number}",
            "id": item.id,
            "node_id": f"{'PR' if item.is_pr else 'I'}_kwDO{item.id}",
            "number": item.number,
            "title": item.title,
            "user": self.user_json(item.author, item.author_type),
            "labels": [self.label_json(name) for name in st.labels],
            "state": st.state,
            "locked": item.locked,
            "assignee": None,
            "assignees": [],
            "milestone": None,
            "comments": _count_at(self.index.comment_times.get(item.number), at),
            "created_at": iso(item.created_at),
            "updated_at": iso(self.updated_at(item, at)),
            "closed_at": iso(st.closed_at),
            "author_association": item.author_association,
            "active_lock_reason": None,
            "body": item.body,
            "reactions": self.reactions_json(url, item.reactions),
            "timeline_url": f"{url}/timeline",
            "performed_via_github_app": None,
            "state_reason": st.state_reason,
        }
        if item.is_pr:
            data["draft"] = item.draft
            data["pull_request"] = {
                "url": f"{self.api}/pulls/{item.number}",
                "html_url": f"{self.html}/pull/{item.number}",
                "diff_url": f"{self.html}/pull/{item.number}.diff",
                "patch_url": f"{self.html}/pull/{item.number}.patch",
                "merged_at": iso(st.merged_at),
            }
        return data

    def _ref_json(self, item: Item, ref: str, owner: str) -> dict[str, Any]:
        return {
            "label": f"{owner}:{ref}",
            "ref": ref,
            "sha": sha_for(self.repo, item.number, ref),
            "user": self.user_json(owner),
            "repo": None,
        }

    def pull_json(self, item: Item, at: datetime, full: bool = False) -> dict[str, Any]:
        """A pull request as listed by `GET /pulls` (or, with `full`, as `GET /pulls/{n}`)."""
        if not item.is_pr:
            raise ValueError(f"#{item.number} is not a pull request")
        st = item_state(item, at)
        url = f"{self.api}/pulls/{item.number}"
        owner = self.repo.split("/")[0]
        data: dict[str, Any] = {
            "url": url,
            "id": item.id,
            "node_id": f"PR_kwDO{item.id}",
            "html_url": f"{self.html}/pull/{item.number}",
            "diff_url": f"{self.html}/pull/{item.number}.diff",
            "issue_url": f"{self.api}/issues/{item.number}",
            "number": item.number,
            "state": st.state,
            "locked": item.locked,
            "title": item.title,
            "user": self.user_json(item.author, item.author_type),
            "body": item.body,
            "created_at": iso(item.created_at),
            "updated_at": iso(self.updated_at(item, at)),
            "closed_at": iso(st.closed_at),
            "merged_at": iso(st.merged_at),
            "merge_commit_sha": sha_for(self.repo, item.number, "merge"),
            "assignee": None,
            "assignees": [],
            "requested_reviewers": [self.user_json(login) for login in item.requested_reviewers],
            "requested_teams": [],
            "labels": [self.label_json(name) for name in st.labels],
            "milestone": None,
            "draft": item.draft,
            "head": self._ref_json(
                item, item.head_ref or f"pr-{item.number}", item.author or owner
            ),
            "base": self._ref_json(item, item.base_ref, owner),
            "author_association": item.author_association,
            "auto_merge": None,
            "active_lock_reason": None,
        }
        if full:
            data.update(
                merged=st.merged_at is not None,
                mergeable=None if st.state == "closed" else True,
                merged_by=None,
                comments=_count_at(self.index.comment_times.get(item.number), at),
                review_comments=_count_at(self.index.review_comment_times.get(item.number), at),
                commits=1 + item.additions // 120,
                additions=item.additions,
                deletions=item.deletions,
                changed_files=len(item.files),
            )
        return data

    def comment_json(self, c: Comment, at: datetime) -> dict[str, Any]:
        """An issue comment as listed by `GET /repos/{o}/{r}/issues/comments`."""
        url = f"{self.api}/issues/comments/{c.id}"
        updated = c.updated_at if c.updated_at and c.updated_at <= at else c.created_at
        kind = "pull" if self.items.get(c.number) and self.items[c.number].is_pr else "issues"
        return {
            "url": url,
            "html_url": f"{self.html}/{kind}/{c.number}#issuecomment-{c.id}",
            "issue_url": f"{self.api}/issues/{c.number}",
            "id": c.id,
            "node_id": f"IC_kwDO{c.id}",
            "user": self.user_json(c.author, c.author_type),
            "created_at": iso(c.created_at),
            "updated_at": iso(updated),
            "author_association": c.author_association,
            "body": c.body,
            "reactions": self.reactions_json(url, c.reactions),
            "performed_via_github_app": None,
        }

    def review_comment_json(self, rc: ReviewComment, at: datetime) -> dict[str, Any]:
        """A review comment as listed by `GET /repos/{o}/{r}/pulls/comments`."""
        url = f"{self.api}/pulls/comments/{rc.id}"
        updated = rc.updated_at if rc.updated_at and rc.updated_at <= at else rc.created_at
        commit = sha_for(self.repo, rc.number, "head")
        return {
            "url": url,
            "pull_request_review_id": rc.review_id,
            "id": rc.id,
            "node_id": f"PRRC_kwDO{rc.id}",
            "diff_hunk": rc.diff_hunk,
            "path": rc.path,
            "commit_id": commit,
            "original_commit_id": commit,
            "user": self.user_json(rc.author, rc.author_type),
            "body": rc.body,
            "created_at": iso(rc.created_at),
            "updated_at": iso(updated),
            "html_url": f"{self.html}/pull/{rc.number}#discussion_r{rc.id}",
            "pull_request_url": f"{self.api}/pulls/{rc.number}",
            "author_association": rc.author_association,
            "reactions": self.reactions_json(url, rc.reactions),
            "line": rc.line,
            "original_line": rc.line,
            "side": "RIGHT",
            "subject_type": "line",
            **({"in_reply_to_id": rc.in_reply_to} if rc.in_reply_to else {}),
        }

    def issue_events_json(self, at: datetime) -> list[dict[str, Any]]:
        """State events (closed, reopened, merged) as `GET /repos/{o}/{r}/issues/events` lists
        them at `at`, newest first; a merge is a `merged` and a `closed` event (as on GitHub)."""
        rows = []
        for item in self.items.values():
            for ev in item.events:
                if ev.at > at or ev.kind not in ("closed", "reopened", "merged"):
                    continue
                for kind in ("merged", "closed") if ev.kind == "merged" else (ev.kind,):
                    rows.append(self._event_json(item, kind, ev.at))
        rows.sort(key=lambda row: (row["created_at"], row["id"]), reverse=True)
        return rows

    def _event_json(self, item: Item, kind: str, when: datetime) -> dict[str, Any]:
        event_id = int(sha_for(self.repo, item.number, kind, iso(when))[:12], 16)
        issue: dict[str, Any] = {"number": item.number, "title": item.title}
        if item.is_pr:
            issue["pull_request"] = {"url": f"{self.api}/pulls/{item.number}"}
        return {
            "id": event_id,
            "node_id": f"CE_{event_id}",
            "url": f"{self.api}/issues/events/{event_id}",
            "actor": self.user_json(item.author),
            "event": kind,
            "commit_id": None,
            "created_at": iso(when),
            "issue": issue,
        }

    def review_json(self, r: Review) -> dict[str, Any]:
        """A review as listed by `GET /repos/{o}/{r}/pulls/{n}/reviews`."""
        return {
            "id": r.id,
            "node_id": f"PRR_kwDO{r.id}",
            "user": self.user_json(r.author, r.author_type),
            "body": r.body,
            "state": r.state,
            "html_url": f"{self.html}/pull/{r.number}#pullrequestreview-{r.id}",
            "pull_request_url": f"{self.api}/pulls/{r.number}",
            "author_association": r.author_association,
            "submitted_at": iso(r.submitted_at),
            "commit_id": sha_for(self.repo, r.number, "head"),
        }

    def repo_json(self, at: datetime) -> dict[str, Any]:
        """Repository metadata as `GET /repos/{o}/{r}`."""
        owner, name = self.repo.split("/")
        open_count = sum(
            1
            for item in self.items.values()
            if item.created_at <= at and item_state(item, at).state == "open"
        )
        return {
            "id": self.repo_id,
            "node_id": f"R_kgDO{self.repo_id}",
            "name": name,
            "full_name": self.repo,
            "private": self.private,
            "owner": self.user_json(owner, "Organization"),
            "html_url": self.html,
            "description": "A high-throughput and memory-efficient inference and serving engine",
            "fork": False,
            "url": self.api,
            "created_at": "2023-02-09T11:23:20Z",
            "updated_at": iso(at),
            "pushed_at": iso(at),
            "default_branch": "main",
            "visibility": "private" if self.private else "public",
            "open_issues_count": open_count,
            "has_issues": True,
            "archived": False,
        }
