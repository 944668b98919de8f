"""Issues worth watching: symptoms by kind, absurd memory figures, engagement and breadth."""

from __future__ import annotations

import pytest

from devdigest.analysis.facts import compute_item_facts
from devdigest.analysis.watch import breadth_of, compute_watch
from tests.helpers import at, bot_comment, day_window, make_comment, make_item, make_pr

W = day_window()


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("Server crashes after 10 minutes", ["crash"]),
        ("Segmentation fault (core dumped)", ["crash"]),
        ("CUDA error: an illegal memory access was encountered", ["crash"]),
        ("Engine hangs with a deadlock in NCCL", ["hang"]),
        ("torch.OutOfMemoryError: CUDA out of memory", ["oom"]),
        ("Model produces garbled output with FP8", ["wrong_output"]),
        ("logits contain NaN values", ["wrong_output"]),
        ("GSM8K accuracy drop after upgrade", ["accuracy_drop"]),
        ("Throughput regression in v0.11", ["perf_regression"]),
        ("Pickle loading allows remote code execution (CVE-2025-12345)", ["security"]),
        ("Build fails with undefined symbol on ROCm 7", ["build_failure"]),
        ("服务启动后卡住", ["hang"]),
        ("Add a nice feature to the hangar module", []),
        ("Documentation typo", []),
        ("Qwen3 and Llama on H100", []),  # models are never symptoms
    ],
)
def test_symptom_kinds(text: str, kinds: list[str]) -> None:
    assert compute_item_facts(make_item(1, title=text)).symptom_kinds == kinds


def test_breadth_names_model_families_and_hardware() -> None:
    body = "Qwen3-Next-80B and deepseek-v3 on 8x MI300X, not on H100s or XH100"
    facts = compute_item_facts(make_item(1, title="[Bug]: x", body=body))
    assert breadth_of(facts) == ["Qwen", "DeepSeek", "MI300X"]


def test_out_of_proportion_memory_tops_the_list() -> None:
    absurd = make_item(
        1,
        title="[Bug]: Qwen3.5-0.8B fails to start",
        body="Serving Qwen/Qwen3.5-0.8B, the engine is trying to allocate ~192 GB of GPU memory.",
        labels=["bug"],
    )
    crash = make_item(2, title="[Bug]: server crashes with DeepSeek-V3 on H100", labels=["bug"])
    busy = make_item(3, title="[Bug]: hangs on startup", labels=["bug"])
    comments = [make_comment(3, who, at(2)) for who in ("a", "b")]
    found = compute_watch([crash, absurd, busy], comments, W)
    assert found[0].item.number == 1 and found[0].out_of_proportion
    resource = found[0].facts.out_of_proportion[0]
    assert (resource.amount_gb, resource.params_b, resource.model) == (192.0, 0.8, "Qwen3.5-0.8B")
    assert resource.ratio == round(192 / (2 * 0.8), 1)


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
    assert by[2].facts.symptom_kinds == ["crash"]
    # the author opened it in the window with an empty body: not a participant
    assert (by[3].window_comments, by[3].participants, by[3].reactions) == (5, 4, 9)
    assert by[1].signals == []
