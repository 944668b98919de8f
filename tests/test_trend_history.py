"""A default ``report`` syncs the week before its window (listings only) so trends have a
baseline (issue 8 item 7)."""

from __future__ import annotations

import re
from datetime import timedelta

from devdigest.analysis.trends import HISTORY_DAYS
from devdigest.config import load_config
from devdigest.report import generate_reports
from devdigest.store import open_store
from devdigest.window import Window, iso_z


def config_for(fake_github, db):
    env = {"DEVDIGEST_GITHUB_TOKEN": "test-token"}
    return load_config(flags={"db": str(db), "github_api_url": fake_github.url}, env=env)


def window_before(end, hours=2, days_back=0):
    stop = end - timedelta(days=days_back)
    return Window(stop - timedelta(hours=hours), stop, "Asia/Shanghai")


def review_calls(fake_github) -> set[int]:
    found = (re.search(r"/pulls/(\d+)/reviews", r.path) for r in fake_github.requests)
    return {int(m.group(1)) for m in found if m}


def test_default_report_has_a_baseline_and_reads_no_old_reviews(tmp_path, fake_github, day_dataset):
    config = config_for(fake_github, tmp_path / "s.sqlite3")
    window = window_before(day_dataset.end)
    with open_store(config.db) as store:
        run = generate_reports(config, store, day_dataset.repo, window, ["zh", "en"])
    assert run.analysis.history_days == HISTORY_DAYS
    since = iso_z(window.start - timedelta(days=HISTORY_DAYS))
    listings = [r for r in fake_github.requests if r.path.endswith("/issues")]
    assert any(r.query.get("since") == since for r in listings)
    comment_listings = [r for r in fake_github.requests if r.path.endswith("/comments")]
    assert all(r.query.get("since", "") > since for r in comment_listings)
    touched = {
        n
        for n, item in day_dataset.items.items()
        if item.is_pr and day_dataset.updated_at(item, day_dataset.end) >= window.start
    }
    assert review_calls(fake_github) <= touched  # no review read for the history's PRs
    en = run.reports[1]
    notes = " ".join(s.text for s in en.trend_notes)
    assert "previous 7 days" in notes

    fake_github.reset_log()
    with open_store(config.db) as store:
        generate_reports(config, store, day_dataset.repo, window, ["en"], writer="offline")
    assert not any(r.query.get("since") == since for r in fake_github.requests)


def test_an_earlier_window_reads_reviews_the_history_skipped(tmp_path, fake_github, day_dataset):
    config = config_for(fake_github, tmp_path / "s.sqlite3")
    late = window_before(day_dataset.end)
    early = window_before(day_dataset.end, hours=6, days_back=3)
    with open_store(config.db) as store:
        generate_reports(config, store, day_dataset.repo, late, ["en"], writer="offline")
        generate_reports(config, store, day_dataset.repo, early, ["en"], writer="offline")
        numbers = [
            n
            for n, item in day_dataset.items.items()
            if item.is_pr and early.contains(day_dataset.updated_at(item, day_dataset.end))
        ]
        assert numbers
        stored = store.comments_for(day_dataset.repo, set(numbers), day_dataset.end)
    for number in numbers:
        expected = {r.id for r in day_dataset.reviews_at(number, day_dataset.end)}
        got = {c.id for c in stored.get(number, []) if c.kind == "review"}
        assert got == expected, number


def test_no_sync_reads_nothing(tmp_path, fake_github, day_dataset):
    config = config_for(fake_github, tmp_path / "s.sqlite3")
    window = window_before(day_dataset.end)
    with open_store(config.db) as store:
        generate_reports(config, store, day_dataset.repo, window, ["en"], writer="offline")
        fake_github.reset_log()
        generate_reports(
            config, store, day_dataset.repo, window, ["en"], writer="offline", no_sync=True
        )
    assert fake_github.requests == []
