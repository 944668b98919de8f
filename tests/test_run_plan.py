"""Planning of due windows (pure): kinds, catch-up, first run, missing languages, DST."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from devdigest.config import Config, Project, Schedule
from devdigest.errors import ConfigError
from devdigest.run.windows import plan_due_windows, windows_between

SH = "Asia/Shanghai"  # UTC+8, no DST: 11:24 local is 03:24 UTC


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def keys(due) -> list[tuple[datetime, datetime]]:
    return [(d.window.start, d.window.end) for d in due]


def test_first_run_makes_only_the_latest_due_window():
    due = plan_due_windows("day", SH, "11:24", ["zh"], utc(2026, 3, 13, 5, 0), {})
    assert keys(due) == [(utc(2026, 3, 12, 3, 24), utc(2026, 3, 13, 3, 24))]
    assert due[0].langs == ("zh",) and due[0].window.local_date.isoformat() == "2026-03-12"


def test_missed_days_are_caught_up_after_the_last_complete_window():
    stored = {(utc(2026, 3, 9, 3, 24), utc(2026, 3, 10, 3, 24)): {"zh", "en"}}
    due = plan_due_windows("day", SH, "11:24", ["zh", "en"], utc(2026, 3, 13, 3, 24), stored)
    ends = [end for _, end in keys(due)]
    assert ends == [utc(2026, 3, d, 3, 24) for d in (11, 12, 13)]  # the end is inclusive


def test_nothing_is_due_right_after_a_complete_run():
    stored = {(utc(2026, 3, 12, 3, 24), utc(2026, 3, 13, 3, 24)): {"zh"}}
    assert plan_due_windows("day", SH, "11:24", ["zh"], utc(2026, 3, 14, 3, 23), stored) == []


def test_a_window_lacking_one_language_gets_only_that_language():
    window = (utc(2026, 3, 11, 3, 24), utc(2026, 3, 12, 3, 24))
    stored = {window: {"zh", "en"}, (utc(2026, 3, 12, 3, 24), utc(2026, 3, 13, 3, 24)): {"zh"}}
    due = plan_due_windows("day", SH, "11:24", ["zh", "en"], utc(2026, 3, 13, 4), stored)
    assert len(due) == 1 and due[0].langs == ("en",)
    assert due[0].window.start == utc(2026, 3, 12, 3, 24)


def test_reports_of_other_windows_do_not_count_as_done():
    stored = {(utc(2026, 3, 12, 1), utc(2026, 3, 13, 1)): {"zh"}}  # a --last 24h report
    due = plan_due_windows("day", SH, "11:24", ["zh"], utc(2026, 3, 13, 5), stored)
    assert keys(due) == [(utc(2026, 3, 12, 3, 24), utc(2026, 3, 13, 3, 24))]


def test_since_asks_for_every_window_after_it():
    due = plan_due_windows(
        "day", "UTC", "00:00", ["en"], utc(2026, 3, 5, 12), {}, since=utc(2026, 3, 1)
    )
    assert [d.window.local_date.day for d in due] == [1, 2, 3, 4]


def test_calendar_day_follows_dst_and_rolling_24h_does_not():
    ny = "America/New_York"  # DST began 2026-03-08 02:00 local
    day = windows_between("day", ny, "00:00", utc(2026, 3, 7, 12), utc(2026, 3, 9, 12))
    assert [w.duration for w in day] == [timedelta(hours=24), timedelta(hours=23)]
    assert day[-1].end == utc(2026, 3, 9, 4)  # midnight EDT
    rolling = windows_between("24h", ny, "00:00", utc(2026, 3, 7, 12), utc(2026, 3, 9, 12))
    assert [w.duration for w in rolling] == [timedelta(hours=24)] * 2
    assert [w.end for w in rolling] == [w.end for w in day]


def test_schedule_validation_and_project_overrides():
    config = Config(schedule=Schedule(cutoff="midnight", langs=["zh", "en"]))
    project = Project(repo="o/r", schedule=Schedule(cutoff="11:24"))
    merged = config.schedule_for(project)
    assert (merged.cutoff, merged.langs, merged.window) == ("11:24", ["zh", "en"], "day")
    assert config.schedule_for(Project(repo="o/s")).cutoff == "00:00"
    for bad in ({"cutoff": "25:00"}, {"window": "fortnight"}, {"langs": ["fr"]}):
        with pytest.raises(ValueError):
            Schedule(**bad)


def test_bad_schedule_in_a_file_is_one_clear_error(tmp_path):
    from devdigest.config import load_config

    path = tmp_path / "devdigest.toml"
    path.write_text('[[projects]]\nrepo = "o/r"\n[projects.schedule]\ncutoff = "9am"\n')
    with pytest.raises(ConfigError, match=r"projects\.0\.schedule\.cutoff: .*HH:MM"):
        load_config(str(path), env={})
