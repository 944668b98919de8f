"""Issues worth watching: severity words as written, engagement and breadth raise the rank."""

from __future__ import annotations

import pytest

from devdigest.analysis.watch import breadth_signals, compute_watch, severity_signals
from tests.helpers import at, bot_comment, day_window, make_comment, make_item, make_pr

W = day_window()


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Server crashes after 10 minutes", ["crashes"]),
        ("Segmentation fault (core dumped)", ["core dumped", "Segmentation fault"]),
        ("CUDA error: an illegal memory access was encountered", ["illegal memory access"]),
        ("Engine hangs with a deadlock in NCCL", ["hangs"]),
        ("NCCL deadlock on shutdown", ["deadlock"]),
        ("torch.OutOfMemoryError: CUDA out of memory", ["OutOfMemoryError"]),
        ("CUDA out of memory when loading", ["out of memory"]),
        ("Model produces garbled output with FP8", ["garbled output"]),
        ("GSM8K accuracy drop after upgrade", ["accuracy drop"]),
        ("Throughput regression in v0.11", ["regression"]),
        ("Pickle loading allows remote code execution (CVE-2025-12345)", ["remote code execution"]),
        ("logits contain NaN values", ["NaN"]),
        ("Add a nice feature to the hangar module", []),
        ("Documentation typo", []),
    ],
)
def test_severity_words_as_written(text: str, words: list[str]) -> None:
    assert sorted(w for w, _ in severity_signals(text)) == sorted(words)


def test_breadth_names_models_and_hardware() -> None:
    text = "Qwen3-Next-80B and deepseek-v3 on 8x MI300X, not on H100s or XH100"
    assert breadth_signals(text) == ["Qwen", "DeepSeek", "MI300X"]


def test_candidates_are_open_bug_like_issues_new_or_discussed() -> None:
    items = [
        make_item(1, title="[Bug]: server crashes", labels=["bug"]),
        make_item(2, title="[Feature]: support X"),  # not bug-like
        make_item(3, title="Server hangs on start"),  # severity word, no label
        make_item(4, title="[Bug]: old and quiet", created_at=at(-100)),
        make_item(5, title="[Bug]: old, discussed today", created_at=at(-100)),
        make_item(6, title="[Bug]: closed", state="closed", closed_at=at(3)),
        make_pr(7, title="[Bugfix] crash fix"),
        make_item(8, title="[Bug]: old, only bots today", created_at=at(-100)),
    ]
    comments = [make_comment(5, "bob", at(2)), bot_comment(8, at(2))]
    found = compute_watch(items, comments, W)
    assert {c.item.number for c in found} == {1, 3, 5}


def test_engagement_and_severity_order_the_list() -> None:
    quiet = make_item(1, title="[Bug]: odd warning in logs")
    severe = make_item(2, title="[Bug]: illegal memory access on H100")
    busy = make_item(3, title="[Bug]: odd metrics")
    comments = [make_comment(3, who, at(2 + k)) for k, who in enumerate(["a", "b", "c", "d"])]
    comments.append(make_comment(3, "a", at(9), reactions=9))
    found = compute_watch([quiet, severe, busy], comments, W)
    assert [c.item.number for c in found] == [3, 2, 1]
    by = {c.item.number: c for c in found}
    assert by[2].signals == ["illegal memory access", "H100"]
    assert by[2].severity == ["illegal memory access"] and by[2].breadth == ["H100"]
    # the author opened it in the window with an empty body: not a participant
    assert (by[3].window_comments, by[3].participants, by[3].reactions) == (5, 4, 9)
    assert by[1].signals == []
