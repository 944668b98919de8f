"""How window options read what people type: fixed offsets such as ``UTC+8`` and naive times."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from devdigest.errors import ConfigError
from devdigest.window import build_window, day_window, resolve_tz

NOW = datetime(2026, 3, 13, 3, 24, tzinfo=UTC)


@pytest.mark.parametrize(
    ("name", "offset"),
    [
        ("UTC+8", timedelta(hours=8)),
        ("UTC+08:00", timedelta(hours=8)),
        ("utc-4", timedelta(hours=-4)),
        ("UTC+5:30", timedelta(hours=5, minutes=30)),
        ("GMT+0545", timedelta(hours=5, minutes=45)),
        ("UTC", timedelta(0)),
    ],
)
def test_fixed_offsets_as_reports_print_them(name: str, offset: timedelta) -> None:
    assert resolve_tz(name).utcoffset(NOW) == offset


@pytest.mark.parametrize("name", ["UTC+15", "UTC+8:75", "CST", "Beijing", "+8"])
def test_unknown_zones_suggest_a_real_name(name: str) -> None:
    with pytest.raises(ConfigError, match=r"Asia/Shanghai.*UTC\+8"):
        resolve_tz(name)


def test_calendar_day_in_a_fixed_offset_is_labelled_as_printed() -> None:
    window = day_window(date(2026, 3, 12), "UTC+8")
    assert window.start == datetime(2026, 3, 11, 16, tzinfo=UTC)
    assert window.label == "2026-03-12 00:00 (UTC+8) ~ 2026-03-13 00:00 (UTC+8)"


def test_naive_times_are_read_in_the_window_zone_and_said_so() -> None:
    notes: list[str] = []
    window = build_window(
        now=NOW, tz="Asia/Shanghai", since="2026-03-12T11:24:00", note=notes.append
    )
    assert window.start == datetime(2026, 3, 12, 3, 24, tzinfo=UTC)
    assert notes == [
        "--since 2026-03-12T11:24:00 has no UTC offset: read in Asia/Shanghai (UTC+8); "
        "write 2026-03-12T11:24:00+08:00 or add Z for UTC to be explicit"
    ]


def test_times_with_an_offset_need_no_note() -> None:
    notes: list[str] = []
    build_window(
        now=NOW,
        tz="Asia/Shanghai",
        since="2026-03-12T03:24:00Z",
        until="2026-03-13T11:24:00+08:00",
        note=notes.append,
    )
    assert notes == []


def test_cli_says_which_zone_and_takes_utc_plus_8(tmp_path, capsys) -> None:
    from devdigest.cli import main
    from devdigest.models import DailyReport
    from tests.helpers import store_from_dataset
    from tests.test_stats_cli import hard_cases

    db = str(tmp_path / "db.sqlite3")
    store_from_dataset(hard_cases(), db).close()
    args = ["--db", db, "report", "acme/widgets", "--no-sync", "--lang", "en"]
    window = ["--since", "2026-03-08T08:00", "--until", "2026-03-09T08:00", "--tz", "UTC+8"]
    assert main([*args, *window, "--out", str(tmp_path / "out")]) == 0
    captured = capsys.readouterr()
    notes = [line for line in captured.err.splitlines() if "no UTC offset" in line]
    assert notes == [
        "note: --since 2026-03-08T08:00 has no UTC offset: read in UTC+8; write "
        "2026-03-08T08:00:00+08:00 or add Z for UTC to be explicit",
        "note: --until 2026-03-09T08:00 has no UTC offset: read in UTC+8; write "
        "2026-03-09T08:00:00+08:00 or add Z for UTC to be explicit",
    ]
    json_path = next(p for p in captured.out.split() if p.endswith(".json"))
    report = DailyReport.model_validate_json(Path(json_path).read_text("utf-8"))
    assert report.window.start == datetime(2026, 3, 8, tzinfo=UTC)
    assert report.window.label == "2026-03-08 08:00 (UTC+8) ~ 2026-03-09 08:00 (UTC+8)"
