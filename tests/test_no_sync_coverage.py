"""``--no-sync`` on a window the store does not fully cover refuses or warns, naming the range."""

from __future__ import annotations

from datetime import timedelta

from devdigest.store import open_store
from tests import test_stats_cli as stats_cli
from tests.helpers import fill_store, make_item
from tests.test_stats_cli import NOW, Cli

cli, clock, hard = stats_cli.cli, stats_cli.clock, stats_cli.hard  # the fixtures

SINCE = "2026-03-05T00:00:00Z"
RANGE = "2026-03-05 00:00 (UTC) to 2026-03-10 12:00 (UTC)"


def test_never_completed_sync_is_refused(cli: Cli, tmp_path) -> None:
    fill_store(open_store(cli.db), [make_item(1)], [], repo="acme/widgets").close()
    code, out, err = cli("stats", "acme/widgets", "--no-sync", "--date", "2026-03-08")
    assert code == 1 and out == ""
    assert err.count("\n") == 1
    assert "no complete sync of acme/widgets" in err and "drop --no-sync" in err


def test_window_older_than_the_stored_history_is_refused(cli: Cli) -> None:
    assert cli("sync", "acme/widgets", "--since", SINCE)[0] == 0
    for command in ("stats", "report"):
        code, out, err = cli(command, "acme/widgets", "--no-sync", "--date", "2026-03-04")
        assert code == 1 and out == "", command
        assert err.count("\n") == 1
        assert f"the store holds acme/widgets from {RANGE}" in err
        assert "starts at 2026-03-04 00:00 (UTC)" in err and "drop --no-sync" in err


def test_window_inside_the_stored_history_needs_no_word(cli: Cli) -> None:
    cli("sync", "acme/widgets", "--since", SINCE)
    code, out, err = cli("stats", "acme/widgets", "--no-sync", "--date", "2026-03-08")
    assert code == 0 and out and err == ""


def test_window_past_the_last_sync_warns(cli: Cli) -> None:
    cli("sync", "acme/widgets", "--since", SINCE)
    code, out, err = cli("stats", "acme/widgets", "--no-sync", "--date", "2026-03-10")
    assert code == 0 and out
    assert err.startswith("note: ") and err.count("\n") == 1
    assert f"the store holds acme/widgets from {RANGE}" in err
    assert "ends at 2026-03-11 00:00 (UTC)" in err


def test_an_interrupted_listing_narrows_the_range(cli: Cli) -> None:
    cli("sync", "acme/widgets", "--since", SINCE)
    store = open_store(cli.db)
    repo_id = store.repo_id("acme/widgets", create=False)
    with store.transaction() as conn:  # as if the comments listing of a later run had stopped
        lagging = NOW - timedelta(days=2, minutes=5)
        store.set_watermark(conn, repo_id, "issue_comments", lagging)
    store.close()
    code, _, err = cli("stats", "acme/widgets", "--no-sync", "--date", "2026-03-09")
    assert code == 0
    assert "from 2026-03-05 00:00 (UTC) to 2026-03-08 12:00 (UTC)" in err
