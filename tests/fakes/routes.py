"""Routes of the fake GitHub REST API: repository, issues, pulls, comments, reviews, files."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from devdigest.sample.model import Dataset, Item, Review, iso, parse_iso, sha_for

if TYPE_CHECKING:
    from tests.fakes.github_server import FakeGitHub

DOCS = "https://docs.github.com/rest"
_REPO = re.compile(r"^/repos/(?P<owner>[^/]+)/(?P<name>[^/]+)(?P<rest>/.*)?$")
_ITEM = re.compile(r"^/(?P<kind>issues|pulls)/(?P<number>\d+)(?P<sub>/comments|/reviews|/files)?$")


@dataclass
class Response:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    last_modified: datetime | None = None
    charge: bool = True
    listing: list[Any] | None = None  # the full ordered listing (for Link and paging faults)
    raw: bytes | None = None


class _Invalid(Exception):
    pass


def error(status: int, message: str) -> Response:
    return Response(status, {"message": message, "documentation_url": DOCS, "status": str(status)})


def page_args(query: dict[str, str]) -> tuple[int, int]:
    try:
        per_page = min(100, max(1, int(query.get("per_page", 30))))
    except ValueError:
        per_page = 30
    try:
        page = max(1, int(query.get("page", 1)))
    except ValueError:
        page = 1
    return page, per_page


def _choice(query: dict[str, str], name: str, allowed: tuple[str, ...], default: str) -> str:
    value = query.get(name, default)
    if value not in allowed:
        raise _Invalid(f"Invalid value for `{name}`: {value!r}")
    return value


def _since(query: dict[str, str]) -> datetime | None:
    value = query.get("since")
    if not value:
        return None
    try:
        return parse_iso(value)
    except ValueError as exc:
        raise _Invalid(f"Invalid value for `since`: {value!r}") from exc


def _paged(rows: list[Any], query: dict[str, str], render, updated) -> Response:
    page, per_page = page_args(query)
    chunk = rows[(page - 1) * per_page : page * per_page]
    body = [render(row) for row in chunk]
    last = max((updated(row) for row in chunk), default=None)
    return Response(200, body, last_modified=last, listing=rows)


def route(app: FakeGitHub, path: str, query: dict[str, str], token: str | None, now: datetime):
    """Answer one GET request (auth and rate limits are checked by the caller)."""
    m = _REPO.match(path)
    ds = app.datasets.get(f"{m['owner']}/{m['name']}".lower()) if m else None
    if m is None or ds is None or (ds.private and token is None):
        return error(404, "Not Found")
    denied = app.no_access.get(token or "", set())
    if ds.repo.lower() in denied or "*" in denied:
        return error(403, "Resource not accessible by personal access token")
    rest = m["rest"] or ""
    try:
        if rest in ("", "/"):
            return Response(200, ds.repo_json(now))
        if rest == "/issues/events":
            events = ds.issue_events_json(now)
            return _paged(events, query, lambda e: e, lambda e: parse_iso(e["created_at"]))
        if rest in ("/issues", "/pulls"):
            return _items(app, ds, rest == "/pulls", query, now)
        if rest in ("/issues/comments", "/pulls/comments"):
            return _comments(app, ds, rest == "/pulls/comments", query, now)
        sub = _ITEM.match(rest)
        if sub is not None:
            return _single(app, ds, sub["kind"], int(sub["number"]), sub["sub"], query, now)
    except _Invalid as exc:
        return error(422, str(exc))
    return error(404, "Not Found")


def _items(app: FakeGitHub, ds: Dataset, prs: bool, query: dict[str, str], now: datetime):
    state = _choice(query, "state", ("open", "closed", "all"), "open")
    sorts = (
        ("created", "updated", "popularity", "long-running")
        if prs
        else ("created", "updated", "comments")
    )
    sort = _choice(query, "sort", sorts, "created")
    # GitHub: pulls default to desc only when sorted by creation; issues always default to desc
    default_dir = "desc" if not prs or sort == "created" else "asc"
    direction = _choice(query, "direction", ("asc", "desc"), default_dir)
    since = None if prs else _since(query)
    view = app.views(ds).item_view(now, app.touches.get(ds.repo.lower(), {}))
    key_sort = sort if sort in ("created", "updated") else "created"
    rows = view.listing(prs, state, key_sort, direction, since)
    gone = app.deleted.get(ds.repo.lower())
    if gone:
        rows = [it for it in rows if it.number not in gone]

    def render(item: Item) -> dict[str, Any]:
        data = ds.pull_json(item, now) if prs else ds.issue_json(item, now)
        data["updated_at"] = iso(view.updated_at(item))
        return data

    return _paged(rows, query, render, view.updated_at)


def _comments(app: FakeGitHub, ds: Dataset, review: bool, query: dict[str, str], now: datetime):
    sort = _choice(query, "sort", ("created", "updated"), "created")
    direction = _choice(query, "direction", ("asc", "desc"), "asc")
    if "sort" not in query:
        direction = "asc"
    view = app.views(ds).comment_view(now, review)
    rows = view.listing(sort, direction, _since(query))
    render = (
        (lambda c: ds.review_comment_json(c, now))
        if review
        else (lambda c: ds.comment_json(c, now))
    )
    return _paged(
        rows,
        query,
        render,
        lambda c: c.updated_at if c.updated_at and c.updated_at <= now else c.created_at,
    )


def visible_pull(ds: Dataset, number: int, now: datetime) -> Item | None:
    """Pull request ``number`` if it exists as of ``now``."""
    item = ds.items.get(number)
    if item is None or item.created_at > now or not item.is_pr:
        return None
    return item


def pull_reviews(ds: Dataset, number: int, now: datetime) -> list[Review]:
    """The reviews of a pull request as of ``now``, in GitHub's order (REST and GraphQL)."""
    return ds.reviews_at(number, now)


def _single(app, ds: Dataset, kind: str, number: int, sub: str | None, query, now: datetime):
    item = ds.items.get(number)
    if item is None or item.created_at > now or (kind == "pulls" and not item.is_pr):
        return error(404, "Not Found")
    if sub == "/reviews" and kind == "pulls":
        reviews = pull_reviews(ds, number, now)
        return _paged(reviews, query, ds.review_json, lambda r: r.submitted_at)
    if sub == "/files" and kind == "pulls":
        return _paged(item.files, query, lambda f: _file_json(ds, item, f), lambda f: None)
    if sub == "/comments" and kind == "issues":
        since = _since(query)
        cview = app.views(ds).comment_view(now, False)
        rows = [c for c in cview.by_created if c.number == number]
        if since is not None:
            rows = [c for c in rows if cview.updated[c.id] >= since.timestamp()]
        return _paged(rows, query, lambda c: ds.comment_json(c, now), lambda c: c.created_at)
    if sub is not None:
        return error(404, "Not Found")
    view = app.views(ds).item_view(now, app.touches.get(ds.repo.lower(), {}))
    data = ds.pull_json(item, now, full=True) if kind == "pulls" else ds.issue_json(item, now)
    data["updated_at"] = iso(view.updated_at(item))
    return Response(200, data, last_modified=view.updated_at(item))


def _file_json(ds: Dataset, item: Item, filename: str) -> dict[str, Any]:
    share = max(1, len(item.files))
    adds, dels = item.additions // share, item.deletions // share
    return {
        "sha": sha_for(ds.repo, item.number, filename),
        "filename": filename,
        "status": "modified",
        "additions": adds,
        "deletions": dels,
        "changes": adds + dels,
        "patch": "@@ -1,3 +1,4 @@\n+# changed",
    }
