"""Facts and storylines reach the LLM as data; figures it cites from them pass the guard."""

from __future__ import annotations

import json

import pytest

from devdigest.analysis.facts import compute_facts
from devdigest.analysis.storylines import compute_storylines
from devdigest.writers.llm import write_llm
from devdigest.writers.llm_data import summary_data, trends_data
from devdigest.writers.llm_facts import storyline_lines
from devdigest.writers.offline import write_offline
from tests.fakes.openai_server import Scripted
from tests.llm_case import NOW, case_analysis, case_store, settings
from tests.test_analysis_storylines import W, window_items
from tests.test_writer_stories import analysis as story_analysis


@pytest.fixture
def case(tmp_path):
    store = case_store(tmp_path)
    return store, case_analysis(tmp_path, store)


def run(case, fake):
    store, analysis = case
    return write_llm(
        analysis, "en", settings=settings(fake.url), store=store, now=NOW, backoff=0.001
    )


def user_data(fake, task: str, number: int | None = None) -> str:
    calls = [c for c in fake.chat_calls(task) if number is None or c.number == number]
    return calls[0].body["messages"][-1]["content"]


def test_a_change_prompt_carries_its_facts_as_data(case, fake_openai):
    run(case, fake_openai)
    data = user_data(fake_openai, "change", 102)
    assert "fact measured figure: throughput up 6.2%" in data
    assert "fact hardware: MI300X" in data
    assert "fact relation: fixes #101" in data
    watch = user_data(fake_openai, "watch", 101)
    assert "fact symptoms: hang" in watch


@pytest.mark.parametrize(("figure", "kept"), [("6.2%", True), ("9.5%", False)])
def test_figures_cited_from_facts_pass_and_invented_ones_do_not(case, fake_openai, figure, kept):
    reply = {"technical": "Faster FP8 attention.", "impact": f"Throughput up {figure} on MI300X."}
    fake_openai.script("change", Scripted(content=json.dumps(reply), times=2), number=102)
    report = run(case, fake_openai)
    change = next(c for c in report.key_changes if c.item.number == 102)
    assert (figure in change.impact) is kept
    assert (report.provenance.guard_corrections == 0) is kept


def test_storylines_are_listed_with_their_items_and_counts():
    items = window_items()
    lines = storyline_lines(compute_storylines(items, compute_facts(items, {}), W))
    assert lines[0].startswith("storylines")
    assert lines[1] == (
        "- storyline (family Qwen + symptom crash; 4 items): new bugs 3: #1 #2 #3; "
        "fixes merged 1: #4"
    )
    assert storyline_lines([]) == []


def test_summary_and_trend_data_carry_the_storylines():
    analysis = story_analysis()
    report = write_offline(analysis, "en", now=NOW)
    expected = storyline_lines(analysis.storylines)
    assert expected and all(line in summary_data(report, analysis.storylines) for line in expected)
    assert all(line in trends_data(report, analysis) for line in expected)
    assert "storyline" not in summary_data(report)
