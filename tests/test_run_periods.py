"""``devdigest run`` writes the week and the month on its first run after they end (when the
schedule asks for them), once, and catches up missed weeks."""

from __future__ import annotations

from datetime import timedelta

from devdigest.store import open_store
from devdigest.store.periods import period_reports
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
