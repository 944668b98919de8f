"""The facts layer against the corpus of realistic bodies in ``tests/corpus``."""

from __future__ import annotations

import pytest

from devdigest.analysis.facts import compute_item_facts
from tests.corpus import Case, expected_keys, found_keys, load_cases, precision_recall

CASES = load_cases()
LISTS = ("models", "hardware", "kernels", "components")


def facts_of(case: Case):
    return compute_item_facts(case.item, case.comments, "vllm-project/vllm")


def relation_names(facts) -> set[str]:
    return {
        f"{r.kind} #{r.target}" if r.target else f"{r.kind} {r.version}" for r in facts.relations
    }


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_facts(case: Case) -> None:
    facts = facts_of(case)
    want = case.expect
    assert found_keys(facts.figures) == expected_keys(want)
    for kind in LISTS:
        assert sorted(facts.names(kind)) == sorted(want.get(kind, [])), kind
    assert sorted(facts.families) == sorted(want.get("families", []))
    assert sorted(facts.symptom_kinds) == sorted(want.get("symptoms", []))
    assert sorted(e.text for e in facts.errors) == sorted(want.get("errors", []))
    assert relation_names(facts) == set(want.get("relations", []))
    assert [s.name for s in facts.sections] == want.get("sections", [])
    assert bool(facts.out_of_proportion) == want.get("out_of_proportion", False)
    if not case.item.is_pr:
        assert facts.reproducible == want.get("reproducible", False)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_fact_points_at_its_words(case: Case) -> None:
    """Spans are grounded: the cited text holds the words the fact was read from."""
    facts = facts_of(case)
    texts = {None: {"body": case.item.body, "title": case.item.title}}
    texts |= {c.id: {"comment": c.body} for c in case.comments}
    for fact in [*facts.figures, *facts.models, *facts.hardware, *facts.symptoms, *facts.errors]:
        src = fact.source
        if src.field not in ("body", "title", "comment"):
            continue
        cited = texts[src.comment_id][src.field][src.start : src.end]
        words = getattr(fact, "name", None) or getattr(fact, "text", "")
        if hasattr(fact, "metric"):
            words = fact.value.lstrip("~+-")
        near = _loose(words) in _loose(cited) or _loose(cited) in _loose(words)
        assert cited and near, (fact, cited)


def _loose(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def test_corpus_precision_and_recall() -> None:
    pairs = [(found_keys(facts_of(c).figures), expected_keys(c.expect)) for c in CASES]
    precision, recall, *_ = precision_recall(pairs)
    assert precision >= 0.9 and recall >= 0.9


def test_code_blocks_never_give_figures() -> None:
    case = next(c for c in CASES if c.name == "pr_bold_throughput")
    assert "4347.80" in case.item.body
    assert all("4347" not in f.value for f in facts_of(case).figures)
