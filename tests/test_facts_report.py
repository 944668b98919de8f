"""The corpus as one window through the real store, analysis and offline writer: rankings from
facts, readings from facts, and the sentences that must never be written."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime

import pytest

from devdigest.analysis import compute_window_analysis
from devdigest.config import Config, Project, Rule
from devdigest.store import open_store
from devdigest.writers.fact_phrases import FACT_PHRASES, SYMPTOMS
from devdigest.writers.offline import write_offline
from devdigest.writers.stories import PHRASES
from tests.corpus import load_cases
from tests.helpers import REPO, at, day_window, fill_store, make_review

ROCM = Rule(name="AMD/ROCm", labels=["rocm"], keywords=["ROCm", "MI300X"])


@pytest.fixture(scope="module")
def corpus_day(tmp_path_factory):
    items, comments = [], []
    cases = {c.name: c for c in load_cases()}
    for k, case in enumerate(cases.values()):
        item = case.item
        if item.is_pr:
            item = _merged(item, at(5 + k * 0.1))
        items.append(item)
        comments += case.comments
    simplification = cases["pr_some_code_simplification"].item.number
    bold = cases["pr_bold_throughput"].item.number
    for reviewer in ("r1", "r2", "r3", "r4"):  # the simplification is the most reviewed PR
        comments.append(make_review(simplification, reviewer, at(4), body="Looks cleaner."))
    comments.append(make_review(bold, "r1", at(4)))
    store = fill_store(open_store(str(tmp_path_factory.mktemp("c") / "c.db")), items, comments)
    config = Config(db=":memory:", projects=[Project(repo=REPO, name="Demo", focus=[ROCM])])
    analysis = compute_window_analysis(store, config, REPO, day_window())
    reports = {lang: write_offline(analysis, lang, now=at(30)) for lang in ("zh", "en")}
    store.close()
    return cases, analysis, reports


def _merged(item, when: datetime):
    return replace(item, state="closed", closed_at=when, merged_at=when)


def test_the_bold_figure_pr_beats_some_code_simplification(corpus_day) -> None:
    cases, analysis, reports = corpus_day
    ranked = [c.item.number for c in analysis.key_changes]
    bold = cases["pr_bold_throughput"].item.number
    simplification = cases["pr_some_code_simplification"].item.number
    assert bold in ranked
    assert simplification not in ranked or ranked.index(bold) < ranked.index(simplification)
    change = next(c for c in analysis.key_changes if c.item.number == bold)
    assert "states figures" in change.reasons and "focus AMD/ROCm" in change.reasons
    merges = next(s.text for s in reports["en"].summary if s.text.startswith("Notable merges"))
    assert f"#{bold}" in merges and f"#{simplification}" not in merges


def test_the_absurd_allocation_tops_the_watch_list(corpus_day) -> None:
    cases, analysis, reports = corpus_day
    absurd = cases["issue_absurd_allocation"].item.number
    assert analysis.watch[0].item.number == absurd
    assert reports["en"].watch[0].item.number == absurd
    assert "0.8B model" in reports["en"].watch[0].why and "192 GB" in reports["en"].watch[0].why
    assert "0.8B" in reports["zh"].watch[0].why and "192 GB" in reports["zh"].watch[0].why
    assert "work in v0.11.0" in reports["en"].watch[0].why  # "It worked in v0.11.0."
    assert "v0.11.0 上正常" in reports["zh"].watch[0].why


def test_figures_are_stated_once_per_entry(corpus_day) -> None:
    _, _, reports = corpus_day
    for report in reports.values():
        for change in report.key_changes:
            stated = f"{change.technical} {change.impact}"
            for figure in change.figures:
                number = re.search(r"\d+(?:\.\d+)?", figure)
                assert number is None or number.group(0) not in stated


def test_symptom_lists_name_only_symptoms(corpus_day) -> None:
    _, analysis, reports = corpus_day
    models = {name for facts in analysis.facts.values() for name in facts.families}
    for lang, report in reports.items():
        storyline = PHRASES[lang]["story"].split("{shared}")[0].split("}")[-1]  # names a family
        sentence = next(s.text for s in report.summary if storyline not in s.text and any(
            name in s.text for name in SYMPTOMS[lang].values()
        ))  # fmt: skip
        assert not any(model in sentence for model in models), sentence


def test_no_title_only_claim_where_a_body_exists(corpus_day) -> None:
    _, analysis, reports = corpus_day
    for lang, report in reports.items():
        claim = FACT_PHRASES[lang]["lead_title_only"]
        for change in report.key_changes:
            if analysis.items[change.item.number].body.strip():
                assert claim not in change.technical


SENTENCES = ("lead_", "impact_", "watch_")


def shape(text: str, lang: str) -> str:
    """The template the text opens with: of the sentence templates whose fixed words all occur in
    the text, the one whose fixed words start earliest (the longest on a tie)."""
    found = []
    for key, template in FACT_PHRASES[lang].items():
        fixed = [p.strip() for p in re.split(r"\{[a-z_]+\}", template) if len(p.strip()) > 1]
        if key.startswith(SENTENCES) and fixed and all(p in text for p in fixed):
            found.append((text.index(fixed[0]), -len("".join(fixed)), key))
    return min(found)[2] if found else text


def test_readings_never_share_one_shape_across_a_section(corpus_day) -> None:
    _, _, reports = corpus_day
    for lang, report in reports.items():
        for texts in (
            [c.technical for c in report.key_changes],
            [c.impact for c in report.key_changes],
            [w.why for w in report.watch],
        ):
            leads = [shape(text, lang) for text in texts if text]
            assert len(leads) < 2 or len(set(leads)) > 1, leads
