"""Reports of generated vLLM-sized days: golden files and invariants.

Regenerate the golden files with
``DEVDIGEST_UPDATE_GOLDEN=1 pytest tests/test_report_generated.py``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from devdigest.analysis.discussions import wrote_text
from devdigest.analysis.types import WindowAnalysis
from devdigest.config import load_config
from devdigest.models import COUNT_KEYS, DailyReport
from devdigest.render.i18n import t
from devdigest.render.markdown import render_markdown
from devdigest.report import generate_reports, sample_window, upsert_sample
from devdigest.sample.dataset import Dataset, generate_day
from devdigest.store import Store, open_store
from devdigest.writers.quality import cjk_share, repeated_sentences, without_kept_text
from tests.fakes.oracle import expected

GOLDEN = Path(__file__).parent / "golden"
MD = MarkdownIt("commonmark", {"html": False}).enable("table")
REF = re.compile(r"(?<!\\)#(\d+)")


@dataclass
class Day:
    dataset: Dataset
    store: Store
    analysis: WindowAnalysis
    reports: dict[str, DailyReport]
    markdown: dict[str, str]


def build_day(dataset: Dataset, db: Path) -> Day:
    store = open_store(str(db))
    upsert_sample(store, dataset)
    config = load_config(env={})
    window = sample_window(dataset.end)
    run = generate_reports(
        config, store, dataset.repo, window, ["zh", "en"], writer="offline", no_sync=True,
        now=dataset.end,
    )  # fmt: skip
    for report in run.reports:
        report.provenance.version = "golden"
        report.provenance.timings = {}
    reports = {r.lang: r for r in run.reports}
    markdown = {lang: render_markdown(r) for lang, r in reports.items()}
    return Day(dataset, store, run.analysis, reports, markdown)


@pytest.fixture(scope="module")
def days(day_dataset, tmp_path_factory) -> list[Day]:
    root = tmp_path_factory.mktemp("days")
    built = [build_day(day_dataset, root / "seed0.sqlite3")]
    built.append(build_day(generate_day(seed=7), root / "seed7.sqlite3"))
    yield built
    for day in built:
        day.store.close()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_golden_report(days, lang):
    path = GOLDEN / f"vllm-day-seed0.{lang}.md"
    actual = days[0].markdown[lang]
    if os.environ.get("DEVDIGEST_UPDATE_GOLDEN") == "1" or not path.exists():
        path.parent.mkdir(exist_ok=True)
        path.write_text(actual, encoding="utf-8")
    assert actual == path.read_text(encoding="utf-8")


def test_counts_match_the_appendix_and_the_oracle(days):
    for day in days:
        window = day.analysis.window
        oracle = expected(day.dataset, window.start, window.end)
        for report in day.reports.values():
            for key in COUNT_KEYS:
                listed = [a.number for a in getattr(report.appendix, key)]
                assert getattr(report.counts, key) == len(listed) == oracle["counts"][key]
                assert sorted(listed) == oracle["items"][key]


def citable(day: Day) -> set[int]:
    """Items of the window or referenced by the analysis, and numbers linked from their bodies."""
    numbers = set(day.analysis.items)
    for items in day.analysis.appendix.values():
        numbers.update(i.number for i in items)
    bodies = [i.body for i in day.analysis.items.values()]
    bodies += [i.body for items in day.analysis.appendix.values() for i in items]
    for body in bodies:
        numbers.update(int(n) for n in re.findall(r"#(\d+)", body))
    return numbers


def test_every_reference_is_an_item_of_the_window(days):
    for day in days:
        allowed = citable(day)
        for markdown in day.markdown.values():
            cited = {int(n) for n in REF.findall(markdown)}
            assert cited and cited <= allowed, sorted(cited - allowed)


def test_people_named_in_hot_discussions_wrote_in_the_thread(days):
    for day in days:
        window = day.analysis.window
        comments = day.store.comments_between(day.dataset.repo, window.start, window.end)
        authors = {i.author for i in day.analysis.items.values()}
        logins = sorted({c.author for c in comments} | authors)
        for report in day.reports.values():
            assert report.hot_discussions
            for hot in report.hot_discussions:
                item = day.analysis.items[hot.item.number]
                wrote = {c.author for c in comments if c.number == item.number} | {item.author}
                named = {v.login for v in hot.viewpoints}
                for text in (hot.contention, hot.status):
                    named |= {
                        x for x in logins if re.search(rf"(?<![\w-]){re.escape(x)}(?![\w-])", text)
                    }
                assert named <= wrote, named - wrote
                assert hot.participants >= 2


def test_markdown_is_clean(days):
    for day in days:
        for lang, markdown in day.markdown.items():
            assert markdown.startswith(f"# {t(lang, 'title', project='vLLM', date='')}")
            assert not re.search(r"@[A-Za-z0-9]", re.sub(r"`[^`]*`", "", markdown))
            html = MD.render(markdown)
            assert "<script" not in html and "<h2>" in html
            first = day.reports[lang].summary[0].text
            assert not first.startswith(("好的", "以下是", "Sure", "Here is", "Certainly"))


def test_layout_does_not_drift_between_days(days):
    for lang in ("zh", "en"):
        layouts = [re.findall(r"^##? .+$", d.markdown[lang], re.M) for d in days]
        sections = [[h for h in layout if h.startswith("## ")] for layout in layouts]
        assert sections[0] == sections[1]
        order = ["h_summary", "h_discussions", "h_topics", "h_changes", "h_activity", "h_watch"]
        positions = [sections[0].index(f"## {t(lang, key)}") for key in order]
        assert positions == sorted(positions)
        assert sections[0][-2:] == [f"## {t(lang, 'h_appendix')}", f"## {t(lang, 'h_provenance')}"]


def test_zh_narrative_is_mostly_chinese(days):
    """Outside titles, quotes, code and URLs, the zh narrative is written in Chinese."""
    for day in days:
        zh = without_kept_text(day.reports["zh"])
        assert cjk_share(zh) >= 0.6
        assert not any("正文要点" in e.about for f in day.reports["zh"].focus_areas for e in f.prs)


def test_no_sentence_is_repeated_more_than_twice(days):
    for day in days:
        for report in day.reports.values():
            assert repeated_sentences(report) == {}


def test_trend_sentences_name_topics_with_examples(days):
    for day in days:
        for lang, report in day.reports.items():
            movers = [s for s in report.trend_notes if ("上升" in s.text or "Rising" in s.text)]
            assert movers and movers[0].refs, lang  # rising topics come with examples


def test_discussions_obey_the_rules(days):
    """≥ 2 humans wrote text in the window; a contention is a disagreement or absent."""
    for day in days:
        window = day.analysis.window
        for thread in day.analysis.discussions:
            wrote = {c.author for c in thread.comments if wrote_text(c)}
            if window.contains(thread.item.created_at) and thread.item.body.strip():
                wrote.add(thread.item.author)
            assert len(wrote) >= 2
        for hot in day.reports["en"].hot_discussions:
            assert hot.contention == "" or any(
                key in hot.contention for key in ("requested changes", "reservations")
            )
