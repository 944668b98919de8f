"""``devdigest demo`` and ``devdigest report`` end to end (no network except the local fake)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from devdigest.cli import main
from devdigest.models import DailyReport
from devdigest.report import SAMPLE_REPO
from devdigest.store import open_store
from tests.fakes.oracle import expected


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path):
    """No config file or environment from the machine running the tests."""
    monkeypatch.chdir(tmp_path)
    names = ("DEVDIGEST_DB", "DEVDIGEST_OUT", "DEVDIGEST_LLM_BASE_URL", "OPENAI_BASE_URL")
    for name in (*names, "DEVDIGEST_GITHUB_TOKEN", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DEVDIGEST_CONFIG", str(tmp_path / "devdigest.toml"))
    (tmp_path / "devdigest.toml").write_text('out = "reports"\n', encoding="utf-8")


def test_demo_then_report_from_the_stored_day(tmp_path, capsys, day_dataset):
    db = tmp_path / "demo.sqlite3"
    assert main(["--db", str(db), "demo", "--out", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out.split()
    base = tmp_path / "out" / "example-org" / "sample-llm-server"
    assert printed[:4] == [
        str(base / f"2026-03-12.{lang}.{ext}") for lang in ("zh", "en") for ext in ("md", "json")
    ]
    report = DailyReport.model_validate_json((base / "2026-03-12.en.json").read_text("utf-8"))
    oracle = expected(day_dataset, report.window.start, report.window.end)
    assert report.counts.model_dump() == oracle["counts"]
    zh = (base / "2026-03-12.zh.md").read_text("utf-8")
    assert zh.startswith("# Sample LLM Server 开发动态报告")

    since = report.window.start.isoformat()
    until = report.window.end.isoformat()
    args = ["--db", str(db), "report", SAMPLE_REPO, "--since", since, "--until", until]
    assert main([*args, "--lang", "en", "--no-sync", "--writer", "offline"]) == 0
    (md, js) = map(Path, capsys.readouterr().out.split())
    assert md == Path("reports/example-org/sample-llm-server/2026-03-12.en.md")
    again = json.loads(js.read_text("utf-8"))
    assert again["counts"] == report.counts.model_dump() and again["sample"]
    store = open_store(str(db))
    try:
        assert {(r.lang, r.date) for r in store.reports(SAMPLE_REPO)} == {
            ("zh", "2026-03-12"),
            ("en", "2026-03-12"),
        }
    finally:
        store.close()


def test_report_without_stored_data_and_no_sync_says_how_to_fix(tmp_path, capsys):
    db = tmp_path / "empty.sqlite3"
    code = main(["--db", str(db), "report", "acme/widgets", "--no-sync", "--date", "2026-03-12"])
    assert code == 1
    err = capsys.readouterr().err
    assert err.startswith("error: no stored data for acme/widgets")
    assert "devdigest sync acme/widgets" in err and len(err.strip().splitlines()) == 1


def test_llm_writer_without_settings_is_a_clear_error(tmp_path, capsys):
    db = tmp_path / "demo.sqlite3"
    code = main(["--db", str(db), "demo", "--lang", "en", "--writer", "llm", "--out", "x"])
    assert code == 1
    assert "set DEVDIGEST_LLM_BASE_URL and DEVDIGEST_LLM_MODEL" in capsys.readouterr().err


def test_report_syncs_from_the_fake_github(tmp_path, capsys, fake_github, day_dataset, monkeypatch):
    monkeypatch.setenv("DEVDIGEST_GITHUB_TOKEN", "test-token")
    db = tmp_path / "synced.sqlite3"
    end = day_dataset.end
    args = ["--db", str(db), "--github-api-url", fake_github.url, "report", "vllm-project/vllm"]
    since = end - timedelta(hours=2)  # a short window keeps the sync small
    args += ["--since", since.isoformat(), "--until", end.isoformat()]
    assert main([*args, "--lang", "en", "--writer", "offline"]) == 0
    md_path = Path(capsys.readouterr().out.split()[0])
    report = DailyReport.model_validate_json(md_path.with_suffix(".json").read_text("utf-8"))
    oracle = expected(day_dataset, report.window.start, report.window.end)
    assert report.counts.model_dump() == oracle["counts"]
    assert report.provenance.github_requests > 0


def test_unreachable_llm_fails_before_any_sync(tmp_path, capsys, monkeypatch, fake_github):
    monkeypatch.setenv("DEVDIGEST_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("DEVDIGEST_LLM_MODEL", "some-model")
    args = ["--db", str(tmp_path / "x.sqlite3"), "--github-api-url", fake_github.url]
    assert main([*args, "report", "vllm-project/vllm", "--last", "2h", "--writer", "llm"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot reach the LLM server http://127.0.0.1:9/v1" in err[0]
    fetched = [r for r in fake_github.requests if r.path != "/rate_limit"]  # the clock probe
    assert fetched == []  # nothing was fetched from GitHub
