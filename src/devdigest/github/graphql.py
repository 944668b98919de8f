"""Optional GraphQL batching of pull request reviews (DESIGN §2), with REST as the fallback.

One query reads the reviews of up to ``BATCH`` pull requests through aliases (``p123:
pullRequest(number: 123)``). Each review node is mapped to the JSON shape of ``GET
/repos/{o}/{r}/pulls/{n}/reviews`` and goes through the same ``normalize_review`` as REST, so both
paths store identical rows. A pull request with more than ``REVIEWS_FIRST`` reviews is left to
REST, which pages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from devdigest.errors import GitHubError
from devdigest.github.normalize import normalize_page, normalize_review
from devdigest.github.safety import clean_text, shown
from devdigest.models import CommentRecord

if TYPE_CHECKING:
    from devdigest.github.client import GitHubClient

BATCH = 50  # pull requests per query
REVIEWS_FIRST = 100  # reviews per pull request in one query (GitHub's maximum page size)

REVIEW_FIELDS = "databaseId author{login __typename} authorAssociation body state submittedAt url"


class GraphQLError(GitHubError):
    """A GraphQL answer with ``errors``; ``data`` holds whatever part of the query resolved."""

    def __init__(self, message: str, errors: list[dict[str, Any]], data: Any) -> None:
        super().__init__(message)
        self.errors = errors
        self.data = data

    @property
    def types(self) -> set[str]:
        return {str(err.get("type") or "") for err in self.errors}


def graphql_url(base_url: str) -> str:
    """The GraphQL endpoint of a REST base: ``{base}/graphql``, or ``https://HOST/api/graphql``
    for a GitHub Enterprise base ending in ``/api/v3``."""
    base = base_url.rstrip("/")
    if base.endswith("/api/v3"):
        return base.removesuffix("/v3") + "/graphql"
    return base + "/graphql"


def graphql_error(payload: Any, url: str) -> GraphQLError | None:
    """The failure a GraphQL answer (HTTP 200) reports in ``errors``, if any."""
    errors = payload.get("errors") if isinstance(payload, dict) else None
    if not errors:
        if isinstance(payload, dict) and isinstance(payload.get("data"), dict):
            return None
        return GraphQLError(f"GraphQL answer without data from {shown(url)}", [], None)
    errors = [err if isinstance(err, dict) else {"message": str(err)} for err in errors]
    message = "; ".join(str(err.get("message") or err.get("type")) for err in errors[:3])
    return GraphQLError(
        f"GitHub GraphQL query failed ({clean_text(message)}) at {shown(url)}",
        errors,
        payload.get("data"),
    )


def reviews_query(numbers: list[int]) -> str:
    """The aliased query for the reviews of ``numbers`` (one ``pN`` alias per pull request)."""
    fields = (
        f"reviews(first:{REVIEWS_FIRST}){{ pageInfo{{hasNextPage endCursor}} "
        f"nodes{{ {REVIEW_FIELDS} }} }}"
    )
    prs = " ".join(f"p{n}: pullRequest(number:{n}){{ number {fields} }}" for n in numbers)
    return (
        "query($owner:String!,$name:String!){ repository(owner:$owner,name:$name){ "
        f"{prs} }} rateLimit{{cost remaining resetAt}} }}"
    )


def rest_review(node: dict[str, Any]) -> dict[str, Any]:
    """A GraphQL review node in the REST review shape.

    GraphQL gives a GitHub App's login without the ``[bot]`` suffix REST shows; it is added
    back so both paths name the same account.
    """
    author = node.get("author")
    user = None
    if author:
        is_bot = author.get("__typename") == "Bot"
        login = author.get("login") or ""
        if is_bot and login and not login.endswith("[bot]"):
            login += "[bot]"
        user = {"login": login, "type": "Bot" if is_bot else "User"}
    return {
        "id": node["databaseId"],
        "user": user,
        "author_association": node.get("authorAssociation"),
        "body": node.get("body"),
        "state": node.get("state"),
        "submitted_at": node.get("submittedAt"),
        "html_url": node.get("url"),
    }


def fetch_reviews_batch(
    client: GitHubClient, repo: str, numbers: list[int]
) -> dict[int, list[CommentRecord] | None]:
    """Submitted reviews of up to ``BATCH`` pull requests in one query.

    ``None`` for a pull request with more reviews than one query returns (read it over REST);
    a number GitHub cannot resolve (``NOT_FOUND``) has no reviews, as a REST 404 has none.
    """
    if len(numbers) > BATCH:
        raise ValueError(f"at most {BATCH} pull requests per query, got {len(numbers)}")
    owner, name = repo.split("/", 1)
    try:
        data = client.graphql(reviews_query(numbers), {"owner": owner, "name": name})
    except GraphQLError as exc:
        if exc.types != {"NOT_FOUND"} or not isinstance(exc.data, dict):
            raise
        data = exc.data
    repository = data.get("repository")
    if not isinstance(repository, dict):  # REST may still see it: let the caller fall back
        raise GraphQLError(f"GraphQL cannot resolve the repository {repo}", [], data)
    return {number: _reviews_of(repository.get(f"p{number}"), number) for number in numbers}


def _reviews_of(pull: dict[str, Any] | None, number: int) -> list[CommentRecord] | None:
    if not pull:
        return []
    reviews = pull.get("reviews") or {}
    if (reviews.get("pageInfo") or {}).get("hasNextPage"):
        return None
    nodes = [node for node in reviews.get("nodes") or [] if node and node.get("submittedAt")]
    # pending reviews have no submittedAt, as over REST; a malformed node is one clear error
    return normalize_page(
        nodes, lambda node: normalize_review(rest_review(node), number), "the GraphQL API"
    )
