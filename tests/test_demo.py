"""``devdigest demo``: plainly sample data, its own database, a site at the end (issue 8 item 9)."""

from __future__ import annotations

import re

import pytest

from devdigest.cli import main
from devdigest.models import DailyReport
from devdigest.report import SAMPLE_REPO
from devdigest.store import open_store
from devdigest.writers.quality import repeated_sentences
from tests.helpers import fill_store, make_item


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    for name in ("DEVDIGEST_DB", "DEVDIGEST_OUT", "DEVDIGEST_LLM_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DEVDIGEST_CONFIG", str(tmp_path / "devdigest.toml"))
    (tmp_path / "devdigest.toml").write_text("", encoding="utf-8")


def test_demo_refuses_a_database_it_did_not_create(tmp_path, capsys):
    real = tmp_path / "real.sqlite3"
    store = fill_store(open_store(str(real)), [make_item(1)], [], repo="vllm-project/vllm")
    store.close()
    before = real.read_bytes()
    assert main(["--db", str(real), "demo", "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error:") and "--db" in err
    assert real.read_bytes() == before
    assert not (tmp_path / "out").exists()


def test_demo_is_plainly_sample_data_and_ends_with_a_site(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["demo", "--out", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    site_index = out / "site" / "index.html"
    assert lines[-1] == f"open {site_index}" and site_index.is_file()
    owner, name = SAMPLE_REPO.split("/")
    assert "vllm" not in SAMPLE_REPO.lower()
    for lang, banner in (("zh", "示例数据"), ("en", "sample data")):
        markdown = (out / owner / name / f"2026-03-12.{lang}.md").read_text("utf-8")
        assert banner in markdown.split("\n## ")[0]  # the banner is above the first section
        assert "github.com" not in markdown
        report = DailyReport.model_validate_json(
            (out / owner / name / f"2026-03-12.{lang}.json").read_text("utf-8")
        )
        assert report.sample and report.repo == SAMPLE_REPO
        assert repeated_sentences(report) == {}
    pages = [p.read_text("utf-8") for p in (out / "site").rglob("*.html")]
    assert pages and not any(re.search(r"https?://github\.com", page) for page in pages)
    day = (out / "site" / owner / name / "2026-03-12.html").read_text("utf-8")
    assert "示例数据" in day


def test_demo_may_reuse_its_own_database(tmp_path, capsys):
    db = tmp_path / "demo.sqlite3"
    for _ in range(2):
        assert main(["--db", str(db), "demo", "--lang", "en", "--out", str(tmp_path / "o")]) == 0
    store = open_store(str(db))
    try:
        assert store.repos() == [SAMPLE_REPO]
    finally:
        store.close()
