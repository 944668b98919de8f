"""Report windows: half-open bounds, time zones (with and without DST), errors."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from devdigest.errors import ConfigError
from devdigest.window import (
    Window,
    build_window,
    day_window,
    format_local,
    iso_z,
    parse_duration,
    parse_instant,
    utc_offset_label,
)

NOW = datetime(2026, 3, 13, 3, 24, tzinfo=UTC)


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


@pytest.mark.parametrize(
    ("day", "tz", "start", "hours"),
    [
        (date(2026, 3, 8), "America/New_York", utc(2026, 3, 8, 5), 23),  # spring forward
        (date(2026, 11, 1), "America/New_York", utc(2026, 11, 1, 4), 25),  # fall back
        (date(2026, 3, 9), "America/New_York", utc(2026, 3, 9, 4), 24),
        (date(2026, 3, 29), "Europe/Berlin", utc(2026, 3, 28, 23), 23),
        (date(2026, 3, 12), "Asia/Shanghai", utc(2026, 3, 11, 16), 24),  # no DST
        (date(2026, 3, 12), "Asia/Kolkata", utc(2026, 3, 11, 18, 30), 24),
        (date(2026, 3, 12), "UTC", utc(2026, 3, 12), 24),
    ],
)
def test_calendar_day_bounds(day: date, tz: str, start: datetime, hours: int) -> None:
    window = day_window(day, tz)
    assert window.start == start
    assert window.duration == timedelta(hours=hours)
    assert window.local_date == day
    assert window.start.tzinfo == UTC and window.end.tzinfo == UTC


def test_dst_day_label_shows_both_offsets() -> None:
    window = day_window(date(2026, 3, 8), "America/New_York")
    assert window.label == "2026-03-08 00:00 (UTC-5) ~ 2026-03-09 00:00 (UTC-4)"
    assert day_window(date(2026, 3, 12), "Asia/Kolkata").label.endswith("(UTC+5:30)")


def test_half_open_bounds() -> None:
    window = Window(utc(2026, 3, 12), utc(2026, 3, 13))
    assert window.contains(window.start)
    assert not window.contains(window.end)
    assert window.contains(window.end - timedelta(microseconds=1))
    assert not window.contains(window.start - timedelta(seconds=1))
    assert not window.contains(None)


def test_consecutive_days_tile_without_gaps() -> None:
    days = [day_window(date(2026, 3, 7) + timedelta(days=k), "America/New_York") for k in range(3)]
    assert days[0].end == days[1].start and days[1].end == days[2].start
    assert sum((w.duration for w in days), timedelta()) == timedelta(hours=71)


def test_previous_shifts_by_whole_days() -> None:
    window = day_window(date(2026, 3, 12), "Asia/Shanghai")
    before = window.previous()
    assert before.end == window.start and before.duration == window.duration
    assert before.tz == window.tz


def test_build_window_styles() -> None:
    last = build_window(now=NOW, last="24h", tz="Asia/Shanghai")
    assert (last.start, last.end) == (NOW - timedelta(hours=24), NOW)
    assert last.label == "2026-03-12 11:24 (UTC+8) ~ 2026-03-13 11:24 (UTC+8)"
    assert build_window(now=NOW) == last.__class__(NOW - timedelta(hours=24), NOW, "UTC")
    naive = build_window(now=NOW, since="2026-03-12T08:00", tz="Asia/Shanghai")
    assert naive.start == utc(2026, 3, 12) and naive.end == NOW
    explicit = build_window(
        now=NOW, since="2026-03-12T08:00+08:00", until="2026-03-12T10:00Z", tz="America/New_York"
    )
    assert (explicit.start, explicit.end) == (utc(2026, 3, 12), utc(2026, 3, 12, 10))
    on_date = build_window(now=NOW, on_date="2026-03-08", tz="America/New_York")
    assert on_date == day_window(date(2026, 3, 8), "America/New_York")


def test_to_json_is_utc_with_z() -> None:
    window = day_window(date(2026, 3, 12), "Asia/Shanghai")
    assert window.to_json() == {
        "start": "2026-03-11T16:00:00Z",
        "end": "2026-03-12T16:00:00Z",
        "tz": "Asia/Shanghai",
    }
    assert iso_z(datetime(2026, 3, 12, 8, tzinfo=timezone(timedelta(hours=8)))) == (
        "2026-03-12T00:00:00Z"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [("24h", timedelta(hours=24)), ("2d", timedelta(days=2)), ("90m", timedelta(minutes=90)),
     (" 1w ", timedelta(weeks=1))],
)  # fmt: skip
def test_durations(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize("text", ["0h", "24", "h", "-2d", "2y", "1.5h", ""])
def test_bad_durations(text: str) -> None:
    with pytest.raises(ConfigError, match=r"e\.g\. 24h"):
        parse_duration(text)


def test_offsets_and_local_format() -> None:
    moment = utc(2026, 7, 1, 12)
    assert utc_offset_label(moment, day_window(date(2026, 7, 1), "America/New_York").zone) == (
        "UTC-4"
    )
    assert format_local(moment, UTC) == "2026-07-01 12:00 (UTC)"
    assert parse_instant("2026-03-12T03:24:00Z") == utc(2026, 3, 12, 3, 24)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"since": "2026-03-13", "until": "2026-03-12"}, "empty window"),
        ({"since": "2026-03-12", "until": "2026-03-12"}, "empty window"),
        ({"until": "2026-03-12"}, "--until needs --since"),
        ({"on_date": "2026-03-12", "last": "2h"}, "choose one"),
        ({"on_date": "2026-03-12", "since": "2026-03-11"}, "choose one"),
        ({"on_date": "12/03/2026"}, "YYYY-MM-DD"),
        ({"on_date": "2026-02-30"}, "YYYY-MM-DD"),
        ({"since": "yesterday"}, "ISO 8601"),
        ({"tz": "Mars/Olympus"}, "unknown time zone"),
        ({"last": "soon"}, "24h"),
    ],
)
def test_impossible_windows_are_config_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        build_window(now=NOW, **kwargs)


def test_naive_bounds_are_refused() -> None:
    with pytest.raises(ConfigError, match="time zone"):
        Window(datetime(2026, 3, 12), datetime(2026, 3, 13))


def test_iso_week_and_month_in_the_project_time_zone():
    from devdigest.window import month_window, period_name, previous_period, week_window

    week = week_window("2026-W11", "Asia/Shanghai")
    assert week.label == "2026-03-09 00:00 (UTC+8) ~ 2026-03-16 00:00 (UTC+8)"
    assert period_name(week) == "2026-W11" and week.is_period
    assert period_name(previous_period(week)) == "2026-W10"
    month = month_window("2026-03", "America/New_York")  # DST starts on 2026-03-08
    assert month.duration == timedelta(days=31, hours=-1)
    assert period_name(month) == "2026-03"
    assert period_name(previous_period(month)) == "2026-02"
    january = previous_period(month_window("2026-01", "UTC"))
    assert period_name(january) == "2025-12"
    assert not build_window(now=NOW, on_date="2026-03-12").is_period


def test_period_days_tile_the_window():
    from itertools import pairwise

    from devdigest.window import month_window, period_days

    for window in (
        month_window("2026-03", "America/New_York"),
        build_window(
            now=NOW, since="2026-03-01T05:00", until="2026-03-04T07:30", tz="Asia/Shanghai"
        ),
    ):
        days = period_days(window)
        assert days[0].start == window.start and days[-1].end == window.end
        assert all(a.end == b.start for a, b in pairwise(days))
    assert len(period_days(month_window("2026-02", "UTC"))) == 28


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"week": "2026-W60"}, "bad --week"),
        ({"week": "2026-11"}, "bad --week"),
        ({"month": "2026-13"}, "bad --month"),
        ({"month": "2026-03", "on_date": "2026-03-01"}, "choose one"),
        ({"week": "2026-W11", "month": "2026-03"}, "choose one"),
    ],
)
def test_bad_period_options_say_how_to_fix(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        build_window(now=NOW, **kwargs)


def test_completed_period_is_the_last_one_that_ended():
    from devdigest.window import completed_period, period_name

    monday_morning = datetime(2026, 3, 16, 1, 0, tzinfo=UTC)  # 09:00 Monday in Shanghai
    assert period_name(completed_period("week", monday_morning, "Asia/Shanghai")) == "2026-W11"
    assert period_name(completed_period("week", monday_morning, "America/New_York")) == "2026-W10"
    assert period_name(completed_period("month", monday_morning, "UTC")) == "2026-02"
    assert (
        period_name(completed_period("month", datetime(2026, 1, 1, tzinfo=UTC), "UTC")) == "2025-12"
    )
    with pytest.raises(ConfigError, match="use week or month"):
        completed_period("year", monday_morning, "UTC")
