"""Small builders shared by tests: records with defaults, and a store loaded from a dataset."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import count
from typing import Any

from devdigest.models import CommentRecord, ItemRecord
from devdigest.report import upsert_sample
from devdigest.sample.model import Dataset
from devdigest.store import Store, open_store
from devdigest.window import Window

T0 = datetime(2026, 3, 12, 3, 24, tzinfo=UTC)  # default window start
REPO = "o/r"
_ids = count(1)


def at(hours: float = 0.0, base: datetime = T0) -> datetime:
    """``base`` + ``hours`` (negative hours go back in time)."""
    return base + timedelta(hours=hours)


def day_window(start: datetime = T0, hours: float = 24) -> Window:
    return Window(start, start + timedelta(hours=hours))


def make_item(number: int, **kw: Any) -> ItemRecord:
    """An open issue by ``alice`` created at ``T0 + 1h``; any field can be overridden."""
    created = kw.get("created_at", at(1))
    is_pr = kw.get("is_pr", False)
    base: dict[str, Any] = dict(
        id=10_000 + number,
        number=number,
        is_pr=is_pr,
        title=f"item {number}",
        body="",
        author="alice",
        author_type="User",
        author_association="CONTRIBUTOR",
        state="open",
        state_reason=None,
        draft=False,
        labels=[],
        created_at=created,
        updated_at=created,
        closed_at=None,
        merged_at=None,
        comments=0,
        reactions=0,
        html_url=f"https://github.com/{REPO}/{'pull' if is_pr else 'issues'}/{number}",
    )
    return ItemRecord(**(base | kw))


def make_pr(number: int, **kw: Any) -> ItemRecord:
    """A PR; ``merged_at`` given → closed and merged at that time."""
    if kw.get("merged_at") is not None:
        kw.setdefault("state", "closed")
        kw.setdefault("closed_at", kw["merged_at"])
    return make_item(number, is_pr=True, **kw)


def make_comment(number: int, author: str, created_at: datetime, **kw: Any) -> CommentRecord:
    """An issue comment (``kind="review"`` with ``review_state`` for a review)."""
    base: dict[str, Any] = dict(
        id=next(_ids),
        kind="issue_comment",
        number=number,
        author=author,
        author_type="User",
        author_association="NONE",
        body=f"comment by {author}",
        created_at=created_at,
        updated_at=created_at,
    )
    return CommentRecord(**(base | kw))


def make_review(
    number: int, author: str, created_at: datetime, state: str = "APPROVED", body: str = "", **kw
) -> CommentRecord:
    return make_comment(
        number, author, created_at, kind="review", review_state=state, body=body, **kw
    )


def bot_comment(number: int, created_at: datetime, login: str = "mergify[bot]") -> CommentRecord:
    return make_comment(number, login, created_at, author_type="Bot", body="automated notice")


def fill_store(
    store: Store, items: list[ItemRecord], comments: list[CommentRecord], repo: str = REPO
) -> Store:
    with store.transaction() as conn:
        repo_id = store.repo_id(repo, conn)
        store.upsert_items(conn, repo_id, items)
        store.upsert_comments(conn, repo_id, comments)
    return store


def mark_synced(store: Store, start: datetime, end: datetime, repo: str = REPO) -> Store:
    """Record ``[start, end]`` as covered by a completed sync of every listing (for --no-sync)."""
    from devdigest.github.sync import MARGIN, RESOURCES

    with store.transaction() as conn:
        repo_id = store.repo_id(repo, conn)
        for resource in RESOURCES:
            store.set_watermark(conn, repo_id, resource, end - MARGIN)
            store.set_watermark(conn, repo_id, f"{resource}:from", start)
    return store


def store_from_dataset(ds: Dataset, db: str, when: datetime | None = None) -> Store:
    """A store holding ``ds`` as GitHub shows it at ``when`` (default: its end), no HTTP."""
    store = open_store(db)
    upsert_sample(store, ds, when)
    return store
