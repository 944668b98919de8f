"""normalize_*: real-shaped GitHub JSON → store records."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from devdigest.github.normalize import (
    GHOST,
    normalize_issue_comment,
    normalize_item,
    normalize_review,
    normalize_review_comment,
)

FIXTURES = Path(__file__).parent / "fixtures" / "github"


def load(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


def test_issue():
    rec = normalize_item(load("issue.json"))
    assert (rec.number, rec.is_pr, rec.author, rec.state) == (
        36921,
        False,
        "natech-persona",
        "open",
    )
    assert rec.labels == ["bug", "v1"]
    assert rec.created_at == datetime(2026, 3, 12, 5, 10, 44, tzinfo=UTC)
    assert rec.merged_at is None and rec.closed_at is None
    assert (rec.comments, rec.reactions) == (4, 3)


def test_pull_request_with_deleted_author_and_null_body():
    rec = normalize_item(load("pull_as_issue.json"))
    assert rec.is_pr and rec.author == GHOST and rec.body == ""
    assert rec.merged_at == datetime(2026, 3, 12, 9, 29, 58, tzinfo=UTC)
    assert rec.labels == ["ready", "rocm"]
    assert not rec.is_bot


def test_issue_comment_number_from_issue_url():
    rec = normalize_issue_comment(load("issue_comment.json"))
    assert (rec.kind, rec.number, rec.author, rec.reactions) == (
        "issue_comment",
        36921,
        "ZJY0516",
        1,
    )
    assert rec.updated_at > rec.created_at


def test_review_comment_is_bot_and_keeps_path():
    rec = normalize_review_comment(load("review_comment.json"))
    assert (rec.kind, rec.number) == ("review_comment", 36851)
    assert rec.path == "vllm/compilation/sequence_parallelism.py"
    assert rec.is_bot


def test_review_times_from_submitted_at():
    rec = normalize_review(load("review.json"), 36851)
    assert (rec.kind, rec.number, rec.review_state) == ("review", 36851, "CHANGES_REQUESTED")
    assert rec.created_at == rec.updated_at == datetime(2026, 3, 12, 6, 40, tzinfo=UTC)
