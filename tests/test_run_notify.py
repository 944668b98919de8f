"""``devdigest run`` sends each new report to the project's targets once, after the site, and
retries a failed delivery on the next run."""

from __future__ import annotations

from datetime import timedelta

from devdigest.store import open_store
from devdigest.store.runs import last_run
from tests.fakes.notify_server import FakeReceivers, Fault
from tests.run_case import END, run_cli, write_config
from tests.test_run import env, sets  # noqa: F401  (fixtures)


def notify_config(tmp_path, fake: FakeReceivers, monkeypatch):
    config = write_config(tmp_path / "devdigest.toml", tmp_path, ["acme/alpha", "acme/beta"])
    urls = fake.urls()
    monkeypatch.setenv("SLACK_URL", urls["slack"])
    monkeypatch.setenv("HOOK_URL", urls["webhook"])
    monkeypatch.setenv("HOOK_SECRET", "hook-S3CRET")
    text = config.read_text("utf-8").replace(
        'repo = "acme/alpha"\n', 'repo = "acme/alpha"\nnotify = ["slack-team", "ops-hook"]\n'
    )
    text += (
        '[[targets]]\nname = "slack-team"\ntype = "slack"\nurl_env = "SLACK_URL"\n'
        '[[targets]]\nname = "ops-hook"\ntype = "webhook"\nurl_env = "HOOK_URL"\n'
        'secret_env = "HOOK_SECRET"\n'
    )
    config.write_text(text, "utf-8")
    return config


def test_each_new_report_goes_to_each_target_once(env, tmp_path, monkeypatch, capsys):  # noqa: F811
    server, clock, db = env
    with FakeReceivers({"hook": "hook-S3CRET"}) as fake:
        config = notify_config(tmp_path, fake, monkeypatch)
        assert run_cli(config, db, server.url, "run") == 0
        assert [r.platform for r in fake.received(ok=True)] == ["slack", "hook"]
        assert fake.received(ok=False) == []
        link = "https://digest.example.org/acme/alpha/2026-03-12.html"
        assert link in fake.received("slack")[0].raw.decode()
        assert (tmp_path / "site" / "acme" / "alpha" / "2026-03-12.html").is_file()
        assert "messages: 2 sent, 0 failed" in capsys.readouterr().out

        assert run_cli(config, db, server.url, "run") == 0  # nothing new: no message
        assert len(fake.log) == 2

        clock.set(END + timedelta(days=1))  # the next day: slack refuses it once
        fake.fail("slack", Fault(status=400, retry_after=None, body={"error": "no"}))
        assert run_cli(config, db, server.url, "run") == 1
        err = capsys.readouterr().err
        assert "message acme/alpha → slack-team (en)" in err
        assert "1 message(s) not delivered" in err
        with open_store(db) as store:
            assert len(last_run(store)["summary"]["messages"]["failed"]) == 1

        assert run_cli(config, db, server.url, "run") == 0  # retried, and only that one
        slack = fake.received("slack")
        assert len(slack) == 3 and slack[-1].status < 400
        assert len(fake.received("hook")) == 2
