"""Configuration: flags > environment > file > defaults; one error for every problem; redaction."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from devdigest.cli import main
from devdigest.config import load_config
from devdigest.errors import ConfigError

FILE = """
db = "file.sqlite3"
github_api_url = "https://ghe.example/api/v3/"
github_token = "file-token-123"

[llm]
base_url = "https://llm.example/v1"
api_key = "file-llm-key-456"
model = "file-model"

[[projects]]
repo = "acme/widgets"
tz = "America/New_York"
"""


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "devdigest.toml"
    path.write_text(FILE)
    return path


def test_defaults_without_file_env_or_flags(tmp_path: Path) -> None:
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    config = load_config(str(empty), {}, {})
    assert config.github_api_url == "https://api.github.com"
    assert config.github_token is None
    assert (config.github_rate_reserve, config.github_max_tries) == (50, 6)
    assert config.project("vllm-project/vllm").tz == "Asia/Shanghai"  # built-in preset
    assert config.project("someone/else").tz == "UTC"


def test_file_beats_defaults(config_file: Path) -> None:
    config = load_config(str(config_file), {}, {})
    assert config.db == "file.sqlite3"
    assert config.github_api_url == "https://ghe.example/api/v3"  # trailing slash dropped
    assert config.github_token.get_secret_value() == "file-token-123"
    assert config.project("ACME/widgets").tz == "America/New_York"


def test_env_beats_file_and_flags_beat_env(config_file: Path) -> None:
    env = {
        "DEVDIGEST_DB": "env.sqlite3",
        "DEVDIGEST_GITHUB_API_URL": "https://env.example",
        "GITHUB_TOKEN": "plain-env-token",
        "DEVDIGEST_GITHUB_TOKEN": "devdigest-env-token",
    }
    config = load_config(str(config_file), {}, env)
    assert (config.db, config.github_api_url) == ("env.sqlite3", "https://env.example")
    assert config.github_token.get_secret_value() == "devdigest-env-token"
    flags = {"db": "flag.sqlite3", "github_api_url": None}
    config = load_config(str(config_file), flags, env)
    assert config.db == "flag.sqlite3" and config.github_api_url == "https://env.example"
    only_plain = {"GITHUB_TOKEN": "plain-env-token"}
    assert load_config(str(config_file), {}, only_plain).github_token.get_secret_value() == (
        "plain-env-token"
    )


def test_config_file_from_environment(config_file: Path) -> None:
    config = load_config(None, {}, {"DEVDIGEST_CONFIG": str(config_file)})
    assert config.source == str(config_file)


def test_missing_config_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found: fix --config"):
        load_config(str(tmp_path / "nope.toml"), {}, {})


def test_malformed_toml_is_one_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('db = "unterminated\n')
    with pytest.raises(ConfigError, match="not valid TOML") as err:
        load_config(str(path), {}, {})
    assert len(str(err.value).splitlines()) == 1


def test_every_invalid_setting_is_listed_at_once(tmp_path: Path) -> None:
    path = tmp_path / "invalid.toml"
    path.write_text(
        'colour = "blue"\n'
        "github_max_tries = 0\n"
        "[[projects]]\n"
        'repo = "not a repo"\n'
        'tz = "Mars/Base"\n'
        "[llm]\n"
        "max_concurrency = 0\n"
    )
    with pytest.raises(ConfigError) as err:
        load_config(str(path), {}, {})
    message = str(err.value)
    assert len(message.splitlines()) == 1
    for problem in ("colour", "github_max_tries", "projects.0.repo", "projects.0.tz",
                    "llm.max_concurrency"):  # fmt: skip
        assert problem in message


def test_config_show_redacts_secrets(
    config_file: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEVDIGEST_GITHUB_TOKEN", "env-secret-789")
    assert main(["--config", str(config_file), "config", "show"]) == 0
    out = capsys.readouterr().out
    shown = json.loads(out)
    for secret in ("env-secret-789", "file-llm-key-456", "file-token-123"):
        assert secret not in out
    assert shown["github_token"] == "**********"
    assert shown["llm"]["api_key"] == "**********"
    assert shown["llm"]["model"] == "file-model"
