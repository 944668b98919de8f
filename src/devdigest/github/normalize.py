"""Pure conversion of GitHub REST JSON into store records."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from devdigest.errors import GitHubError
from devdigest.models import STATE_EVENTS, CommentRecord, ItemEvent, ItemRecord
from devdigest.window import parse_instant

T = TypeVar("T")
GHOST = "ghost"  # GitHub's name for a deleted account; the API sends ``user: null``


def normalize_time(value: str | None) -> datetime | None:
    return parse_instant(value) if value else None


def _user(obj: dict[str, Any]) -> tuple[str, str]:
    user = obj.get("user") or {}
    return user.get("login") or GHOST, user.get("type") or "User"


def _reactions(obj: dict[str, Any]) -> int:
    return int((obj.get("reactions") or {}).get("total_count") or 0)


def _number_from_url(url: str) -> int:
    return int(url.rstrip("/").rsplit("/", 1)[-1])


def normalize_item(obj: dict[str, Any]) -> ItemRecord:
    """An element of ``GET /repos/{o}/{r}/issues`` (issue or PR)."""
    author, author_type = _user(obj)
    pull = obj.get("pull_request")
    return ItemRecord(
        id=int(obj["id"]),
        number=int(obj["number"]),
        is_pr=pull is not None,
        title=obj.get("title") or "",
        body=obj.get("body") or "",
        author=author,
        author_type=author_type,
        author_association=obj.get("author_association") or "NONE",
        state=obj.get("state") or "open",
        state_reason=obj.get("state_reason"),
        draft=bool(obj.get("draft")),
        labels=sorted(label["name"] for label in obj.get("labels") or [] if label.get("name")),
        created_at=normalize_time(obj["created_at"]),
        updated_at=normalize_time(obj["updated_at"]),
        closed_at=normalize_time(obj.get("closed_at")),
        merged_at=normalize_time((pull or {}).get("merged_at")),
        comments=int(obj.get("comments") or 0),
        reactions=_reactions(obj),
        html_url=obj.get("html_url") or "",
    )


def normalize_issue_comment(obj: dict[str, Any]) -> CommentRecord:
    """An element of ``GET /repos/{o}/{r}/issues/comments``."""
    author, author_type = _user(obj)
    return CommentRecord(
        id=int(obj["id"]),
        kind="issue_comment",
        number=_number_from_url(obj["issue_url"]),
        author=author,
        author_type=author_type,
        author_association=obj.get("author_association") or "NONE",
        body=obj.get("body") or "",
        created_at=normalize_time(obj["created_at"]),
        updated_at=normalize_time(obj.get("updated_at") or obj["created_at"]),
        reactions=_reactions(obj),
        html_url=obj.get("html_url") or "",
    )


def normalize_review_comment(obj: dict[str, Any]) -> CommentRecord:
    """An element of ``GET /repos/{o}/{r}/pulls/comments``."""
    record = normalize_issue_comment(obj | {"issue_url": obj["pull_request_url"]})
    record.kind = "review_comment"
    record.path = obj.get("path")
    return record


def normalize_review(obj: dict[str, Any], number: int) -> CommentRecord:
    """An element of ``GET /repos/{o}/{r}/pulls/{number}/reviews``.

    Reviews have no ``updated_at``; ``submitted_at`` stands for both times (pending reviews,
    which have none, are skipped by the caller).
    """
    author, author_type = _user(obj)
    submitted = normalize_time(obj["submitted_at"])
    return CommentRecord(
        id=int(obj["id"]),
        kind="review",
        number=number,
        author=author,
        author_type=author_type,
        author_association=obj.get("author_association") or "NONE",
        body=obj.get("body") or "",
        created_at=submitted,
        updated_at=submitted,
        review_state=obj.get("state"),
        html_url=obj.get("html_url") or "",
    )


def normalize_event(obj: dict[str, Any]) -> ItemEvent | None:
    """An element of ``GET /repos/{o}/{r}/issues/events``: a state change (closed, reopened,
    merged) as an ``ItemEvent``; any other event (labeled, referenced…) is ``None``."""
    if obj.get("event") not in STATE_EVENTS:
        return None
    return ItemEvent(
        id=int(obj["id"]),
        number=int(obj["issue"]["number"]),
        event=obj["event"],
        created_at=normalize_time(obj["created_at"]),
    )


def normalize_page(data: Any, normalize: Callable[[dict[str, Any]], T], source: str) -> list[T]:
    """Every element of a listing page, or one clear error for a malformed answer."""
    try:
        if not isinstance(data, list):
            raise TypeError("not a list")
        return [normalize(obj) for obj in data]
    except KeyError as exc:
        problem = f"an element without {exc.args[0]!r}"
    except (TypeError, ValueError, AttributeError) as exc:
        problem = f"an element that is not GitHub-shaped ({exc})"
    raise GitHubError(
        f"malformed answer from {source}: {problem}; nothing of that page was stored. Is "
        "--github-api-url a GitHub API?"
    )
