"""Help texts and hints: one metavar for repositories, real defaults, the documented names."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from devdigest.cli import main
from tests import test_stats_cli as stats_cli
from tests.fakes.github_server import FakeClock
from tests.test_stats_cli import TOKEN, Cli

cli, clock, hard = stats_cli.cli, stats_cli.clock, stats_cli.hard  # the fixtures
SRC = Path(__file__).resolve().parent.parent / "src" / "devdigest"


def help_of(capsys, *command: str) -> str:
    capsys.readouterr()
    assert main([*command, "--help"]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("command", ["sync", "stats", "report"])
def test_repository_argument_is_owner_slash_repo(capsys, command: str) -> None:
    text = help_of(capsys, command)
    assert f"Usage: devdigest {command} [OPTIONS] OWNER/REPO" in text
    assert "OWNER/NAME" not in text and "REPO (" not in text


@pytest.mark.parametrize("command", ["sync", "stats", "report"])
def test_every_command_that_waits_has_no_wait(capsys, command: str) -> None:
    assert "--no-wait" in help_of(capsys, command)


@pytest.mark.parametrize(
    ("command", "default"),
    [(("report",), "reports;"), (("demo",), "devdigest-demo]"), (("site", "build"), "site;")],
)
def test_defaults_are_values_not_setting_names(capsys, command, default: str) -> None:
    text = " ".join(help_of(capsys, *command).split())
    assert f"[default: {default}" in text
    assert "[default: site_out" not in text and "config out" not in text


def test_report_no_wait_stops_at_the_rate_limit(cli: Cli, clock: FakeClock) -> None:
    cli.server.set_remaining(0, TOKEN)
    code, _, err = cli("report", "acme/widgets", "--date", "2026-03-08", "--no-wait")
    assert code == 1 and "rate limit" in err and "--no-wait" in err
    assert clock.slept == []


def test_hints_name_the_devdigest_variables() -> None:
    """Every message that names a variable leads with the DEVDIGEST_* name the README uses."""
    bare = re.compile(r"(?<!DEVDIGEST_)\b(GITHUB_TOKEN|OPENAI_BASE_URL|OPENAI_API_KEY)\b")
    offenders = []
    for path in SRC.rglob("*.py"):
        if path.name == "config.py":
            continue  # the table of accepted variables
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            if bare.search(line) and "DEVDIGEST_" not in line:
                offenders.append(f"{path.relative_to(SRC)}:{number}: {line.strip()}")
    assert offenders == []


def test_anonymous_note_names_devdigest_github_token(cli: Cli, monkeypatch) -> None:
    monkeypatch.delenv("DEVDIGEST_GITHUB_TOKEN")
    _, _, err = cli("sync", "acme/widgets", "--days", "9")
    assert "DEVDIGEST_GITHUB_TOKEN" in err


def test_config_show_lists_the_built_in_preset(tmp_path: Path, capsys) -> None:
    empty = tmp_path / "devdigest.toml"
    empty.write_text("")
    assert main(["--config", str(empty), "config", "show"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["projects"] == []
    preset = next(p for p in shown["presets"] if p["repo"] == "vllm-project/vllm")
    assert preset["tz"] == "Asia/Shanghai" and preset["focus"][0]["name"] == "AMD/ROCm ecosystem"
    mine = tmp_path / "mine.toml"
    mine.write_text('[[projects]]\nrepo = "vllm-project/vllm"\nname = "mine"\n')
    assert main(["--config", str(mine), "config", "show"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in shown["projects"]] == ["mine"]
    assert all(p["repo"] != "vllm-project/vllm" for p in shown["presets"])  # overridden


def test_usage_errors_are_one_line_and_bare_groups_show_help(capsys) -> None:
    assert main(["stats"]) == 2
    err = capsys.readouterr().err
    assert err == "error: Missing argument 'OWNER/REPO'. (see `devdigest stats --help`)\n"
    main([])
    shown = capsys.readouterr()
    assert "Commands:" in shown.out + shown.err and "\n" in (shown.out + shown.err).strip()
