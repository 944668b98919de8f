"""Categories and focus areas: title tags, explainable reasons, whole-word keywords."""

from __future__ import annotations

import pytest

from devdigest.analysis.classify import (
    compute_categories,
    compute_focus,
    keyword_pattern,
    match_rule,
    title_tags,
)
from devdigest.config import Rule
from tests.helpers import make_item, make_pr

AMD = Rule(
    name="AMD",
    labels=["rocm"],
    title_tags=["ROCm", "AMD"],
    keywords=["HIP", "MI300X", "disaggregat*"],
    authors=["amd-listed"],
)


@pytest.mark.parametrize(
    ("title", "tags"),
    [
        ("[Hardware][AMD] Fix x", ["Hardware", "AMD"]),
        ("[Bug]: crash on start", ["Bug"]),
        ("[ROCm] [Perf]  Tune MoE", ["ROCm", "Perf"]),
        ("[CI/Build] Bump torch", ["CI/Build"]),
        ("[Spec  Decode] EAGLE", ["Spec Decode"]),
        ("Fix [ROCm] later in the title", []),
        ("No tags at all", []),
        ("[]", []),
    ],
)
def test_title_tags(title: str, tags: list[str]) -> None:
    assert title_tags(title) == tags


def test_reasons_name_label_tag_keyword_and_author() -> None:
    item = make_pr(
        1,
        title="[Hardware][AMD] Tune kernels",
        labels=["rocm", "performance"],
        body="Measured on MI300X.",
        author="amd-listed",
    )
    assert match_rule(item, AMD) == [
        "label rocm",
        "title tag [AMD]",
        "keyword MI300X",
        "author amd-listed",
    ]


def test_keywords_are_whole_words_case_insensitive() -> None:
    assert match_rule(make_item(1, title="HIPPO scheduler"), AMD) == []
    assert match_rule(make_item(2, title="Fix hip graph capture"), AMD) == ["keyword HIP"]
    assert match_rule(make_item(3, title="x", body="on mi300x nodes"), AMD) == ["keyword MI300X"]
    assert match_rule(make_item(4, title="MI300XL"), AMD) == []
    assert keyword_pattern("disaggregat*").search("P/D disaggregated prefill")
    assert not keyword_pattern("tool call").search("tool caller")
    assert keyword_pattern("tool call").search("parallel tool calls")


def test_keywords_ignore_code_blocks_and_details() -> None:
    body = (
        "### Your current environment\n<details>\nHIP runtime version: N/A\n</details>\n"
        "```text\nROCM used to build PyTorch: N/A MI300X\n```\nThe server crashes."
    )
    assert match_rule(make_item(1, title="[Bug]: crash", body=body), AMD) == []


def test_keywords_only_in_body_head() -> None:
    late = make_item(1, body="x " * 1500 + "MI300X")
    assert match_rule(late, AMD) == []


def test_author_lists_are_explicit_only() -> None:
    assert match_rule(make_item(1, author="amd-someone"), AMD) == []
    assert match_rule(make_item(2, author="AMD-Listed"), AMD) == ["author AMD-Listed"]


def test_categories_cover_every_item() -> None:
    rules = [AMD, Rule(name="Docs", title_tags=["Doc"])]
    items = [make_item(1, title="[Doc] x"), make_item(2, title="[ROCm][Doc] y"), make_item(3)]
    assert compute_categories(items, rules) == {1: ["Docs"], 2: ["AMD", "Docs"], 3: []}


def test_focus_splits_and_orders_by_reasons_then_activity() -> None:
    items = [
        make_item(10, title="[ROCm] one reason, busy"),
        make_item(11, title="[ROCm] MI300X two reasons"),
        make_item(12, title="[ROCm] one reason, quiet"),
        make_pr(13, title="[AMD] a PR", labels=["rocm"]),
        make_item(14, title="unrelated"),
    ]
    [result] = compute_focus(items, [AMD], activity={10: 5, 12: 1})
    assert [m.item.number for m in result.issues] == [11, 10, 12]
    assert [m.item.number for m in result.prs] == [13]
    assert all(m.reasons for m in result.issues + result.prs)
    assert result.prs[0].reasons == ["label rocm", "title tag [AMD]"]
