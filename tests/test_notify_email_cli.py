"""Email through a real SMTP server (STARTTLS with a certificate made here, AUTH), the
``notify test`` command, and the targets' configuration."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from devdigest.cli import main
from devdigest.config import Config, NotifyTarget, Project, load_config
from devdigest.errors import ConfigError
from devdigest.notify import deliver_pending, send_test
from tests.fakes.notify_server import FakeReceivers
from tests.fakes.smtp_server import PASSWORD, USER, FakeSMTP
from tests.notify_case import NOW, REPO, InstantTransport, environment
from tests.site_reports import make_report


def _email_config(smtp: FakeSMTP, db: Path) -> Config:
    target = NotifyTarget(
        name="mail",
        type="email",
        smtp_host="127.0.0.1",
        smtp_port=smtp.port,
        smtp_user=USER,
        password_env="SMTP_PASSWORD",
        smtp_cafile=str(smtp.cafile),
        sender="devdigest@example.org",
        recipients=["team@example.org", "lead@example.org"],
    )
    project = Project(repo=REPO, name="vLLM", notify=["mail"])
    return Config(
        db=str(db), site_url="https://d.example.org", targets=[target], projects=[project]
    )


def test_email_is_multipart_over_starttls(tmp_path: Path, store):
    with FakeSMTP(tmp_path) as smtp:
        config = _email_config(smtp, tmp_path / "store.sqlite3")
        report = make_report(hostile=True)
        env = {"SMTP_PASSWORD": PASSWORD}
        results = deliver_pending(config, store, REPO, [report], now=NOW, env=env)
    assert [(r.target, r.status) for r in results] == [("mail", "sent")]
    (message,) = smtp.inbox.messages
    assert smtp.inbox.envelopes == [
        ("devdigest@example.org", ["team@example.org", "lead@example.org"])
    ]
    assert message["Subject"] == "vLLM 开发动态报告 - 2026-03-12"
    assert message.get_content_type() == "multipart/alternative"
    text = message.get_body(("plain",)).get_content()
    page = message.get_body(("html",)).get_content()
    assert "新 Issue 3 · 关闭 Issue 2 · 新 PR 5 · 合并 PR 4 · 关闭未合并 PR 1" in text
    assert "查看完整报告: https://d.example.org/vllm-project/vllm/2026-03-12.html" in text
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert '<a href="https://d.example.org/vllm-project/vllm/2026-03-12.html">' in page
    assert PASSWORD not in _dump(tmp_path / "store.sqlite3")


def test_email_to_an_unreachable_server_fails_and_says_why(tmp_path: Path, store):
    smtp = FakeSMTP(tmp_path)  # never started: nothing listens on its port
    config = _email_config(smtp, tmp_path / "store.sqlite3")
    env = {"SMTP_PASSWORD": PASSWORD}
    (result,) = deliver_pending(config, store, REPO, [make_report()], now=NOW, env=env)
    assert result.status == "failed" and "ConnectionRefusedError" in result.error
    assert result.error.endswith(
        "check smtp_host, smtp_port, the account and the password variable"
    )


def _config_file(tmp_path: Path, fake: FakeReceivers) -> Path:
    path = tmp_path / "devdigest.toml"
    path.write_text(
        f"""db = "{tmp_path / "store.sqlite3"}"
site_url = "https://digest.example.org"

[[targets]]
name = "slack-team"
type = "slack"
url_env = "SLACK_URL"

[[targets]]
name = "telegram-team"
type = "telegram"
token_env = "TG_TOKEN"
chat_id = "-1001"
api_url = "{fake.urls()["telegram"]}"

[[projects]]
repo = "{REPO}"
notify = ["slack-team", "telegram-team"]
""",
        encoding="utf-8",
    )
    return path


def test_notify_test_command(tmp_path, receivers, monkeypatch, capsys):
    path = _config_file(tmp_path, receivers)
    for name, value in environment(receivers).items():
        monkeypatch.setenv(name, value)
    assert main(["--config", str(path), "notify", "test", "slack-team"]) == 0
    assert capsys.readouterr().out == "sent a test message to slack-team (slack)\n"
    assert receivers.received("slack", ok=True)[0].body["blocks"][0]["text"]["text"] == (
        "devdigest test message"
    )
    monkeypatch.delenv("TG_TOKEN")
    assert main(["--config", str(path), "notify", "test", "telegram-team"]) == 1
    err = capsys.readouterr().err
    assert err == (
        "error: telegram-team: environment variable TG_TOKEN (token_env) is not set; "
        "export it where devdigest runs\n"
    )
    assert main(["--config", str(path), "notify", "test", "nope"]) == 1
    assert "no notification target 'nope' (slack-team, telegram-team)" in capsys.readouterr().err


def test_send_test_reports_a_server_error_on_one_line(receivers: FakeReceivers):
    config = Config(targets=[NotifyTarget(name="s", type="slack", url_env="SLACK_URL")])
    env = {"SLACK_URL": receivers.urls()["slack"].replace("T0KEN-slack", "wrong")}
    error = send_test(config, "s", now=NOW, transport=InstantTransport(), env=env)
    assert error == 's: HTTP 400 ({"error": "invalid_token"}); check the target\'s settings'


def test_config_show_names_the_variables_never_their_values(tmp_path, receivers, monkeypatch):
    path = _config_file(tmp_path, receivers)
    monkeypatch.setenv("SLACK_URL", receivers.urls()["slack"])
    shown = json.dumps(load_config(str(path), env={}).redacted())
    assert '"url_env": "SLACK_URL"' in shown and "T0KEN" not in shown


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('name = "a"\ntype = "slack"', "a slack target needs url_env"),
        (
            'name = "a"\ntype = "slack"\nurl_env = "https://hooks.slack.com/x"',
            "NAME of an environment",
        ),
        ('name = "a"\ntype = "telegram"\ntoken_env = "T"', "a telegram target needs chat_id"),
        ('name = "a"\ntype = "pager"\nurl_env = "U"', "targets.0.type"),
    ],
)
def test_bad_targets_are_refused_with_a_fix(tmp_path, table, message):
    path = tmp_path / "devdigest.toml"
    path.write_text(f"[[targets]]\n{table}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        load_config(str(path), env={})


def test_a_project_naming_an_unknown_target_is_refused(tmp_path):
    path = tmp_path / "devdigest.toml"
    path.write_text(f'[[projects]]\nrepo = "{REPO}"\nnotify = ["ghost"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"notifies unknown targets \['ghost'\]"):
        load_config(str(path), env={})


def _dump(db: Path) -> str:
    import sqlite3

    with sqlite3.connect(db) as conn:
        return "\n".join(conn.iterdump())
