"""Incremental sync of one repository into the store (DESIGN §2).

A run starts with ``GET /repos/{o}/{r}`` (validates the repository, gives the server's ``Date``,
the one clock of a run), then reads three repository-wide listings, oldest-updated first, from
``since`` on: ``/issues?state=all`` (issues and PRs; ``pull_request.merged_at`` gives merges),
``/issues/comments`` and ``/pulls/comments``; and the state history, ``/issues/events`` (newest
first, down to ``since``; only closed, reopened and merged events are kept).

The three listings are read by keyset: each request asks ``since=CURSOR&sort=updated&
direction=asc`` from the newest ``updated_at`` seen so far (following ``rel="next"`` only while
a page's items all share that second). An item that leaves a listing (deleted, transferred) while
it is read cannot shift a later page over an unread item, as page numbers would; an item updated
during the read moves to the end and is read there.

Each page commits on its own (rows of a page in one transaction, retried when the database is
locked); PR reviews are read after their page (``devdigest.github.reviews``). A listing's
watermark advances to ``Date - MARGIN`` only once the listing completes, so a run that stops
half-way keeps every page it read and the rerun reads again from the old watermark: the upserts
(keyed by id, newer-or-equal ``updated_at`` only) make the overlap harmless.

Besides ``RESOURCE`` (the watermark), each listing keeps ``RESOURCE:from``, the oldest ``since`` a
completed run used: runs always chain from the previous watermark, so the store holds every change
in ``[from, watermark]`` and a window starting inside it needs only an incremental run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from devdigest.config import Config
from devdigest.errors import NotFound, StoreError, Unprocessable
from devdigest.github.client import ApiResponse, GitHubClient, shown, utc_now
from devdigest.github.normalize import (
    normalize_event,
    normalize_issue_comment,
    normalize_item,
    normalize_page,
    normalize_review_comment,
    normalize_time,
)
from devdigest.github.reviews import REVIEWS_FROM, changed_prs, read_pending_reviews
from devdigest.models import ItemEvent, SyncStats
from devdigest.store import Store
from devdigest.window import iso_z

MARGIN = timedelta(minutes=5)
FIRST_SYNC = timedelta(days=2)
PER_PAGE = 100
EVENTS = "issue_events"  # the state history listing

Progress = Callable[[str, int], None]  # (resource, rows read so far in this run)

LISTINGS: dict[str, tuple[str, dict[str, str], Callable[[dict[str, Any]], Any]]] = {
    "issues": ("issues", {"state": "all"}, normalize_item),
    "issue_comments": ("issues/comments", {}, normalize_issue_comment),
    "review_comments": ("pulls/comments", {}, normalize_review_comment),
}
RESOURCES = (*LISTINGS, EVENTS)

# Keyword arguments given to every GitHubClient that make_client builds (tests inject a
# simulated clock and sleeper here).
CLIENT_OVERRIDES: dict[str, Any] = {}


def current_time() -> datetime:
    """Now, on the clock the clients use (the local clock; see ``server_time``)."""
    return CLIENT_OVERRIDES.get("clock", utc_now)()


def reference_time(config: Config, *, offline: bool = False) -> datetime:
    """ "Now" for windows that end now or default to the latest day: the API server's clock, the
    one sync reads (``Date``), so a machine with a wrong clock still asks for the right days;
    the local clock offline (``--no-sync``) or when the server gives no date."""
    if offline:
        return current_time()
    with make_client(config) as client:
        return client.server_date()


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
        "max_pages": config.github_max_pages,
        "max_bytes": config.github_max_response_mb * 2**20,
        "deadline": config.github_request_deadline,
    }
    return GitHubClient(config.github_api_url, token, **(options | CLIENT_OVERRIDES))


@dataclass
class Run:
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
    lookback: timedelta | None = None,
    progress: Progress | None = None,
    graphql: bool = False,
    listings: tuple[str, ...] = RESOURCES,
    reviews: bool = True,
) -> SyncStats:
    """Fetch everything created, updated, closed or merged since ``min(since, watermark)``.

    ``lookback`` (``--days``) sets ``since`` to the server's ``Date`` minus it. Without either
    and without a watermark (first sync), the last two days. ``since`` is never later than the
    server's ``Date - MARGIN``: a wrong local clock can neither skip the fetch nor make the store
    claim a history it never read. Every run is recorded in ``sync_runs`` with status ok, failed
    or interrupted. ``graphql``: batch the reviews in GraphQL queries (REST stays the fallback).
    ``listings`` and ``reviews=False`` narrow a run to some listings without per-PR reviews (the
    trend history).
    """
    stats = client.stats
    stats.started_at = client.now()
    status = "failed"
    try:
        run_date = fetch_repo(store, client, repo)
        if lookback is not None:
            since = run_date - lookback
        repo_id = store.repo_id(repo)
        if graphql and client.token is None:
            graphql = False
            stats.notes.append("GraphQL needs a token: reviews read over REST instead")
        run = Run(store, client, repo, repo_id, run_date - MARGIN, progress, graphql, reviews)
        if reviews:
            read_pending_reviews(run)  # left by an earlier run that stopped
        for resource in listings:
            start = listing_since(store, run.repo_id, resource, since, run_date)
            (_sync_events if resource == EVENTS else _sync_listing)(run, resource, start)
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
    """``min(since, watermark)``, or two days on a first sync; never after ``run_date - MARGIN``."""
    mark = store.watermark(repo_id, resource)
    candidates = [value for value in (since, mark) if value is not None]
    start = min(candidates) if candidates else run_date - FIRST_SYNC
    return min(start, run_date - MARGIN)


def covered_from(store: Store, repo: str) -> datetime | None:
    """Since when the store holds every change of every listing (``None``: unknown)."""
    repo_id = store.repo_id(repo, create=False)
    if repo_id < 0:
        return None
    starts = [store.watermark(repo_id, f"{name}:from") for name in RESOURCES]
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
            "DEVDIGEST_GITHUB_TOKEN"
        ) from exc
    if not response.not_modified and (response.etag or response.last_modified):
        store.write(
            lambda conn: store.save_http_validators(
                conn, key, client.token_fp, response.etag, response.last_modified
            )
        )
    return response.date or client.now()


def _sync_listing(run: Run, resource: str, since: datetime) -> None:
    path, extra, normalize = LISTINGS[resource]
    seen = 0
    for page in keyset_pages(run.client, f"repos/{run.repo}/{path}", extra, since):
        records = normalize_page(page.data, normalize, shown(page.url))
        _store_page(run, resource, records)
        seen += len(records)
        if run.progress:
            run.progress(resource, seen)
    run.store.write(lambda conn: _complete(run, conn, resource, since))


def _store_page(run: Run, resource: str, records: list[Any]) -> None:
    """One page in one transaction; for items, then the reviews of their changed PRs."""
    if resource != "issues":
        run.stats.comments += run.store.write(
            lambda conn: run.store.upsert_comments(conn, run.repo_id, records)
        )
        return
    changed = changed_prs(run, records) if run.reviews else []

    def work(conn: Any) -> int:
        run.store.queue_reviews(conn, run.repo_id, changed)
        return run.store.upsert_items(conn, run.repo_id, records)

    run.stats.items += run.store.write(work)
    if run.reviews:
        read_pending_reviews(run)


def keyset_pages(
    client: GitHubClient, path: str, extra: dict[str, str], since: datetime
) -> Iterator[ApiResponse]:
    """Pages of a listing, oldest-updated first, each request restarting from the newest
    ``updated_at`` read so far; within one second's worth of items, by page number."""
    cursor, number, pages = since, 1, 0
    while True:
        if pages:
            client.check_page_cap(path, pages)
        params = extra | {
            "since": iso_z(cursor),
            "sort": "updated",
            "direction": "asc",
            "per_page": PER_PAGE,
        }
        if number > 1:
            params["page"] = number
        page = client.get(path, params)
        pages += 1
        yield page
        if not page.next_url or not page.data:
            return
        newest = max(_updated(obj) for obj in page.data)
        cursor, number = (newest, 1) if newest > cursor else (cursor, number + 1)


def _updated(obj: dict[str, Any]) -> datetime:
    return normalize_time(obj.get("updated_at") or obj.get("created_at"))


def _sync_events(run: Run, resource: str, since: datetime) -> None:
    """The state history: closed, reopened and merged events, newest first, down to ``since``.

    Events never change and new ones appear at the top, so an unchanged first page (304 to its
    saved ETag, free of quota) means nothing new; the ETag is saved once the listing completes.
    """
    path = f"repos/{run.repo}/issues/events?per_page={PER_PAGE}"
    key = run.client.url(path)
    etag, last_modified = run.store.http_validators(key, run.client.token_fp)
    page = run.client.get(path, etag=etag, last_modified=last_modified)
    first, seen, pages = page, 0, 1
    while not page.not_modified:
        events, older = _events_since(page, since)
        run.stats.events += run.store.write(
            lambda conn, events=events: run.store.upsert_item_events(conn, run.repo_id, events)
        )
        seen += len(events)
        if run.progress:
            run.progress(resource, seen)
        if older or not page.next_url:
            break
        run.client.check_page_cap(path, pages)
        try:
            page, pages = run.client.get(page.next_url), pages + 1
        except Unprocessable as exc:  # GitHub does not page this listing arbitrarily deep
            since = _oldest(page)
            run.stats.notes.append(
                f"the state history reaches back to {iso_z(since)} only ({exc}); closures "
                "before it are counted by the items' current state"
            )
            break

    def complete(conn: Any) -> None:
        _complete(run, conn, resource, since)
        if first.etag or first.last_modified:
            run.store.save_http_validators(
                conn, key, run.client.token_fp, first.etag, first.last_modified
            )

    run.store.write(complete)


def _oldest(page: ApiResponse) -> datetime:
    """The creation time of the last (oldest) event of a page."""
    return normalize_time(page.data[-1]["created_at"])


def _events_since(page: ApiResponse, since: datetime) -> tuple[list[ItemEvent], bool]:
    """The page's state events at or after ``since``; True once an older event shows up."""
    source = shown(page.url)
    events = normalize_page(page.data, normalize_event, source)
    times = normalize_page(page.data, lambda obj: normalize_time(obj["created_at"]), source)
    kept = [e for e, when in zip(events, times, strict=True) if e and when >= since]
    return kept, any(when < since for when in times)


def _complete(run: Run, conn: Any, resource: str, since: datetime) -> None:
    """The listing is complete: advance its watermark and widen its covered range."""
    start = run.store.watermark(run.repo_id, f"{resource}:from")
    run.store.set_watermark(conn, run.repo_id, resource, run.mark)
    covered = since if start is None else min(start, since)
    run.store.set_watermark(conn, run.repo_id, f"{resource}:from", covered)
    if resource == "issues" and run.reviews:
        floor = run.store.watermark(run.repo_id, REVIEWS_FROM)
        run.store.set_watermark(conn, run.repo_id, REVIEWS_FROM, min(floor or since, since))


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
