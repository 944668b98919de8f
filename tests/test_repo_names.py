"""Repository names follow GitHub's rules wherever one is taken (CLI, config, stored reports)."""

from __future__ import annotations

from pathlib import Path

import pytest

from devdigest.cli import main
from devdigest.config import load_config, validate_repo
from devdigest.errors import ConfigError
from devdigest.site import build_site
from devdigest.store import open_store
from tests.site_reports import make_report
from tests.test_site import small_config

BAD = ["../..", "a/..", "../b", "./b", "a/.", "-a/b", "a-/b", "a/b/c", "a/", "/b", "a b/c", "a/b c"]
BAD += ["a" * 40 + "/b", "a/" + "b" * 101, "a/b\x00", "a..b/c"]
GOOD = ["vllm-project/vllm", "o/r.js", "a/.github", "A1/b_c-d.e", "sgl-project/sglang"]


@pytest.mark.parametrize("repo", BAD)
def test_bad_names_are_refused(repo: str) -> None:
    with pytest.raises(ConfigError, match="OWNER/NAME"):
        validate_repo(repo)


@pytest.mark.parametrize("repo", GOOD)
def test_good_names_pass(repo: str) -> None:
    assert validate_repo(repo) == repo


@pytest.mark.parametrize("command", ["report", "stats", "sync"])
def test_cli_refuses_dot_dot_and_writes_nothing(tmp_path: Path, capsys, command: str) -> None:
    out = tmp_path / "a" / "b" / "out"
    args = ["--db", str(tmp_path / "db.sqlite3"), command, "../.."]
    if command != "sync":
        args += ["--no-sync"]
    if command == "report":
        args += ["--out", str(out)]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "OWNER/NAME" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_config_refuses_dot_dot(tmp_path: Path) -> None:
    path = tmp_path / "devdigest.toml"
    path.write_text('[[projects]]\nrepo = "../.."\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"projects\.0\.repo"):
        load_config(str(path), env={})


def test_site_build_skips_stored_reports_with_bad_names(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "db.sqlite3"))
    store.save_report(make_report(repo="../.."))
    store.save_report(make_report())
    out = tmp_path / "x" / "y" / "site"
    result = build_site(store, small_config(), out)
    store.close()
    assert result.skipped == ["../.."]
    assert "skipped the reports of invalid repository names: '../..'" in result.summary()
    assert sorted(p.name for p in (tmp_path / "x").iterdir()) == ["y"]
    assert sorted(p.name for p in (tmp_path / "x" / "y").iterdir()) == ["site"]
    assert (out / "vllm-project/vllm/2026-03-12.html").is_file()
