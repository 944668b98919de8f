"""Incremental sync of one repository into the store (DESIGN §2).

A run starts with ``GET /repos/{o}/{r}`` (validates the repository, gives the server's ``Date``),
then reads three repository-wide listings newest-updated first, down to ``since``:

* ``/issues?state=all`` (issues and PRs; ``pull_request.merged_at`` gives merges), and for every PR
  on a page whose ``updated_at`` is newer than the stored one, ``/pulls/{n}/reviews`` with
  ``If-None-Match``;
* ``/issues/comments`` and ``/pulls/comments``.

With GraphQL on (``github_graphql``), the reviews of a page's changed PRs come in aliased queries
of up to 50 PRs instead (``devdigest.github.graphql``); a PR with more than 100 reviews is read
over REST, and a GraphQL failure other than an auth error switches the rest of the run to REST.

Each page (with the reviews of its changed PRs and their ETags) is committed in one transaction.
A listing's watermark advances to ``Date - MARGIN`` only together with its last page, so a run that
stops half-way leaves the old watermark and the rerun reads again from there: the upserts (keyed
by id, newer-or-equal ``updated_at`` only) make the overlap harmless. There is no mid-listing
resume cursor: the listings have no upper bound, so a resumed read would start at the top anyway.

Besides ``RESOURCE`` (the watermark), each listing keeps ``RESOURCE:from``, the oldest ``since`` a
completed run used: runs always chain from the previous watermark, so the store holds every change
in ``[from, watermark]`` and a window starting inside it needs only an incremental run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from devdigest.config import Config
from devdigest.errors import AuthError, GitHubError, NotFound, StoreError
from devdigest.github.client import ApiResponse, GitHubClient, utc_now
from devdigest.github.graphql import BATCH, fetch_reviews_batch
from devdigest.github.normalize import (
    normalize_issue_comment,
    normalize_item,
    normalize_review,
    normalize_review_comment,
    normalize_time,
)
from devdigest.models import CommentRecord, ItemRecord, SyncStats
from devdigest.store import Store
from devdigest.window import iso_z

MARGIN = timedelta(minutes=5)
REVIEWS_FROM = "reviews:floor"  # the oldest ``since`` whose PRs had their reviews read
FIRST_SYNC = timedelta(days=2)
PER_PAGE = 100

Progress = Callable[[str, int], None]  # (resource, rows read so far in this run)
Validator = tuple[str, str | None, str | None]  # (URL, ETag, Last-Modified) to save

LISTINGS: dict[str, tuple[str, dict[str, str], Callable[[dict[str, Any]], Any]]] = {
    "issues": ("issues", {"state": "all"}, normalize_item),
    "issue_comments": ("issues/comments", {}, normalize_issue_comment),
    "review_comments": ("pulls/comments", {}, normalize_review_comment),
}

# Keyword arguments given to every GitHubClient that make_client builds (tests inject a
# simulated clock and sleeper here).
CLIENT_OVERRIDES: dict[str, Any] = {}


def current_time() -> datetime:
    """Now, on the clock the clients use."""
    return CLIENT_OVERRIDES.get("clock", utc_now)()


def make_client(
    config: Config, *, wait: bool = True, stats: SyncStats | None = None
) -> GitHubClient:
    """A client for the configured API URL and token."""
    token = config.github_token.get_secret_value() if config.github_token else None
    options: dict[str, Any] = {
        "reserve": config.github_rate_reserve,
        "max_tries": config.github_max_tries,
        "wait": wait,
        "stats": stats,
    }
    return GitHubClient(config.github_api_url, token, **(options | CLIENT_OVERRIDES))


@dataclass
class _Run:
    store: Store
    client: GitHubClient
    repo: str
    repo_id: int
    mark: datetime  # the watermark a completed listing advances to
    progress: Progress | None
    graphql: bool = False  # reviews in batched GraphQL queries (until GraphQL fails)
    reviews: bool = True  # False: listings only (the trend history)

    @property
    def stats(self) -> SyncStats:
        return self.client.stats


def sync_repo(
    store: Store,
    client: GitHubClient,
    repo: str,
    since: datetime | None = None,
    *,
    progress: Progress | None = None,
    graphql: bool = False,
    listings: tuple[str, ...] = tuple(LISTINGS),
    reviews: bool = True,
) -> SyncStats:
    """Fetch everything created, updated, closed or merged since ``min(since, watermark)``.

    Without ``since`` and without a watermark (first sync), the last two days. Every run is
    recorded in ``sync_runs`` with status ok, failed or interrupted. ``graphql``: batch the
    reviews in GraphQL queries (REST stays the fallback). ``listings`` and ``reviews=False``
    narrow a run to some listings without per-PR reviews (the trend history).
    """
    stats = client.stats
    stats.started_at = client.now()
    status = "failed"
    try:
        run_date = fetch_repo(store, client, repo)
        repo_id = store.repo_id(repo)
        if graphql and client.token is None:
            graphql = False
            stats.notes.append("GraphQL needs a token: reviews read over REST instead")
        run = _Run(store, client, repo, repo_id, run_date - MARGIN, progress, graphql, reviews)
        for resource in listings:
            start = listing_since(store, run.repo_id, resource, since, run_date)
            _sync_listing(run, resource, start)
        status = "ok"
        return stats
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    finally:
        stats.finished_at = client.now()
        _record(store, repo, stats, status)


def _record(store: Store, repo: str, stats: SyncStats, status: str) -> None:
    try:
        repo_id = store.repo_id(repo, create=False)
        if repo_id > 0:
            store.record_sync_run(repo_id, stats, status)
    except StoreError:
        pass  # the original error matters more than the bookkeeping


def listing_since(
    store: Store, repo_id: int, resource: str, since: datetime | None, run_date: datetime
) -> datetime:
    """``min(since, watermark)``; the watermark alone, or two days on a first sync."""
    mark = store.watermark(repo_id, resource)
    candidates = [value for value in (since, mark) if value is not None]
    return min(candidates) if candidates else run_date - FIRST_SYNC


def covered_from(store: Store, repo: str) -> datetime | None:
    """Since when the store holds every change of every listing (``None``: unknown)."""
    repo_id = store.repo_id(repo, create=False)
    if repo_id < 0:
        return None
    starts = [store.watermark(repo_id, f"{name}:from") for name in LISTINGS]
    return None if None in starts else max(starts)


def fetch_repo(store: Store, client: GitHubClient, repo: str) -> datetime:
    """Validate the repository (conditional GET); returns the server's ``Date``."""
    path = f"repos/{repo}"
    key = client.url(path)
    etag, last_modified = store.http_validators(key, client.token_fp)
    try:
        response = client.get(path, etag=etag, last_modified=last_modified)
    except NotFound as exc:
        raise NotFound(
            f"repository {repo} not found (or not visible to this token): check the name and "
            "GITHUB_TOKEN"
        ) from exc
    if not response.not_modified and (response.etag or response.last_modified):
        with store.transaction() as conn:
            store.save_http_validators(
                conn, key, client.token_fp, response.etag, response.last_modified
            )
    return response.date or client.now()


def _sync_listing(run: _Run, resource: str, since: datetime) -> None:
    path, extra, normalize = LISTINGS[resource]
    params = extra | {
        "since": iso_z(since),
        "sort": "updated",
        "direction": "desc",
        "per_page": PER_PAGE,
    }
    seen = 0
    for page in run.client.paginate(f"repos/{run.repo}/{path}", params):
        elements, reached_end = _until(page, since)
        records = [normalize(obj) for obj in elements]
        with_reviews = resource == "issues" and run.reviews
        reviews, validators = _reviews_for(run, records) if with_reviews else ([], [])
        last = reached_end or page.next_url is None
        with run.store.transaction() as conn:
            if resource == "issues":
                run.stats.items += run.store.upsert_items(conn, run.repo_id, records)
                run.stats.reviews += run.store.upsert_comments(conn, run.repo_id, reviews)
            else:
                run.stats.comments += run.store.upsert_comments(conn, run.repo_id, records)
            for key, etag, last_modified in validators:
                run.store.save_http_validators(conn, key, run.client.token_fp, etag, last_modified)
            if last:
                _complete(run, conn, resource, since)
        seen += len(records)
        if run.progress:
            run.progress(resource, seen)
        if last:
            return


def _until(page: ApiResponse, since: datetime) -> tuple[list[dict[str, Any]], bool]:
    """The page's elements updated at or after ``since``; True once an older one shows up."""
    data = page.data if isinstance(page.data, list) else []
    kept = [obj for obj in data if _updated(obj) >= since]
    return kept, len(kept) < len(data)


def _updated(obj: dict[str, Any]) -> datetime:
    return normalize_time(obj.get("updated_at") or obj.get("created_at"))


def _complete(run: _Run, conn: Any, resource: str, since: datetime) -> None:
    """The listing is complete: advance its watermark and widen its covered range."""
    start = run.store.watermark(run.repo_id, f"{resource}:from")
    run.store.set_watermark(conn, run.repo_id, resource, run.mark)
    covered = since if start is None else min(start, since)
    run.store.set_watermark(conn, run.repo_id, f"{resource}:from", covered)
    if resource == "issues" and run.reviews:
        floor = run.store.watermark(run.repo_id, REVIEWS_FROM)
        run.store.set_watermark(conn, run.repo_id, REVIEWS_FROM, min(floor or since, since))


# --- reviews -------------------------------------------------------------------------------


def _reviews_for(
    run: _Run, records: list[ItemRecord]
) -> tuple[list[CommentRecord], list[Validator]]:
    """Reviews of the page's PRs whose ``updated_at`` is newer than the stored one."""
    prs = [rec for rec in records if rec.is_pr]
    stored = run.store.item_updated_times(run.repo_id, [rec.number for rec in prs])
    floor = run.store.watermark(run.repo_id, REVIEWS_FROM)  # older PRs came from listings only
    changed = sorted(
        {
            rec.number
            for rec in prs
            if rec.number not in stored
            or rec.updated_at > stored[rec.number]
            or (floor is not None and rec.updated_at < floor)
        }
    )
    reviews: list[CommentRecord] = []
    validators: list[Validator] = []
    if run.graphql and changed:
        reviews, changed = _graphql_reviews(run, changed)
    for number in changed:
        found, validator = fetch_reviews(run.store, run.client, run.repo, number)
        reviews.extend(found)
        if validator:
            validators.append(validator)
    return reviews, validators


def _graphql_reviews(run: _Run, numbers: list[int]) -> tuple[list[CommentRecord], list[int]]:
    """Reviews of ``numbers`` over GraphQL, and the PRs left to REST.

    Left to REST: PRs with more reviews than one query returns, and, once GraphQL fails (an
    old GitHub Enterprise without it, a persistent error), every PR for the rest of the run.
    Auth errors are not masked: they stop the run as over REST.
    """
    found: list[CommentRecord] = []
    rest: list[int] = []
    for k in range(0, len(numbers), BATCH):
        batch = numbers[k : k + BATCH]
        try:
            answers = fetch_reviews_batch(run.client, run.repo, batch)
        except AuthError:
            raise
        except GitHubError as exc:
            run.graphql = False
            run.stats.notes.append(f"GraphQL failed, reviews read over REST instead: {exc}")
            return found, rest + numbers[k:]
        for number in batch:
            reviews = answers[number]
            if reviews is None:
                rest.append(number)
            else:
                found.extend(reviews)
    return found, rest


def fetch_reviews(
    store: Store, client: GitHubClient, repo: str, number: int
) -> tuple[list[CommentRecord], Validator | None]:
    """Submitted reviews of PR ``number`` (none if unchanged: 304) and the validators to save.

    Validators are kept only for a single-page answer: new reviews land on the last page, which
    the first page's ETag would not cover.
    """
    path = f"repos/{repo}/pulls/{number}/reviews?per_page={PER_PAGE}"
    key = client.url(path)
    etag, last_modified = store.http_validators(key, client.token_fp)
    try:
        response = client.get(path, etag=etag, last_modified=last_modified)
    except NotFound:
        return [], None
    if response.not_modified:
        return [], None
    validator = None
    if not response.next_url and (response.etag or response.last_modified):
        validator = (key, response.etag, response.last_modified)
    pages = [response]
    while pages[-1].next_url:
        pages.append(client.get(pages[-1].next_url))
    found = [
        normalize_review(obj, number)
        for page in pages
        for obj in (page.data if isinstance(page.data, list) else [])
        if obj.get("submitted_at")
    ]
    return found, validator


def ensure_history(
    config: Config,
    store: Store,
    repo: str,
    since: datetime,
    *,
    wait: bool = True,
    progress: Progress | None = None,
) -> SyncStats | None:
    """The issues listing (issues and PRs, no reviews, no comments) back to ``since``, for the
    trends' baseline; nothing when the store already reaches back that far."""
    repo_id = store.repo_id(repo, create=False)
    start = store.watermark(repo_id, "issues:from") if repo_id > 0 else None
    if start is not None and start <= since:
        return None
    with make_client(config, wait=wait) as client:
        return sync_repo(
            store, client, repo, since, progress=progress, listings=("issues",), reviews=False
        )


def ensure_synced(
    config: Config,
    store: Store,
    repo: str,
    window_start: datetime,
    *,
    no_sync: bool = False,
    wait: bool = True,
    progress: Progress | None = None,
) -> SyncStats | None:
    """Sync what a window starting at ``window_start`` needs (``None`` with ``no_sync``).

    Incremental from the watermark when the store already covers ``window_start``; otherwise
    from ``min(window_start, watermark)``.
    """
    if no_sync:
        return None
    start = covered_from(store, repo)
    since = None if start is not None and window_start >= start else window_start
    with make_client(config, wait=wait) as client:
        return sync_repo(
            store, client, repo, since, progress=progress, graphql=config.github_graphql
        )
