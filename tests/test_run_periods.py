"""``devdigest run`` writes the week and the month on its first run after they end (when the
schedule asks for them), once, and catches up missed weeks."""

from __future__ import annotations

import json
from datetime import timedelta

from devdigest.models import COUNT_KEYS
from devdigest.store import open_store
from devdigest.store.deliveries import DeliveryLedger
from devdigest.store.periods import period_reports
from tests.fakes.notify_server import FakeReceivers
from tests.fakes.oracle import expected
from tests.run_case import END, run_cli, write_config
from tests.test_run import env, sets  # noqa: F401  (fixtures)

REPO = "acme/alpha"  # tz UTC, cutoff 03:24


def periods_config(tmp_path):
    config = write_config(tmp_path / "devdigest.toml", tmp_path, [REPO])
    text = config.read_text("utf-8").replace(
        'writer = "offline"\n', 'writer = "offline"\nperiods = ["week", "month"]\n'
    )
    config.write_text(text, "utf-8")
    return config


def stored_periods(db: str) -> list[tuple[str, str]]:
    with open_store(db) as store:
        return [(r.kind, r.period) for r in period_reports(store, REPO)]


def test_weeks_and_months_are_written_once_and_caught_up(env, tmp_path, sets, capsys):  # noqa: F811
    server, clock, db = env
    config = periods_config(tmp_path)
    assert run_cli(config, db, server.url, "run") == 0  # Friday 2026-03-13
    assert stored_periods(db) == [("month", "2026-02"), ("week", "2026-W10")]
    with open_store(db) as store:
        week = period_reports(store, REPO, "week")[0]
    dataset = next(ds for ds in sets if ds.repo == REPO)
    oracle = expected(dataset, week.window.start, week.window.end)
    assert week.counts.model_dump() == oracle["counts"]
    folder = tmp_path / "reports" / "acme" / "alpha"
    assert (folder / "2026-W10.en.md").is_file() and (folder / "2026-02.en.svg").is_file()
    assert (tmp_path / "site" / "acme" / "alpha" / "2026-W10.html").is_file()
    assert "2026-W10" in capsys.readouterr().out

    # the same moment again: nothing is due, nothing is written
    assert run_cli(config, db, server.url, "run") == 0
    assert "up to date" in capsys.readouterr().out
    assert stored_periods(db) == [("month", "2026-02"), ("week", "2026-W10")]

    # ten days later: the missed week W11 is written, then W12; February stays as it was
    clock.set(END + timedelta(days=10))
    assert run_cli(config, db, server.url, "run") == 0
    assert stored_periods(db) == [
        ("month", "2026-02"),
        ("week", "2026-W10"),
        ("week", "2026-W11"),
        ("week", "2026-W12"),
    ]


def test_no_periods_unless_the_schedule_asks(env, tmp_path):  # noqa: F811
    server, _clock, db = env
    config = write_config(tmp_path / "devdigest.toml", tmp_path, [REPO])
    assert run_cli(config, db, server.url, "run") == 0
    assert stored_periods(db) == []


def test_weekly_and_monthly_messages_go_once_to_targets_that_ask(env, tmp_path, monkeypatch):  # noqa: F811
    server, _clock, db = env
    config = periods_config(tmp_path)
    with FakeReceivers({"hook": "hook-S3CRET"}) as fake:
        monkeypatch.setenv("HOOK_URL", fake.urls()["webhook"])
        monkeypatch.setenv("HOOK_SECRET", "hook-S3CRET")
        text = config.read_text("utf-8").replace(
            f'repo = "{REPO}"\n', f'repo = "{REPO}"\nnotify = ["ops-hook"]\n'
        )
        text += (
            '[[targets]]\nname = "ops-hook"\ntype = "webhook"\nurl_env = "HOOK_URL"\n'
            'secret_env = "HOOK_SECRET"\nkinds = ["weekly", "monthly"]\n'
        )
        config.write_text(text, "utf-8")
        assert run_cli(config, db, server.url, "run") == 0
        bodies = [r.raw.decode() for r in fake.received("hook", ok=True)]
        assert len(bodies) == 2  # the week and the month; the day is not asked for
        site = "https://digest.example.org/acme/alpha/"
        assert any(f"{site}2026-02.html" in b for b in bodies)
        week = next(b for b in bodies if f"{site}2026-W10.html" in b)
        with open_store(db) as store:
            report = period_reports(store, REPO, "week")[0]
        digest = json.loads(week)["digest"]
        assert digest["kind"] == "weekly" and "2026-W10" in digest["title"]
        assert [value for _, value in digest["counts"]] == [
            getattr(report.counts, key) for key in COUNT_KEYS
        ]
        assert run_cli(config, db, server.url, "run") == 0  # nothing new: no message
        assert len(fake.log) == 2
        with open_store(db) as store:
            kinds = sorted(row.key.kind for row in DeliveryLedger(store).rows(REPO, "sent"))
        assert kinds == ["monthly", "weekly"]
