"""The fake GitHub's `POST /graphql`: a narrow semantic fake, not a GraphQL engine.

It understands exactly the query shape `devdigest.github.graphql.reviews_query` sends:

    query($owner:String!,$name:String!){ repository(owner:$owner,name:$name){
      p123: pullRequest(number:123){ number reviews(first:100){ pageInfo{hasNextPage endCursor}
        nodes{ databaseId author{login __typename} authorAssociation body state submittedAt url }
      } } ... } rateLimit{cost remaining resetAt} }

A small regex reader takes the aliases, the numbers and `first` out of the text; anything else in
the query is not interpreted (every listed field is returned). A query it cannot read gets a
GraphQL error, as GitHub answers a query it cannot parse: HTTP 200 with `errors`.

Answers come from the same data as `GET /repos/{o}/{r}/pulls/{n}/reviews` (`routes.visible_pull`,
`routes.pull_reviews`, `Dataset.review_json`), as of the server clock, with GitHub's GraphQL
quirks: a GitHub App's login has no `[bot]` suffix, an unknown number resolves to `null` with a
`NOT_FOUND` error, and the rate limit is its own bucket (1 point per query here).
"""

from __future__ import annotations

import base64
import json
import re
from datetime import datetime
from typing import TYPE_CHECKING, Any

from tests.fakes.routes import Response, pull_reviews, visible_pull

if TYPE_CHECKING:
    from tests.fakes.github_server import FakeGitHub

COST = 1  # points charged per query
_REPOSITORY = re.compile(r"repository\s*\(\s*owner\s*:\s*\$owner\s*,\s*name\s*:\s*\$name\s*\)")
_ALIAS = re.compile(r"(\w+)\s*:\s*pullRequest\s*\(\s*number\s*:\s*(\d+)\s*\)")
_FIRST = re.compile(r"reviews\s*\(\s*first\s*:\s*(\d+)\s*\)")


class QueryError(Exception):
    """The query is outside the one shape this fake reads."""


def read_query(body: bytes) -> tuple[str, str, list[tuple[str, int]], int, bool]:
    """(owner, name, [(alias, number)], first, wants rateLimit) from a request body."""
    try:
        payload = json.loads(body or b"null")
    except ValueError as exc:
        raise QueryError("Problems parsing JSON") from exc
    if not isinstance(payload, dict) or not isinstance(payload.get("query"), str):
        raise QueryError("A query attribute must be specified and must be a string.")
    query, variables = payload["query"], payload.get("variables") or {}
    aliases = [(alias, int(number)) for alias, number in _ALIAS.findall(query)]
    first = _FIRST.search(query)
    if not _REPOSITORY.search(query) or not aliases or first is None:
        raise QueryError("this fake reads only the aliased pullRequest reviews query of devdigest")
    owner, name = variables.get("owner"), variables.get("name")
    if not isinstance(owner, str) or not isinstance(name, str):
        raise QueryError("Variable $owner of type String! was provided invalid value")
    return owner, name, aliases, int(first[1]), "rateLimit" in query


def answer(
    app: FakeGitHub, body: bytes, token: str | None, now: datetime, rate: dict[str, Any]
) -> Response:
    """The HTTP 200 answer to one query (``rate``: the ``rateLimit`` object after charging)."""
    try:
        owner, name, aliases, first, wants_rate = read_query(body)
    except QueryError as exc:
        return Response(200, {"errors": [{"message": str(exc)}]}, charge=False)
    repo = f"{owner}/{name}"
    ds = app.datasets.get(repo.lower())
    denied = app.no_access.get(token or "", set())
    data: dict[str, Any] = {"repository": None}
    errors: list[dict[str, Any]] = []
    if ds is None or ds.repo.lower() in denied or "*" in denied:
        errors.append(_not_found(["repository"], f"Could not resolve to a Repository {repo!r}."))
    else:
        data["repository"] = {}
        for alias, number in aliases:
            data["repository"][alias] = _pull(ds, number, first, now)
            if data["repository"][alias] is None:
                message = f"Could not resolve to a PullRequest with the number of {number}."
                errors.append(_not_found(["repository", alias], message))
    if wants_rate:
        data["rateLimit"] = rate
    return Response(200, {"data": data, **({"errors": errors} if errors else {})})


def rate_limited(token: str | None) -> Response:
    """GitHub's answer when the GraphQL bucket is empty: HTTP 200 with a RATE_LIMITED error."""
    message = f"API rate limit exceeded for user {token!r}." if token else "API rate limit exceeded"
    return Response(200, {"errors": [{"type": "RATE_LIMITED", "message": message}]}, charge=False)


def _not_found(path: list[str], message: str) -> dict[str, Any]:
    return {"type": "NOT_FOUND", "path": path, "locations": [], "message": message}


def _pull(ds: Any, number: int, first: int, now: datetime) -> dict[str, Any] | None:
    if visible_pull(ds, number, now) is None:
        return None
    reviews = pull_reviews(ds, number, now)
    page = reviews[:first]
    cursor = base64.b64encode(f"cursor:{len(page)}".encode()).decode() if page else None
    return {
        "number": number,
        "reviews": {
            "pageInfo": {"hasNextPage": len(reviews) > first, "endCursor": cursor},
            "nodes": [_node(ds.review_json(review)) for review in page],
        },
    }


def _node(rest: dict[str, Any]) -> dict[str, Any]:
    """A review in GraphQL's shape, from the REST JSON of the same review."""
    user = rest.get("user")
    author = None
    if user is not None:
        is_bot = user.get("type") == "Bot"
        login = user["login"].removesuffix("[bot]") if is_bot else user["login"]
        author = {"login": login, "__typename": "Bot" if is_bot else "User"}
    return {
        "databaseId": rest["id"],
        "author": author,
        "authorAssociation": rest["author_association"],
        "body": rest["body"],
        "state": rest["state"],
        "submittedAt": rest["submitted_at"],
        "url": rest["html_url"],
    }
