"""``devdigest sync`` and ``devdigest stats`` run in-process against the fake GitHub server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from devdigest.cli import main
from devdigest.github import sync as gh_sync
from devdigest.sample.dataset import Dataset, generate_day
from devdigest.window import day_window, iso_z
from tests.fakes.github_server import FakeClock, FakeGitHub
from tests.fakes.oracle import expected

TOKEN = "cli-token"
NY_DST_DAY = date(2026, 3, 8)  # America/New_York springs forward: a 23-hour day
NY = day_window(NY_DST_DAY, "America/New_York")
NOW = datetime(2026, 3, 10, 12, tzinfo=UTC)


def h(hours: float, base: datetime = NY.start) -> datetime:
    return base + timedelta(hours=hours)


def hard_cases() -> Dataset:
    """Items at the edges of the New York DST day ``[NY.start, NY.end)``."""
    ds = Dataset(repo="acme/widgets", start=h(-72), end=NOW)
    add = ds.add_item
    add(1, created_at=h(-30), title="created before, closed inside", closed_at=h(3))
    add(2, is_pr=True, created_at=h(-5), title="merged exactly at start", merged_at=NY.start)
    add(3, is_pr=True, created_at=h(-5), title="merged exactly at end", merged_at=NY.end)
    add(4, is_pr=True, created_at=h(1), title="closed without merge", closed_at=h(2))
    add(5, created_at=h(-50), title="closed inside, then reopened", closed_at=h(4))
    ds.reopen(5, h(5))
    add(6, created_at=h(-50), title="closed before, reopened and closed inside", closed_at=h(-20))
    ds.reopen(6, h(6))
    ds.close(6, h(7), "not_planned")
    add(7, is_pr=True, created_at=h(8), title="draft PR", draft=True)
    add(8, created_at=h(9), title="by a deleted user", author=None)
    add(9, created_at=NY.start, title="created exactly at start")
    add(10, created_at=NY.end, title="created exactly at end")
    add(11, is_pr=True, created_at=h(-40), title="closed unmerged, reopened, merged inside")
    ds.close(11, h(-30))
    ds.reopen(11, h(1))
    ds.merge(11, h(10))
    add(12, is_pr=True, created_at=h(-3), title="closed unmerged at end", closed_at=NY.end)
    add(13, created_at=h(20), title="local evening, next UTC day", closed_at=h(22))
    ds.add_comment(8, None, h(9.5), "ghost comment")
    ds.add_review(7, None, h(9), "COMMENTED", body="review by a deleted user")
    ds.add_review_comment(4, "bob", h(1.5), "nit")
    return ds


class Cli:
    """``devdigest`` with a private database, config file and environment."""

    def __init__(self, url: str, tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.url, self.capsys = url, capsys
        self.db = str(tmp / "cli.sqlite3")
        self.config = tmp / "devdigest.toml"
        self.config.write_text("")

    def __call__(self, *args: str) -> tuple[int, str, str]:
        self.capsys.readouterr()
        argv = ["--config", str(self.config), "--db", self.db, "--github-api-url", self.url]
        code = main([*argv, *args])
        out, err = self.capsys.readouterr()
        return code, out, err

    def stats(self, repo: str, *args: str) -> dict:
        code, out, err = self(*("stats", repo, "--json", "--no-sync", *args))
        assert code == 0, err
        assert len(out.strip().splitlines()) == 1
        return json.loads(out)


def _environment(monkeypatch: pytest.MonkeyPatch, clock: FakeClock, token: str | None) -> None:
    for name in ("GITHUB_TOKEN", "DEVDIGEST_GITHUB_TOKEN", "DEVDIGEST_DB", "DEVDIGEST_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    if token:
        monkeypatch.setenv("DEVDIGEST_GITHUB_TOKEN", token)
    monkeypatch.setitem(gh_sync.CLIENT_OVERRIDES, "clock", clock.now)
    monkeypatch.setitem(gh_sync.CLIENT_OVERRIDES, "sleeper", clock.sleep)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(NOW)


@pytest.fixture
def hard() -> Dataset:
    return hard_cases()


@pytest.fixture
def cli(
    hard: Dataset, clock: FakeClock, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Cli]:
    _environment(monkeypatch, clock, TOKEN)
    with FakeGitHub(hard, clock=clock, tokens={TOKEN}) as server:
        runner = Cli(server.url, tmp_path, capsys)
        runner.server = server
        yield runner


def check(ds: Dataset, payload: dict, at: datetime) -> None:
    start = datetime.fromisoformat(payload["window"]["start"])
    end = datetime.fromisoformat(payload["window"]["end"])
    oracle = expected(ds, start, end, at=at)
    assert payload["items"] == oracle["items"]
    assert payload["counts"] == oracle["counts"]


def test_hard_cases_match_the_oracle(cli: Cli, hard: Dataset, clock: FakeClock) -> None:
    code, out, _ = cli("sync", hard.repo, "--since", "2026-03-01T00:00:00Z")
    assert code == 0 and out.startswith(f"synced {hard.repo}: 13 items")
    ny = cli.stats(hard.repo, "--date", "2026-03-08", "--tz", "America/New_York")
    assert ny["window"] == {
        "start": "2026-03-08T05:00:00Z",
        "end": "2026-03-09T04:00:00Z",
        "tz": "America/New_York",
    }
    assert ny["items"] == {
        "new_issues": [8, 9, 13],
        "closed_issues": [1, 6, 13],
        "new_prs": [4, 7],
        "merged_prs": [2, 11],
        "closed_unmerged_prs": [4],
    }
    check(hard, ny, clock.now())
    windows = [
        ("--date", "2026-03-08", "--tz", "Asia/Shanghai"),
        ("--date", "2026-03-09", "--tz", "Asia/Shanghai"),
        ("--date", "2026-03-08", "--tz", "UTC"),
        ("--date", "2026-03-07", "--tz", "America/New_York"),
        ("--date", "2026-03-09", "--tz", "America/New_York"),
        ("--date", "2026-03-08", "--tz", "Asia/Kolkata"),
        ("--since", iso_z(NY.start), "--until", iso_z(NY.end)),
        ("--since", iso_z(NY.start + timedelta(seconds=1)), "--until", iso_z(NY.end)),
        ("--since", "2026-03-08T00:00", "--until", "2026-03-08T12:00", "--tz", "America/New_York"),
        ("--last", "72h"),
        ("--last", "6d"),
    ]
    for window in windows:
        check(hard, cli.stats(hard.repo, *window), clock.now())


def test_project_time_zone_is_the_default(cli: Cli, hard: Dataset, tmp_path: Path) -> None:
    cli.config.write_text(f'[[projects]]\nrepo = "{hard.repo}"\ntz = "America/New_York"\n')
    cli("sync", hard.repo, "--since", "2026-03-01T00:00:00Z")
    payload = cli.stats(hard.repo, "--date", "2026-03-08")
    assert payload["window"]["tz"] == "America/New_York"
    assert payload["window"]["start"] == iso_z(NY.start)


def test_text_output_has_the_label_and_five_counts(cli: Cli, hard: Dataset) -> None:
    cli("sync", hard.repo, "--since", "2026-03-01T00:00:00Z")
    code, out, _ = cli("stats", hard.repo, "--date", "2026-03-08", "--tz", "America/New_York")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"{hard.repo}  2026-03-08 00:00 (UTC-5) ~ 2026-03-09 00:00 (UTC-4)"
    counts = [int(line.split()[-1]) for line in lines[1:]]
    assert counts == [3, 3, 2, 2, 1]


def test_stats_syncs_what_the_window_needs(cli: Cli, hard: Dataset, clock: FakeClock) -> None:
    code, out, err = cli(
        "stats", hard.repo, "--json", "--date", "2026-03-08", "--tz", "America/New_York"
    )
    assert code == 0 and "synced" in err
    check(hard, json.loads(out), clock.now())
    listing = next(r for r in cli.server.requests if r.path.endswith("/issues"))
    assert listing.query["since"] == iso_z(NY.start)
    cli.server.reset_log()
    code, out, err = cli("stats", hard.repo, "--json", "--date", "2026-03-09")
    # the server's clock, the repository, 3 listings, state events
    assert code == 0 and len(cli.server.requests) <= 6


def test_sync_twice_is_incremental_and_summarised(cli: Cli, hard: Dataset) -> None:
    cli("sync", hard.repo, "--days", "9")
    cli.server.reset_log()
    code, out, _ = cli("sync", hard.repo)
    assert code == 0
    requests = len(cli.server.requests)
    not_modified = sum(r.was_304 for r in cli.server.requests)
    assert requests <= 5
    assert f"{requests} requests, {not_modified} not modified (304)" in out


def test_anonymous_use_is_noted_once(
    hard: Dataset, clock: FakeClock, tmp_path: Path, capsys, monkeypatch
) -> None:
    _environment(monkeypatch, clock, None)
    with FakeGitHub(hard, clock=clock) as server:
        code, _, err = Cli(server.url, tmp_path, capsys)("sync", hard.repo, "--days", "9")
        assert "authorization" not in server.requests[0].headers
    assert code == 0
    assert err.count("60 requests/hour") == 1 and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("stats", "acme/nothing", "--last", "24h"), "repository acme/nothing not found"),
        (("stats", "not-a-repo", "--last", "24h"), "write it as OWNER/NAME"),
        (("stats", "acme/widgets", "--since", "2026-03-09", "--until", "2026-03-08"), "empty"),
        (("stats", "acme/widgets", "--date", "2026-03-08", "--last", "2h"), "choose one"),
        (("stats", "acme/widgets", "--tz", "Mars/Base"), "unknown time zone"),
        (("sync", "acme/widgets", "--since", "yesterday"), "bad time"),
        (("sync", "acme/widgets", "--since", "2026-03-01", "--days", "2"), "choose one"),
    ],
)
def test_errors_are_one_line(cli: Cli, args: tuple[str, ...], message: str) -> None:
    code, out, err = cli(*args)
    assert code == 1 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]


def test_bad_token_and_unreachable_api(cli: Cli, hard: Dataset, monkeypatch) -> None:
    monkeypatch.setenv("DEVDIGEST_GITHUB_TOKEN", "wrong")
    code, _, err = cli("sync", hard.repo)
    assert code == 1 and "401 Bad credentials): check DEVDIGEST_GITHUB_TOKEN" in err
    cli.url = "http://127.0.0.1:9"
    code, _, err = cli("sync", hard.repo)
    assert code == 1 and "http://127.0.0.1:9" in err and "--github-api-url" in err


def test_no_wait_stops_with_a_resumable_error(cli: Cli, hard: Dataset, clock: FakeClock) -> None:
    cli.server.set_remaining(0, TOKEN)
    code, _, err = cli("sync", hard.repo, "--no-wait")
    assert code == 1 and "rate limit" in err and "--no-wait" in err
    assert clock.slept == []


def test_generated_day_on_many_windows(tmp_path: Path, capsys, monkeypatch) -> None:
    ds = generate_day(seed=1)
    clock = FakeClock(ds.end)
    _environment(monkeypatch, clock, TOKEN)
    with FakeGitHub(ds, clock=clock, tokens={TOKEN}) as server:
        cli = Cli(server.url, tmp_path, capsys)
        assert cli("sync", ds.repo, "--since", iso_z(ds.end - timedelta(hours=8)))[0] == 0
    end = ds.end
    windows = [("--last", "6h"), ("--last", "90m")]
    windows += [("--date", end.date().isoformat(), "--tz", tz) for tz in ("UTC", "Europe/Berlin")]
    for k in range(0, 6, 2):
        start = end - timedelta(hours=k + 2)
        windows.append(("--since", iso_z(start), "--until", iso_z(start + timedelta(hours=2))))
    for window in windows:
        check(ds, cli.stats(ds.repo, *window), clock.now())


def test_waiting_is_said_on_stderr_with_its_end(cli: Cli, hard: Dataset) -> None:
    cli.server.fail(502, times=2, path=r"/issues\?")
    cli.server.set_remaining(55, TOKEN)  # below the reserve after a few requests
    code, _, err = cli("sync", hard.repo, "--days", "2")
    assert code == 0
    waits = [line for line in err.splitlines() if "waiting" in line]
    retries = [line for line in waits if "server error 502" in line]
    limits = [line for line in waits if "rate limit" in line]
    assert len(retries) == 2 and len(limits) == 1
    assert all(" UTC (" in line and " local)" in line for line in waits)


def test_a_wrong_local_clock_follows_the_server_for_windows_and_days(
    cli: Cli, hard: Dataset, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    ahead = lambda: clock.now() + timedelta(days=30)  # noqa: E731
    monkeypatch.setitem(gh_sync.CLIENT_OVERRIDES, "clock", ahead)
    code, out, _ = cli("sync", hard.repo, "--days", "9")
    assert code == 0 and out.startswith(f"synced {hard.repo}: 13 items")
    code, out, _ = cli("stats", hard.repo, "--json", "--last", "24h")
    assert code == 0
    assert json.loads(out)["window"]["end"] == iso_z(clock.now())
