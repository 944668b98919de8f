"""Ordered views of a `Dataset` as of a time, cached so a big dataset is not re-sorted per request.

A view depends only on which events happened at or before the time, so it is cached by the
number of events at or before it (plus the server's own "touch" overlay): advancing the clock
without crossing an event reuses the cached view.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from datetime import UTC, datetime
from typing import Any

from devdigest.sample.model import Comment, Dataset, Item, ReviewComment, item_state


class ItemView:
    """Issues and pull requests visible at one time, with their `updated_at` and state."""

    def __init__(self, ds: Dataset, items: list[Item], at: datetime, touches: dict[int, float]):
        self.at = at
        ts = at.timestamp()
        self.updated: dict[int, float] = {}
        for item in items:
            times = ds.index.touches[item.number]
            value = times[bisect_right(times, ts) - 1]
            extra = touches.get(item.number)
            self.updated[item.number] = max(value, extra) if extra and extra <= ts else value
        self.by_created = items
        self.by_updated = sorted(items, key=lambda it: (self.updated[it.number], it.number))
        self.updated_keys = [self.updated[it.number] for it in self.by_updated]
        self._states: dict[int, str] | None = None
        self._lists: dict[tuple[Any, ...], list[Item]] = {}

    def state(self, item: Item) -> str:
        if self._states is None:
            self._states = {it.number: item_state(it, self.at).state for it in self.by_created}
        return self._states[item.number]

    def updated_at(self, item: Item) -> datetime:
        return datetime.fromtimestamp(self.updated[item.number], UTC)

    def listing(
        self, prs_only: bool, state: str, sort: str, direction: str, since: datetime | None
    ) -> list[Item]:
        key = (prs_only, state, sort, direction, since)
        cached = self._lists.get(key)
        if cached is not None:
            return cached
        if sort == "updated":
            rows = self.by_updated
            if since is not None:
                rows = rows[bisect_left(self.updated_keys, since.timestamp()) :]
        else:
            rows = self.by_created
        if since is not None and sort != "updated":
            cut = since.timestamp()
            rows = [it for it in rows if self.updated[it.number] >= cut]
        if prs_only:
            rows = [it for it in rows if it.is_pr]
        if state != "all":
            rows = [it for it in rows if self.state(it) == state]
        if direction == "desc":
            rows = rows[::-1]
        self._lists[key] = rows
        return rows


class CommentView:
    """Issue comments or review comments visible at one time, ordered by created and updated."""

    def __init__(self, rows: list[Comment] | list[ReviewComment], at: datetime):
        ts = at.timestamp()
        self.updated: dict[int, float] = {}
        for c in rows:
            upd = c.updated_at.timestamp() if c.updated_at else 0.0
            self.updated[c.id] = upd if 0.0 < upd <= ts else c.created_at.timestamp()
        self.by_created = rows
        self.by_updated = sorted(rows, key=lambda c: (self.updated[c.id], c.id))
        self.updated_keys = [self.updated[c.id] for c in self.by_updated]
        self._lists: dict[tuple[Any, ...], list[Any]] = {}

    def listing(self, sort: str, direction: str, since: datetime | None) -> list[Any]:
        key = (sort, direction, since)
        cached = self._lists.get(key)
        if cached is not None:
            return cached
        rows = self.by_updated if sort == "updated" else self.by_created
        if since is not None:
            if sort == "updated":
                rows = rows[bisect_left(self.updated_keys, since.timestamp()) :]
            else:
                cut = since.timestamp()
                rows = [c for c in rows if self.updated[c.id] >= cut]
        if direction == "desc":
            rows = rows[::-1]
        self._lists[key] = rows
        return rows


class Views:
    """All views of one dataset; rebuilt when the dataset's version changes."""

    def __init__(self, ds: Dataset) -> None:
        self.ds = ds
        self.version = ds.version
        index = ds.index
        self.items = sorted(ds.items.values(), key=lambda it: (it.created_at, it.number))
        self.item_created = [it.created_at.timestamp() for it in self.items]
        self.item_events = sorted(t for times in index.touches.values() for t in times)
        self.comments = sorted(ds.comments, key=lambda c: (c.created_at, c.id))
        self.review_comments = sorted(ds.review_comments, key=lambda c: (c.created_at, c.id))
        self.comment_created = [c.created_at.timestamp() for c in self.comments]
        self.rc_created = [c.created_at.timestamp() for c in self.review_comments]
        self.comment_events = _times(self.comments)
        self.rc_events = _times(self.review_comments)
        self._cache: dict[tuple[Any, ...], Any] = {}

    def item_view(self, at: datetime, touches: dict[int, float]) -> ItemView:
        ts = at.timestamp()
        overlay = tuple(sorted((n, t) for n, t in touches.items() if t <= ts))
        key = ("items", bisect_right(self.item_events, ts), overlay)
        view = self._cache.get(key)
        if view is None:
            visible = self.items[: bisect_right(self.item_created, ts)]
            view = self._remember(key, ItemView(self.ds, visible, at, touches))
        view.at = at
        return view

    def comment_view(self, at: datetime, review: bool) -> CommentView:
        ts = at.timestamp()
        events = self.rc_events if review else self.comment_events
        key = ("rc" if review else "c", bisect_right(events, ts))
        view = self._cache.get(key)
        if view is None:
            rows = self.review_comments if review else self.comments
            created = self.rc_created if review else self.comment_created
            view = self._remember(key, CommentView(rows[: bisect_right(created, ts)], at))
        return view

    def _remember(self, key: tuple[Any, ...], view: Any) -> Any:
        if len(self._cache) > 32:
            self._cache.clear()
        self._cache[key] = view
        return view


def _times(rows: list[Comment] | list[ReviewComment]) -> list[float]:
    out = [c.created_at.timestamp() for c in rows]
    out += [c.updated_at.timestamp() for c in rows if c.updated_at]
    out.sort()
    return out
