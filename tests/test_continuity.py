"""Continuity markers on hand-made histories, read from a real store."""

from __future__ import annotations

from datetime import timedelta

import pytest

from devdigest.analysis.continuity import HOT_RUN_MIN, STALE_DAYS
from devdigest.analysis.memory import compute_markers
from devdigest.store import open_store
from devdigest.writers.continuity import marker_text, write_markers
from tests.helpers import REPO, at, day_window, fill_store, make_comment, make_item, make_pr

DAY = 24  # hours
WINDOW = day_window()  # [T0, T0 + 24h)


def markers_of(tmp_path, items, comments, seen_before=None):
    store = fill_store(open_store(str(tmp_path / "s.sqlite3")), items, comments)
    appendix = store.window_items(REPO, WINDOW.start, WINDOW.end)
    numbers = {i.number for i in items}
    found = compute_markers(
        store,
        REPO,
        WINDOW,
        store.items_by_number(REPO, numbers),
        appendix,
        store.earliest_activity(REPO),
        seen_before,
    )
    store.close()
    return found


def busy_day(number: int, day: int, people=("ann", "bob"), count: int = 3):
    """``count`` comments on ``number`` by ``people`` on the ``day``-th day before the window
    (0 = the window itself)."""
    return [
        make_comment(number, people[k % len(people)], at(2 + k - day * DAY)) for k in range(count)
    ]


def test_hot_three_days_running(tmp_path):
    old = make_item(1, created_at=at(-30 * DAY))  # the store reaches 30 days back
    hot = make_item(7, created_at=at(-10 * DAY))
    comments = [c for day in range(3) for c in busy_day(7, day)]
    found = [m for m in markers_of(tmp_path, [old, hot], comments) if m.kind == "hot_run"]
    assert [(m.number, m.facts["days"], m.facts["at_least"]) for m in found] == [(7, 3, False)]
    assert [d for d, _, _ in found[0].facts["per_day"]] == [
        (WINDOW.start + timedelta(days=k)).date() for k in (-2, -1, 0)
    ]
    text = marker_text(found[0], "en")
    assert text.startswith("#7 has been hot 3 days running") and "9 comments" in text


def test_two_hot_days_or_a_quiet_one_make_no_streak(tmp_path):
    old = make_item(1, created_at=at(-30 * DAY))
    hot = make_item(7, created_at=at(-10 * DAY))
    comments = busy_day(7, 0) + busy_day(7, 1) + busy_day(7, 2, people=("ann",))  # one person
    assert HOT_RUN_MIN == 3
    assert not [m for m in markers_of(tmp_path, [old, hot], comments) if m.kind == "hot_run"]


def test_streak_reaching_the_start_of_the_store_says_at_least(tmp_path):
    hot = make_item(7, created_at=at(-2 * DAY - 1))  # the store begins 2 days before
    comments = [c for day in range(3) for c in busy_day(7, day)]
    found = [m for m in markers_of(tmp_path, [hot], comments) if m.kind == "hot_run"]
    assert (found[0].facts["days"], found[0].facts["at_least"]) == (3, True)
    assert "3 days running (or longer" in marker_text(found[0], "en")


@pytest.mark.parametrize(
    ("silent_days", "stale"), [(STALE_DAYS - 1, False), (STALE_DAYS + 2, True)]
)
def test_stale_after_n_days_without_a_maintainer(tmp_path, silent_days, stale):
    bug = make_item(
        9,
        title="[Bug]: engine crashes on start",
        labels=["bug"],
        created_at=at(-40 * DAY),
    )
    reply = make_comment(9, "maint", at(DAY - silent_days * DAY), author_association="MEMBER")
    user = make_comment(9, "carol", at(3))  # active in the window, not a maintainer
    found = [m for m in markers_of(tmp_path, [bug], [reply, user]) if m.kind == "stale"]
    assert bool(found) is stale
    if stale:
        assert found[0].facts["days"] == silent_days
        assert found[0].facts["last_reply"] == reply.created_at.date()  # the window is in UTC
        assert "no maintainer reply for" in marker_text(found[0], "en")


def test_long_standing_closed_and_merged(tmp_path):
    issue = make_item(
        3, created_at=at(-120 * DAY), state="closed", closed_at=at(5), updated_at=at(5)
    )
    young = make_item(4, created_at=at(-20 * DAY), state="closed", closed_at=at(6))
    pr = make_pr(5, created_at=at(-70 * DAY), merged_at=at(7))
    found = markers_of(tmp_path, [issue, young, pr], [])
    long = {(m.kind, m.number, m.facts["days"]) for m in found if m.kind.startswith("long")}
    assert long == {("long_closed", 3, 120), ("long_merged", 5, 70)}


def test_reverted_names_the_reverted_pr(tmp_path):
    original = make_pr(20, created_at=at(-3 * DAY), merged_at=at(-2 * DAY))
    revert = make_pr(21, title='Revert "Speed up sampler (#20)"', merged_at=at(4))
    found = [m for m in markers_of(tmp_path, [original, revert], []) if m.kind == "reverted"]
    assert [(m.number, m.facts["reverted"]) for m in found] == [(21, 20)]
    assert write_markers(found, "en")[0].refs == [20, 21]


def test_returning_after_a_quiet_spell_and_first_seen(tmp_path):
    old = make_item(2, created_at=at(-60 * DAY))
    earlier = make_comment(2, "ann", at(-30 * DAY))
    today = make_comment(2, "bob", at(2))
    new = make_item(30, author="newbie", created_at=at(1))
    found = markers_of(tmp_path, [old, new], [earlier, today], seen_before={"alice"})
    kinds = {(m.kind, m.number) for m in found}
    assert ("returning", 2) in kinds and ("first_seen", 30) in kinds
    returning = next(m for m in found if m.kind == "returning")
    assert returning.facts["quiet_days"] == 30 and returning.facts["comments"] == 1


def test_period_analysis_on_a_hand_made_week(tmp_path):
    from devdigest.analysis.period import compute_period_analysis
    from devdigest.config import load_config

    week = day_window(hours=7 * DAY)
    old_issue = make_item(
        3, created_at=at(-100 * DAY), state="closed", closed_at=at(30), updated_at=at(30)
    )
    bug = make_item(9, title="[Bug]: hang on start", labels=["bug"], created_at=at(-20 * DAY))
    prs = [make_pr(n, author=a, created_at=at(n)) for n, a in ((40, "ann"), (41, "bob"))]
    prs.append(make_pr(42, author="cyd", created_at=at(5), author_type="Bot"))
    talk = [c for day in (0, -2, -4) for c in busy_day(40, day)]  # days 1, 3 and 5 of the week
    talk = [make_comment(c.number, c.author, c.created_at, kind="review") for c in talk]
    talk.append(make_comment(9, "carol", at(50)))
    store = fill_store(open_store(str(tmp_path / "w.sqlite3")), [old_issue, bug, *prs], talk)
    config = load_config(env={})
    analysis = compute_period_analysis(store, config.model_copy(), REPO, week)
    store.close()
    assert [m.number for m in analysis.long_standing] == [3]
    assert [(m.number, m.facts["days"]) for m in analysis.stale] == [(9, 27)]
    assert [(i.number, len(days)) for i, days in analysis.hot_threads] == [(40, 3)]
    assert analysis.authors == [(1, ["ann", "bob"])]  # tied, not ranked; the bot left out
    assert sum(c.new_prs for _, c in analysis.days) == analysis.counts.new_prs == 3
