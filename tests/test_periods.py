"""Period reports on a generated history: counts against the oracle, `stats` and the days;
golden weekly and monthly reports.

Regenerate the golden files with ``DEVDIGEST_UPDATE_GOLDEN=1 pytest tests/test_periods.py``.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from devdigest.analysis.period import compute_period_analysis
from devdigest.cli import main
from devdigest.config import load_config
from devdigest.render.period import render_period_chart, render_period_markdown
from devdigest.sample.dataset import generate_history
from devdigest.window import month_window, period_days, week_window
from devdigest.writers.period import write_period_report
from tests.fakes.oracle import KEYS, expected
from tests.helpers import store_from_dataset
from tests.test_report_schema_doc import documented

GOLDEN = Path(__file__).parent / "golden"
REPO = "vllm-project/vllm"
NOW = datetime(2026, 3, 13, 4, 0, tzinfo=UTC)
PERIODS = [("week", "2026-W09"), ("month", "2026-02")]


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """75 days of generated history ending 2026-03-13 03:24Z: February and the month before."""
    ds = generate_history(days=75, seed=3)
    db = tmp_path_factory.mktemp("periods") / "history.sqlite3"
    store = store_from_dataset(ds, str(db))
    with store.transaction() as conn:  # as a sync since the dataset's start would record it
        store.set_watermark(conn, store.repo_id(REPO, conn), "issues:from", ds.start)
    yield ds, store, db
    store.close()


def window_of(kind: str, text: str, tz: str = "Asia/Shanghai"):
    return week_window(text, tz) if kind == "week" else month_window(text, tz)


@pytest.mark.parametrize(("kind", "text"), PERIODS)
def test_period_counts_equal_the_oracle_stats_and_the_days(history, kind, text):
    ds, store, _ = history
    window = window_of(kind, text)
    analysis = compute_period_analysis(store, load_config(env={}), REPO, window)
    oracle = expected(ds, window.start, window.end)
    assert analysis.counts.model_dump() == oracle["counts"]
    stats = store.window_numbers(REPO, window.start, window.end)
    assert {k: len(v) for k, v in stats.items()} == oracle["counts"]
    days = period_days(window)
    assert [d for d, _ in analysis.days] == [d.local_date for d in days]
    for day, (_, counts) in zip(days, analysis.days, strict=True):
        assert counts.model_dump() == expected(ds, day.start, day.end)["counts"]
    for key in KEYS:  # an item closed twice in the period counts on both days, once in all
        days_sum = sum(getattr(c, key) for _, c in analysis.days)
        if key.startswith("closed"):
            assert days_sum >= oracle["counts"][key]
        else:
            assert days_sum == oracle["counts"][key]


def test_previous_period_and_mean_come_from_the_store(history):
    ds, store, _ = history
    window = month_window("2026-02", "Asia/Shanghai")
    analysis = compute_period_analysis(store, load_config(env={}), REPO, window)
    january = month_window("2026-01", "Asia/Shanghai")
    assert analysis.previous_window == january
    assert analysis.previous.model_dump() == expected(ds, january.start, january.end)["counts"]
    assert analysis.mean_periods == 1  # December is not wholly in the store
    assert analysis.mean == {k: float(v) for k, v in analysis.previous.model_dump().items()}
    week = compute_period_analysis(store, load_config(env={}), REPO, week_window("2026-W09", "UTC"))
    earlier = [week_window(f"2026-W0{k}", "UTC") for k in (5, 6, 7, 8)]
    counts = [expected(ds, w.start, w.end)["counts"] for w in earlier]
    assert week.mean_periods == 4
    assert week.mean == {k: round(sum(c[k] for c in counts) / 4, 2) for k in KEYS}


def test_stats_and_report_agree_for_a_week(history, tmp_path, capsys):
    _, _, db = history
    args = ["--db", str(db), "stats", REPO, "--week", "2026-W09", "--tz", "Asia/Shanghai"]
    assert main([*args, "--no-sync", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    out = tmp_path / "out"
    report_args = ["--db", str(db), "report", REPO, "--week", "2026-W09", "--no-sync"]
    assert main([*report_args, "--tz", "Asia/Shanghai", "--lang", "en", "--out", str(out)]) == 0
    paths = capsys.readouterr().out.split()
    assert [Path(p).name for p in paths] == [
        "2026-W09.en.md",
        "2026-W09.en.json",
        "2026-W09.en.svg",
    ]
    report = json.loads(Path(paths[1]).read_text("utf-8"))
    assert report["counts"] == stats["counts"]
    for key in KEYS:
        assert [a["number"] for a in report["appendix"][key]] == stats["items"][key]
    assert "](2026-W09.en.svg)" in Path(paths[0]).read_text("utf-8")


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize(("kind", "text"), PERIODS)
def test_golden_period_report(history, kind, text, lang):
    _, store, _ = history
    analysis = compute_period_analysis(store, load_config(env={}), REPO, window_of(kind, text))
    report = write_period_report(analysis, lang, now=NOW)
    report.provenance.version = "golden"
    markdown = render_period_markdown(report)
    path = GOLDEN / f"period-{text}.{lang}.md"
    if os.environ.get("DEVDIGEST_UPDATE_GOLDEN") == "1" or not path.exists():
        path.write_text(markdown, encoding="utf-8")
    assert markdown == path.read_text(encoding="utf-8")
    svg = render_period_chart(report)
    assert svg.startswith("<svg") and svg.count("<circle") == 3 * len(report.days)


def test_period_schema_doc_matches_the_models():
    from pydantic import BaseModel

    from devdigest import period_models

    doc = documented(Path(__file__).parent.parent / "docs" / "period-report-schema.md")
    own = {
        name: model
        for name, model in vars(period_models).items()
        if isinstance(model, type)
        and issubclass(model, BaseModel)
        and model.__module__ == period_models.__name__
    }
    assert set(doc) == set(own)
    for name, model in own.items():
        assert doc[name] == set(model.model_fields), name


def test_strong_categories_agree_with_match_rule(history):
    from devdigest.analysis.classify import match_rule
    from devdigest.analysis.period import _strong_categories

    _, store, _ = history
    config = load_config(env={})
    rules = config.categories_for(config.project(REPO))
    window = month_window("2026-02", "Asia/Shanghai")
    items = store.items_created(REPO, window.start, window.end)
    slow = {i.number: [r.name for r in rules if match_rule(i, r, text="")] for i in items}
    assert _strong_categories(items, rules) == slow
    assert sum(map(len, slow.values())) > 100


def test_month_report_from_the_cli_in_chinese(history, tmp_path, capsys):
    _, _, db = history
    out = tmp_path / "out"
    args = ["--db", str(db), "report", REPO, "--month", "2026-02", "--no-sync", "--lang", "zh"]
    assert main([*args, "--tz", "Asia/Shanghai", "--out", str(out), "--writer", "llm"]) == 0
    captured = capsys.readouterr()
    assert "period reports are written offline" in captured.err
    markdown = Path(captured.out.split()[0]).read_text("utf-8")
    assert markdown.startswith("# vLLM 开发动态报告 - 2026-02\n")


@pytest.mark.parametrize(
    ("option", "message"), [("--week", "bad --week '2026-W99'"), ("--month", "bad --month")]
)
def test_bad_period_is_a_one_line_error(history, capsys, option, message):
    _, _, db = history
    value = "2026-W99" if option == "--week" else "2026-3"
    assert main(["--db", str(db), "report", REPO, option, value, "--no-sync"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
