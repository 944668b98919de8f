"""State claims (merged, closed, open, approved, reverted) checked against the data, zh and en."""

from __future__ import annotations

import json

import pytest

from devdigest.writers.grounding import GuardContext, ItemState, check_state_claims, check_text
from devdigest.writers.llm import write_llm
from devdigest.writers.llm_data import Facts
from tests.fakes.openai_server import Scripted
from tests.helpers import at, fill_store, make_pr, make_review
from tests.llm_case import NOW, case_analysis, case_store, narrative_text, settings

OPEN_PR = ItemState(is_pr=True, state="open", merged=False, approved=False, reverted=False)
MERGED_PR = ItemState(is_pr=True, state="closed", merged=True, approved=True, reverted=True)
CLOSED_ISSUE = ItemState(is_pr=False, state="closed", merged=False, approved=False, reverted=False)
STATES = {104: OPEN_PR, 102: MERGED_PR, 105: CLOSED_ISSUE}
CTX = GuardContext(known_refs=frozenset({102, 104, 105, 106}), states=STATES)


def kinds(text: str, ctx: GuardContext = CTX) -> list[str]:
    return [v.detail.split(" is called ")[1].split(",")[0] for v in check_state_claims(text, ctx)]


@pytest.mark.parametrize(
    ("text", "false_claims"),
    [
        ("PR #104 was merged today.", ["merged"]),
        ("#104 has been merged and speeds up decoding.", ["merged"]),
        ("Alice merged #104 after review.", ["merged"]),
        ("#104 已合并，提升了吞吐。", ["merged"]),
        ("#104 被合入主分支。", ["merged"]),
        ("#104 was approved by bob.", ["approved"]),
        ("#104 已获批准。", ["approved"]),
        ("#104 was reverted.", ["reverted"]),
        ("#104 已被回滚。", ["reverted"]),
        ("#104 was closed.", ["closed"]),
        ("#102 is still open.", ["open"]),
        ("#102 仍未合并。", ["unmerged"]),
        ("#102 was not merged.", ["unmerged"]),
        ("#105 (the README typo) is still open, and #104 was merged.", ["open", "merged"]),
        ("Issue #105 was merged.", ["merged"]),
        ("#106 was merged.", ["merged"]),  # known, but its state is not in the data
    ],
)
def test_false_state_claims_are_violations(text, false_claims):
    assert kinds(text) == false_claims


@pytest.mark.parametrize(
    "text",
    [
        "#102 was merged and approved; it was later reverted.",
        "#102 已合并并获批准，之后被回滚。",
        "#104 is still open and not merged yet.",
        "#104 仍在讨论中，尚未合并。",
        "#104 should be merged once CI passes.",
        "#104 can be merged after the review.",
        "#104 待合并。",
        "#105 was closed.",
        "#105 已关闭。",
        "#104 (Fix crash when the socket is closed) was reviewed.",
        "41 PRs were merged today.",
        "The open question is whether #104 should keep FIFO.",
        "Work on #104 continued.",
    ],
)
def test_true_or_hedged_state_claims_pass(text):
    assert check_state_claims(text, CTX) == []


def test_a_thread_field_without_a_number_speaks_of_its_own_item():
    thread = GuardContext(known_refs=frozenset({104}), states=STATES, subject=104)
    assert kinds("The PR has been merged.", thread) == ["merged"]
    assert kinds("该 PR 已合并。", thread) == ["merged"]
    assert check_state_claims("The PR is still open.", thread) == []
    assert check_state_claims("Whether to keep FIFO remains open.", thread) == []
    assert check_state_claims("The author reverted the config change.", thread) == []
    assert check_text("The PR has been merged.", thread)[0].kind == "state"


def test_no_states_no_check():
    assert check_state_claims("#104 was merged.", GuardContext(known_refs=frozenset())) == []


def test_facts_know_states_approvals_and_reverts(tmp_path):
    revert = make_pr(
        107,
        title='Revert "[ROCm][Perf] Faster FP8 attention on MI300X"',
        author="carol",
        created_at=at(6),
        merged_at=at(8),
        body="Reverts the FP8 change: it breaks MI250.",
    )
    store = fill_store(case_store(tmp_path), [revert], [make_review(107, "bob", at(7))])
    facts = Facts.of(case_analysis(tmp_path, store))
    store.close()
    assert facts.states[102].merged and facts.states[102].approved  # bob's review
    assert facts.states[102].reverted and not facts.states[107].reverted
    assert facts.states[104] == OPEN_PR
    assert not facts.states[101].is_pr and facts.states[101].state == "open"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_open_pr_called_merged_never_reaches_the_report(tmp_path, fake_openai, lang):
    store = case_store(tmp_path)
    analysis = case_analysis(tmp_path, store)
    merged = "PR #104 已合并。" if lang == "zh" else "PR #104 was merged."
    lie = {
        "core_question": "Should the queue stay FIFO?",
        "viewpoints": [],
        "contention": "FIFO or a separate lane.",
        "status": merged,
    }
    fake_openai.script("discussion", Scripted(content=json.dumps(lie), times=2), number=104)
    summary = {"statements": [{"text": merged, "refs": [104]}]}
    fake_openai.script("summary", Scripted(content=json.dumps(summary), times=2))
    report = write_llm(analysis, lang, settings=settings(fake_openai.url), store=store, now=NOW)
    store.close()
    text = narrative_text(report)
    assert "#104 was merged" not in text and "#104 已合并" not in text
    asks = fake_openai.chat_calls("summary")
    assert len(asks) == 2 and "is called merged" in asks[1].body["messages"][-1]["content"]
    assert report.provenance.guard_corrections >= 2
    discussion = next(d for d in report.hot_discussions if d.item.number == 104)
    assert discussion.status  # the offline status stands in
