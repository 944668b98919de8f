"""Reviews of pull requests, read after the items that listed them (DESIGN §2).

A page of items commits first, together with the numbers of its PRs whose ``updated_at`` is
newer than the stored one (the ``pending_reviews`` queue). The queue is then worked off: each
PR's reviews commit with its removal from the queue, so a review request that fails for good
costs neither the page nor the reviews already read, and the next run starts with what is left.
Upserts keyed by review id make a repeated read harmless.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from devdigest.errors import AuthError, GitHubError, NotFound
from devdigest.github.client import GitHubClient, shown
from devdigest.github.graphql import BATCH, fetch_reviews_batch
from devdigest.github.normalize import normalize_page, normalize_review
from devdigest.models import CommentRecord, ItemRecord
from devdigest.store import Store

REVIEWS_FROM = "reviews:floor"  # the oldest ``since`` whose PRs had their reviews read

if TYPE_CHECKING:
    from devdigest.github.sync import Run

PER_PAGE = 100
Validator = tuple[str, str | None, str | None]  # (URL, ETag, Last-Modified) to save


def changed_prs(run: Run, records: list[ItemRecord]) -> list[int]:
    """The page's PRs whose ``updated_at`` is newer than the stored one (or not stored yet), and
    those older than the range whose reviews were read (stored by a listings-only history run)."""
    prs = [rec for rec in records if rec.is_pr]
    stored = run.store.item_updated_times(run.repo_id, [rec.number for rec in prs])
    floor = run.store.watermark(run.repo_id, REVIEWS_FROM)  # older PRs came from listings only
    return sorted(
        {
            rec.number
            for rec in prs
            if rec.number not in stored
            or rec.updated_at > stored[rec.number]
            or (floor is not None and rec.updated_at < floor)
        }
    )


def read_pending_reviews(run: Run) -> None:
    """Read and store the reviews of every queued PR, each removed from the queue with them."""
    numbers = run.store.pending_reviews(run.repo_id)
    if run.graphql and numbers:
        numbers = _graphql_reviews(run, numbers)
    for number in numbers:
        found, validator = fetch_reviews(run.store, run.client, run.repo, number)
        _store_reviews(run, [number], found, [validator] if validator else [])


def _store_reviews(
    run: Run, numbers: list[int], reviews: list[CommentRecord], validators: list[Validator]
) -> None:
    def work(conn) -> int:
        count = run.store.upsert_comments(conn, run.repo_id, reviews)
        for key, etag, last_modified in validators:
            run.store.save_http_validators(conn, key, run.client.token_fp, etag, last_modified)
        run.store.reviews_done(conn, run.repo_id, numbers)
        return count

    run.stats.reviews += run.store.write(work)


def _graphql_reviews(run: Run, numbers: list[int]) -> list[int]:
    """Reviews of ``numbers`` over GraphQL, stored batch by batch; returns the PRs left to REST.

    Left to REST: PRs with more reviews than one query returns, and, once GraphQL fails (an
    old GitHub Enterprise without it, a persistent error), every PR for the rest of the run.
    Auth errors are not masked: they stop the run as over REST.
    """
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
            return rest + numbers[k:]
        done = [n for n in batch if answers[n] is not None]
        rest += [n for n in batch if answers[n] is None]
        _store_reviews(run, done, [r for n in done for r in answers[n] or []], [])
    return rest


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
        client.check_page_cap(path, len(pages))
        pages.append(client.get(pages[-1].next_url))
    found = [
        review
        for page in pages
        for review in normalize_page(page.data, _submitted, shown(page.url))
        if review is not None
    ]
    for review in found:
        review.number = number
    return found, validator


def _submitted(obj: dict) -> CommentRecord | None:
    """A submitted review (pending ones, without ``submitted_at``, are skipped)."""
    return normalize_review(obj, 0) if obj.get("submitted_at") else None
