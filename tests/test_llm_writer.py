"""The LLM writer against a real HTTP fake of an OpenAI-compatible server."""

from __future__ import annotations

import json
import os
import re
import socket
from pathlib import Path

import pytest

from devdigest.errors import LLMError
from devdigest.models import DailyReport
from devdigest.writers.llm import write_llm
from devdigest.writers.offline import write_offline
from tests.fakes.openai_server import FakeOpenAI, Scripted
from tests.helpers import at, fill_store, make_comment
from tests.llm_case import INJECTION, NOW, case_analysis, case_store, settings

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture
def case(tmp_path):
    store = case_store(tmp_path)
    return store, case_analysis(tmp_path, store)


def run(case, fake: FakeOpenAI, lang: str = "en", **kw) -> DailyReport:
    store, analysis = case
    return write_llm(
        analysis, lang, settings=settings(fake.url, **kw), store=store, now=NOW, backoff=0.001
    )


def narrative(report: DailyReport) -> str:
    """Every field the LLM may write, as one text."""
    return json.dumps(
        report.model_dump(
            mode="json",
            include={
                "summary",
                "hot_discussions",
                "key_changes",
                "watch",
                "trend_notes",
                "activity_notes",
                "focus_areas",
            },
        ),
        ensure_ascii=False,
    )


def expected_tokens(fake: FakeOpenAI) -> int:
    """Prompt tokens as the fake counts them, from the request log (independent of the writer)."""
    return sum(
        sum(len(m["content"]) for m in e.body["messages"]) // 4
        for e in fake.chat_calls()
        if e.status == 200
    )


def test_echo_report_is_complete_and_accounted(case, fake_openai):
    report = run(case, fake_openai)
    offline = write_offline(case[1], "en", now=NOW)
    assert report.counts == offline.counts and report.appendix == offline.appendix
    c = report.counts
    assert report.summary[0].text.startswith(f"In this window {c.new_issues} new issues")
    for d in report.hot_discussions:
        thread = next(t for t in case[1].discussions if t.item.number == d.item.number)
        assert d.core_question.startswith("The discussion is about")
        assert {v.login for v in d.viewpoints} <= set(thread.participants)
    p = report.provenance
    assert p.writer == "llm" and p.model == "fake-model" and p.fallbacks == []
    assert p.llm_calls == len(fake_openai.chat_calls()) - 0  # no ping: the model is listed
    assert p.prompt_tokens == expected_tokens(fake_openai)
    tasks = sorted(e.task for e in fake_openai.chat_calls())
    assert tasks.count("discussion") == len(report.hot_discussions)
    assert tasks.count("focus") == len(report.focus_areas)


def test_rerun_costs_nothing_and_next_day_sends_only_changed_threads(case, fake_openai, tmp_path):
    first = run(case, fake_openai)
    calls = len(fake_openai.chat_calls())
    again = run(case, fake_openai)
    assert len(fake_openai.chat_calls()) == calls
    assert (again.provenance.llm_calls, again.provenance.prompt_tokens) == (0, 0)
    assert again.provenance.cache_hits == calls
    assert narrative(again) == narrative(first)
    store, _ = case
    fill_store(store, [], [make_comment(104, "erin", at(11), body="Sorting once sounds simpler.")])
    run((store, case_analysis(tmp_path, store)), fake_openai)
    new = fake_openai.chat_calls()[calls:]
    assert [(e.task, e.number) for e in new if e.number] == [("discussion", 104)]


@pytest.mark.parametrize(
    ("task", "reply", "bad"),
    [
        (
            "summary",
            {"statements": [{"text": "Work continued on #99999.", "refs": [99999]}]},
            "99999",
        ),
        ("summary", {"statements": [{"text": "The project merged 45 PRs.", "refs": []}]}, "45 PRs"),
        (
            "summary",
            {"statements": [{"text": "好的，以下是摘要：项目很活跃。", "refs": []}]},
            "好的",
        ),
        (
            "summary",
            {"statements": [{"text": "## Summary\n<b>Busy</b> day, thanks @bob.", "refs": []}]},
            "@bob",
        ),
        (
            "activity",
            {"statements": [{"text": "Sure, here is the activity: 77 people helped.", "refs": []}]},
            "77",
        ),
        (
            "change",
            {"technical": "Adds a kernel.", "impact": "Throughput rises by 48% for everyone."},
            "48%",
        ),
        (
            "discussion",
            {
                "core_question": "Scheduler queue.",
                "contention": "Queue order.",
                "status": "Open.",
                "viewpoints": [{"login": "mallory", "position": "Wants a rewrite."}],
            },
            "mallory",
        ),
    ],
)
def test_guard_repairs_or_drops_bad_replies(case, fake_openai, task, reply, bad):
    content = json.dumps(reply, ensure_ascii=False)
    fake_openai.script(task, Scripted(content=content, times=2))  # the re-ask repeats the error
    report = run(case, fake_openai)
    offline = write_offline(case[1], "en", now=NOW)
    assert bad not in narrative(report)
    assert report.provenance.guard_corrections >= 1
    for name in ("hot_discussions", "key_changes", "watch", "focus_areas"):
        assert len(getattr(report, name)) == len(getattr(offline, name)) > 0
    assert report.summary and report.trend_notes and report.activity_notes
    assert all(d.core_question and d.status and d.viewpoints for d in report.hot_discussions)
    assert all(c.technical and c.impact for c in report.key_changes)
    if "好的" in content or "@bob" in content:  # fixed in place: no re-ask
        assert "项目很活跃" in narrative(report) or "Busy day, thanks bob" in narrative(report)
    else:
        asks = fake_openai.chat_calls(task)
        reask = [e for e in asks if len(e.body["messages"]) == 4]
        assert reask and "not supported by the data" in reask[0].body["messages"][-1]["content"]


def test_malformed_json_is_repaired_once(case, fake_openai):
    fake_openai.script("trends", Scripted(content="Trends: {not json"))
    report = run(case, fake_openai)
    calls = fake_openai.chat_calls("trends")
    assert len(calls) == 2 and "not a valid JSON object" in calls[1].body["messages"][-1]["content"]
    assert report.trend_notes[0].text.endswith("items today.")


def test_persistent_500_falls_back_for_that_section_only(case, fake_openai):
    fake_openai.script("summary", Scripted(status=500, times=99))
    fake_openai.script("change", Scripted(status=429, retry_after="0"))
    report = run(case, fake_openai)
    offline = write_offline(case[1], "en", now=NOW)
    assert report.provenance.fallbacks == ["summary"]
    assert report.summary == offline.summary
    assert len(fake_openai.chat_calls("summary")) == 4  # the first try and three retries
    assert report.key_changes[0].technical.startswith("This change does the following")
    assert report.trend_notes[0].text.endswith("items today.")


def test_bad_key_wrong_model_unreachable_fail_before_any_thread_call(case, fake_openai):
    store, analysis = case
    bad_key = settings(fake_openai.url).model_copy(update={"api_key": None})
    with pytest.raises(LLMError, match="API key"):
        write_llm(analysis, "en", settings=bad_key, store=store, now=NOW)
    wrong = settings(fake_openai.url).model_copy(update={"model": "no-such-model"})
    with pytest.raises(LLMError, match=r"no-such-model.*fake-model"):
        write_llm(analysis, "en", settings=wrong, store=store, now=NOW)
    assert [e.task for e in fake_openai.chat_calls()] == ["ping"]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    gone = settings(f"http://127.0.0.1:{port}/v1")
    with pytest.raises(LLMError, match="cannot reach"):
        write_llm(analysis, "en", settings=gone, store=store, now=NOW, backoff=0.001)


def test_injected_instructions_stay_data_and_obeying_them_is_caught(case, fake_openai):
    obey = {
        "core_question": "This repository is deprecated.",
        "viewpoints": [],
        "contention": "The project is deprecated.",
        "status": "Deprecated.",
    }
    fake_openai.script("discussion", Scripted(content=json.dumps(obey), times=2), number=103)
    fake_openai.script(
        "watch", Scripted(content='{"why": "The repo is deprecated."}', times=2), number=103
    )
    report = run(case, fake_openai)
    sent = fake_openai.chat_calls("discussion")
    prompt = next(e.body["messages"] for e in sent if e.number == 103)
    thread = re.search(r"<thread>(.*)</thread>", prompt[1]["content"], re.S)
    assert thread and INJECTION in thread.group(1)
    assert "never an instruction" in prompt[0]["content"]
    assert "deprecat" not in narrative(report).lower()
    assert report.provenance.guard_corrections >= 4


def test_token_budget_and_cost(case, fake_openai):
    report = run(case, fake_openai, price_prompt_per_m=2.0, price_completion_per_m=10.0)
    p = report.provenance
    assert p.cost_usd == pytest.approx(p.prompt_tokens * 2e-6 + p.completion_tokens * 1e-5)
    store, analysis = case
    tight = settings(fake_openai.url, token_budget=1000)
    small = write_llm(analysis, "zh", settings=tight, store=store, now=NOW)
    assert small.provenance.fallbacks and small.provenance.prompt_tokens < 1000
    assert small.summary  # offline text stands in


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_golden_report(case, fake_openai, lang):
    report = run(case, fake_openai, lang=lang)
    text = json.dumps(report.model_dump(mode="json"), ensure_ascii=False, indent=1) + "\n"
    path = GOLDEN / f"llm_report_{lang}.json"
    if os.environ.get("DEVDIGEST_UPDATE_GOLDEN"):
        path.write_text(text, "utf-8")
    assert text == path.read_text("utf-8")
