"""``devdigest run`` end to end: three projects on the fake GitHub server, catch-up, idempotence,
a failing project, the site."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from devdigest.github import sync as gh_sync
from devdigest.store import open_store
from devdigest.store.runs import last_run
from tests.db import database
from tests.fakes.github_server import FakeClock, FakeGitHub
from tests.fakes.oracle import expected
from tests.run_case import END, datasets, run_cli, write_config

TOKEN = "run-token"


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


# The windows due at END for each project (computed by hand from PROJECTS' schedules).
FIRST = {
    "acme/alpha": [(utc(2026, 3, 12, 3, 24), utc(2026, 3, 13, 3, 24))],
    "acme/beta": [(utc(2026, 3, 12, 3, 24), utc(2026, 3, 13, 3, 24))],
    "acme/gamma": [(utc(2026, 3, 11, 4), utc(2026, 3, 12, 4))],  # midnight EDT (UTC-4)
}


@pytest.fixture(scope="module")
def sets():
    return datasets()


@pytest.fixture
def env(monkeypatch, tmp_path, sets):
    clock = FakeClock(END)
    for name in ("GITHUB_TOKEN", "DEVDIGEST_DB", "DEVDIGEST_CONFIG", "DEVDIGEST_OUT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DEVDIGEST_GITHUB_TOKEN", TOKEN)
    monkeypatch.setitem(gh_sync.CLIENT_OVERRIDES, "clock", clock.now)
    monkeypatch.setitem(gh_sync.CLIENT_OVERRIDES, "sleeper", clock.sleep)
    with FakeGitHub(sets, clock=clock, tokens={TOKEN}) as server, database(tmp_path) as db:
        yield server, clock, db  # SQLite, or PostgreSQL with DEVDIGEST_TEST_DATABASE_URL


def stored(db: str) -> dict[str, list[tuple[datetime, datetime, str]]]:
    with open_store(db) as store:
        found: dict[str, list] = {}
        for report in store.reports():
            found.setdefault(report.repo, []).append(
                (report.window.start, report.window.end, report.lang)
            )
        return found


def test_three_projects_catch_up_and_then_do_nothing(env, tmp_path, sets, capsys):
    server, clock, db = env
    config = write_config(tmp_path / "devdigest.toml", tmp_path, list(FIRST))
    assert run_cli(config, db, server.url, "run") == 0
    assert stored(db) == {repo: [(s, e, "en") for s, e in w] for repo, w in FIRST.items()}
    by_repo = {ds.repo: ds for ds in sets}
    with open_store(db) as store:
        for report in store.reports():
            oracle = expected(by_repo[report.repo], report.window.start, report.window.end)
            assert report.counts.model_dump() == oracle["counts"]
    files = sorted(p.relative_to(tmp_path).as_posix() for p in (tmp_path / "reports").rglob("*"))
    assert "reports/acme/gamma/2026-03-11.en.md" in files
    assert (tmp_path / "site" / "acme" / "beta" / "2026-03-12.html").is_file()
    out = capsys.readouterr().out
    assert all(repo in out for repo in FIRST) and out.count(" ok ") == 3

    # two days later: the missed day is produced late, then the current one
    clock.set(END + timedelta(days=2))
    server.reset_log()
    assert run_cli(config, db, server.url, "run") == 0
    reports = stored(db)
    assert [s.day for s, _, _ in reports["acme/alpha"]] == [12, 13, 14]
    assert [e.day for _, e, _ in reports["acme/gamma"]] == [12, 13, 14]
    repos_synced = [r.path for r in server.requests if r.path.count("/") == 3]
    assert sorted(repos_synced) == [f"/repos/{repo}" for repo in sorted(FIRST)]  # one sync each

    # nothing is due: no GitHub request, nothing written
    server.reset_log()
    site_files = {p: p.stat().st_mtime_ns for p in (tmp_path / "site").rglob("*")}
    capsys.readouterr()
    assert run_cli(config, db, server.url, "run") == 0
    assert server.requests == []
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "site").rglob("*")} == site_files
    assert capsys.readouterr().out.count("up to date") == 3


def test_a_failing_project_does_not_block_the_others(env, tmp_path, capsys):
    server, _clock, db = env
    repos = ["acme/alpha", "acme/missing", "acme/gamma"]
    config = write_config(tmp_path / "devdigest.toml", tmp_path, repos)
    assert run_cli(config, db, server.url, "run") == 1
    captured = capsys.readouterr()
    assert "acme/missing" in captured.out and "failed" in captured.out
    errors = captured.err.strip().splitlines()
    assert errors[0].startswith("acme/missing: repository acme/missing not found")
    assert errors[-1].startswith("error: 1 project(s) failed")
    assert set(stored(db)) == {"acme/alpha", "acme/gamma"}
    home = (tmp_path / "site" / "index.html").read_text("utf-8")
    assert "acme/alpha" in home and "acme/missing" in home  # listed, without reports
    with open_store(db) as store:
        summary = last_run(store)
    assert summary["status"] == "failed"
    failed = [p for p in summary["summary"]["projects"] if p["status"] == "failed"]
    assert [p["repo"] for p in failed] == ["acme/missing"]


def test_one_project_and_both_languages_on_request(env, tmp_path):
    server, _clock, db = env
    config = write_config(tmp_path / "devdigest.toml", tmp_path, list(FIRST))
    assert run_cli(config, db, server.url, "run", "acme/beta", "--lang", "both") == 0
    assert stored(db) == {"acme/beta": [(*FIRST["acme/beta"][0], lang) for lang in ("en", "zh")]}
    feed = (tmp_path / "site" / "acme" / "beta" / "feed.xml").read_text("utf-8")
    assert "https://digest.example.org/acme/beta/2026-03-12.html" in feed  # site_url


def test_backfill_writes_every_day_with_one_sync(env, tmp_path):
    server, _clock, db = env
    config = write_config(tmp_path / "devdigest.toml", tmp_path, ["acme/alpha"])
    args = ("backfill", "acme/alpha", "--since", "2026-03-10", "--until", "2026-03-12")
    assert run_cli(config, db, server.url, *args) == 0
    days = [s for s, _, _ in stored(db)["acme/alpha"]]
    assert days == [utc(2026, 3, d, 3, 24) for d in (10, 11, 12)]
    listings = [r for r in server.requests if r.path.endswith(("/issues", "/comments"))]
    start = "2026-03-10T03:24:00Z"  # each listing reads forward from the range start once
    assert all(r.query["since"] >= start for r in listings)
    firsts = sorted(r.path for r in listings if r.query["since"] == start)
    assert firsts == sorted({r.path for r in listings})  # one pass over the range, not per day
    assert sum(r.path == "/repos/acme/alpha" for r in server.requests) == 1
    server.reset_log()
    assert run_cli(config, db, server.url, *args) == 0  # already written: nothing to do
    assert server.requests == []
    # the charts end at the latest report, not at the wall clock (months later)
    home = (tmp_path / "site" / "index.html").read_text("utf-8")
    spark = home[home.index('<svg class="spark"') : home.index("</svg>", home.index("spark"))]
    assert spark.count("<rect") == 3  # the last three of its 30 days have reports
    page = (tmp_path / "site" / "acme" / "alpha" / "index.html").read_text("utf-8")
    assert page.count("<circle") == 3 * 3  # three series, three days
