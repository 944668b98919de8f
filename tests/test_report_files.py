"""Report files and site days are named by window unless the window is the project's day."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from devdigest.cli import main
from devdigest.config import Config, Project, Schedule
from devdigest.models import DailyReport
from devdigest.report import report_path
from devdigest.site import build_from_reports
from devdigest.site.layout import collect_layout
from devdigest.window import Window, day_window
from tests.helpers import store_from_dataset
from tests.site_reports import make_report
from tests.test_site import small_config
from tests.test_stats_cli import hard_cases

REPO = "vllm-project/vllm"
SHANGHAI_DAY = day_window(date(2026, 3, 12), "Asia/Shanghai")


def with_window(report: DailyReport, window: Window) -> DailyReport:
    info = report.window.model_copy(
        update={"start": window.start, "end": window.end, "tz": window.tz, "label": window.label}
    )
    return report.model_copy(update={"window": info})


@pytest.mark.parametrize(
    ("window", "day_tz", "stem"),
    [
        (SHANGHAI_DAY, "Asia/Shanghai", "2026-03-12"),
        (SHANGHAI_DAY, None, "2026-03-12T0000+0800_24h"),  # no project known: by window
        (SHANGHAI_DAY, "UTC", "2026-03-12T0000+0800_24h"),  # not the project's day
        (
            Window(
                SHANGHAI_DAY.start + timedelta(hours=11, minutes=24),
                SHANGHAI_DAY.end + timedelta(hours=11, minutes=24),
                "Asia/Shanghai",
            ),
            "Asia/Shanghai",
            "2026-03-12T1124+0800_24h",
        ),
        (
            Window(
                datetime(2026, 3, 12, 6, tzinfo=UTC), datetime(2026, 3, 12, 7, 30, 15, tzinfo=UTC)
            ),
            "UTC",
            "2026-03-12T0600+0000_5415s",
        ),
        (day_window(date(2026, 3, 8), "America/New_York"), "America/New_York", "2026-03-08"),
        (Window(SHANGHAI_DAY.start, SHANGHAI_DAY.end, "UTC"), "Asia/Shanghai", "2026-03-12"),
    ],
)
def test_file_names(window: Window, day_tz: str | None, stem: str) -> None:
    report = with_window(make_report(lang="en"), window)
    config = Config(projects=[Project(repo=REPO, tz=day_tz)]) if day_tz else None
    assert report_path("out", report, "md", config) == Path(f"out/{REPO}/{stem}.en.md")


def test_a_projects_scheduled_window_is_named_by_its_date() -> None:
    start = SHANGHAI_DAY.start + timedelta(hours=11, minutes=24)
    report = with_window(make_report(lang="zh"), Window(start, start + timedelta(days=1), "UTC"))
    schedule = Schedule(cutoff="11:24", window="24h")
    config = Config(projects=[Project(repo=REPO, tz="Asia/Shanghai", schedule=schedule)])
    assert report_path("out", report, "md", config) == Path(f"out/{REPO}/2026-03-12.zh.md")
    other = with_window(report, Window(start, start + timedelta(hours=12), "UTC"))
    assert report_path("out", other, "md", config).name == "2026-03-12T0324+0000_12h.zh.md"


def test_two_windows_starting_on_one_date_keep_their_files(tmp_path, capsys) -> None:
    db = str(tmp_path / "db.sqlite3")
    store_from_dataset(hard_cases(), db).close()
    out = tmp_path / "out"
    base = ["--db", db, "report", "acme/widgets", "--no-sync", "--lang", "both", "--out", str(out)]
    assert main([*base, "--date", "2026-03-08"]) == 0
    since = ["--since", "2026-03-08T06:00:00Z", "--until", "2026-03-09T06:00:00Z"]
    assert main([*base, *since]) == 0
    folder = out / "acme" / "widgets"
    assert sorted(p.name for p in folder.iterdir()) == [
        f"{stem}.{lang}.{ext}"
        for stem in ("2026-03-08", "2026-03-08T0600+0000_24h")
        for lang in ("en", "zh")
        for ext in ("json", "md")
    ]
    day = DailyReport.model_validate_json((folder / "2026-03-08.en.json").read_text("utf-8"))
    assert day.window.start == datetime(2026, 3, 8, tzinfo=UTC)


def _windows_by_day(reports: list[DailyReport], tz: str = "UTC") -> dict[str, set]:
    config = small_config()
    config.projects[0].tz = tz
    layout = collect_layout([r for r in reports], config)  # type: ignore[arg-type]
    project = next(p for p in layout.projects if p.repo == "vllm-project/vllm")
    return {
        day: {(r.lang, r.window.start, r.window.end) for r in project.days[day].values()}
        for day in project.dates
    }


def test_site_day_never_mixes_windows() -> None:
    from devdigest.site.layout import ReportHead

    rolling = Window(
        SHANGHAI_DAY.start + timedelta(hours=11),
        SHANGHAI_DAY.end + timedelta(hours=11),
        "Asia/Shanghai",
    )
    later = Window(
        rolling.start + timedelta(hours=1), rolling.end + timedelta(hours=1), "Asia/Shanghai"
    )
    reports = [
        with_window(make_report(lang="zh"), rolling),
        with_window(make_report(lang="en"), rolling),
        with_window(make_report(lang="zh"), later),  # newer window, zh only
    ]
    heads = [ReportHead.from_report(r) for r in reports]
    days = _windows_by_day(heads)
    assert days == {"2026-03-12": {("zh", later.start, later.end)}}
    heads.append(ReportHead.from_report(with_window(make_report(lang="en"), SHANGHAI_DAY)))
    days = _windows_by_day(heads, tz="Asia/Shanghai")  # the project's own day wins
    assert days == {"2026-03-12": {("en", SHANGHAI_DAY.start, SHANGHAI_DAY.end)}}


def test_site_pages_of_one_day_show_one_window(tmp_path) -> None:
    rolling = Window(
        SHANGHAI_DAY.start + timedelta(hours=11),
        SHANGHAI_DAY.end + timedelta(hours=11),
        "Asia/Shanghai",
    )
    reports = [
        with_window(make_report(lang="zh"), rolling),
        with_window(make_report(lang="en"), SHANGHAI_DAY),
        with_window(make_report(lang="zh"), SHANGHAI_DAY),
    ]
    out = tmp_path / "site"
    config = small_config()
    config.projects[0].tz = "Asia/Shanghai"
    build_from_reports(reports, config, out)
    for name in ("2026-03-12.html", "2026-03-12.en.html"):
        page = (out / "vllm-project/vllm" / name).read_text("utf-8")
        assert "2026-03-12 00:00 (UTC+8)" in page and "11:00 (UTC+8)" not in page, name
