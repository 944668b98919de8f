"""Storylines: items grouped by the facts they share, the reason listed, roles assigned."""

from __future__ import annotations

from devdigest.analysis.facts import compute_facts
from devdigest.analysis.storylines import compute_storylines
from tests.helpers import at, day_window, make_item, make_pr

W = day_window()


def window_items():
    return [
        make_item(1, title="[Bug]: Qwen3-8B crashes with speculative decoding", labels=["bug"]),
        make_item(2, title="[Bug]: Qwen3-30B-A3B segfault on startup", labels=["bug"]),
        make_item(3, title="[Bug]: Qwen2.5-VL crashes on long images", labels=["bug"]),
        make_pr(4, title="[Bugfix] Guard the draft length", body="Fixes #1", merged_at=at(5)),
        make_item(5, title="[Bug]: Llama 4 hangs on H100", labels=["bug"]),
        make_item(6, title="[Feature]: faster tokenizer"),
        make_item(7, title="[ROCm] AITER MLA for MI300X", created_at=at(2)),
        make_pr(8, title="[ROCm] Enable FP8 on MI300X", merged_at=at(6)),
        make_pr(9, title="[ROCm] Tune configs for MI300X"),
    ]


def test_shared_model_family_and_symptom_group_bugs_and_their_fix() -> None:
    items = window_items()
    lines = compute_storylines(items, compute_facts(items, {}), W)
    first = lines[0]
    assert first.shared == (("family", "Qwen"), ("symptom", "crash"))
    assert first.role("new_bugs") == (1, 2, 3)
    assert first.role("fixes_merged") == (4,)  # it says "Fixes #1"
    rocm = next(line for line in lines if ("hardware", "MI300X") in line.shared)
    assert ("component", "rocm") in rocm.shared
    assert rocm.numbers == [7, 8, 9]
    assert rocm.role("merged_prs") == (8,) and rocm.role("open_prs") == (9,)
    assert all(5 not in line.numbers and 6 not in line.numbers for line in lines)


def test_storylines_are_deterministic_whatever_the_input_order() -> None:
    items = window_items()
    facts = compute_facts(items, {})
    assert compute_storylines(items, facts, W) == compute_storylines(items[::-1], facts, W)


def test_a_single_fact_needs_three_items() -> None:
    items = [make_item(1, title="[Bug]: Gemma 3 OOM"), make_item(2, title="[Bug]: Gemma 3 slow")]
    assert compute_storylines(items, compute_facts(items, {}), W) == []
