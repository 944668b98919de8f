"""A corpus of issue and PR bodies (one TOML file per case) with the facts each should yield.

Each case gives ``title``, ``body``, optional ``is_pr``, ``labels`` and ``comments``, and an
``[expect]`` table. Figures are matched on (metric, value, baseline) with ``~``/``+`` and spaces
ignored, so the score does not depend on how a phrase was cut.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from devdigest.analysis.facts import Figure
from devdigest.models import CommentRecord, ItemRecord
from tests.helpers import at, make_comment, make_item

CORPUS = Path(__file__).parent


@dataclass
class Case:
    name: str
    item: ItemRecord
    comments: list[CommentRecord]
    expect: dict[str, Any]


def load_cases() -> list[Case]:
    cases = []
    for number, path in enumerate(sorted(CORPUS.glob("*.toml")), start=100):
        data = tomllib.loads(path.read_text("utf-8"))
        item = make_item(
            data.get("number", number),
            title=data["title"],
            body=data.get("body", ""),
            is_pr=data.get("is_pr", False),
            labels=data.get("labels", []),
        )
        comments = [
            make_comment(item.number, c.get("author", "reviewer"), at(2 + k), **_comment(c, k + 1))
            for k, c in enumerate(data.get("comments", []))
        ]
        cases.append(Case(path.stem, item, comments, data.get("expect", {})))
    return cases


def _comment(data: dict[str, Any], comment_id: int) -> dict[str, Any]:
    extra = {"id": comment_id, "body": data.get("body", "")}
    if "path" in data:
        extra |= {"kind": "review_comment", "path": data["path"]}
    return extra


def _norm(text: str | None) -> str:
    return "".join((text or "").split()).lstrip("~+").replace("×", "x").casefold()


def figure_key(metric: str, value: str, baseline: str | None = None) -> tuple[str, str, str]:
    return (metric, _norm(value), _norm(baseline))


def found_keys(figures: tuple[Figure, ...]) -> set[tuple[str, str, str]]:
    return {figure_key(f.metric, f.value, f.baseline) for f in figures}


def expected_keys(expect: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {
        figure_key(f["metric"], f["value"], f.get("baseline")) for f in expect.get("figures", [])
    }


def precision_recall(pairs: list[tuple[set, set]]) -> tuple[float, float, int, int, int]:
    """(precision, recall, true positives, found, expected) over (found, expected) pairs."""
    hits = sum(len(found & wanted) for found, wanted in pairs)
    found = sum(len(f) for f, _ in pairs)
    wanted = sum(len(w) for _, w in pairs)
    return (hits / found if found else 1.0, hits / wanted if wanted else 1.0, hits, found, wanted)
