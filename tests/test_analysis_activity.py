"""Activity: contributors, first-time contributors, reviewers, time to merge, bots."""

from __future__ import annotations

import statistics

from devdigest.analysis.activity import compute_activity
from tests.helpers import at, bot_comment, day_window, make_comment, make_item, make_pr, make_review

W = day_window()


def test_contributors_authors_and_bots() -> None:
    items = [
        make_item(1, author="alice"),
        make_pr(2, author="bob"),
        make_pr(3, author="dependabot[bot]", author_type="Bot"),
        make_item(4, author="zed", created_at=at(-50)),  # not opened in the window
    ]
    comments = [
        make_comment(4, "carol", at(2)),
        make_comment(4, "zed", at(-3)),  # before the window
        bot_comment(1, at(3)),
        bot_comment(2, at(4), login="github-actions[bot]"),
    ]
    figures = compute_activity(items, comments, [], W)
    assert figures.authors == 2  # alice, bob
    assert figures.contributors == 3  # alice, bob, carol
    assert figures.bots_excluded == ["dependabot[bot]", "github-actions[bot]", "mergify[bot]"]
    assert figures.bot_events == 3


def test_first_time_by_association_only_without_history() -> None:
    items = [
        make_item(1, author="newbie", author_association="FIRST_TIME_CONTRIBUTOR"),
        make_pr(2, author="first", author_association="FIRST_TIMER"),
        make_pr(3, author="regular", author_association="CONTRIBUTOR"),
        make_item(4, author="old", author_association="FIRST_TIMER", created_at=at(-30)),
    ]
    figures = compute_activity(items, [], [], W, seen_before=None)
    assert figures.first_time_contributors == ["first", "newbie"]
    assert figures.first_time_basis == "association"


def test_first_time_by_stored_history() -> None:
    items = [
        make_pr(1, author="regular", author_association="CONTRIBUTOR"),
        make_pr(2, author="unseen", author_association="CONTRIBUTOR"),
        make_pr(3, author="ghost", author_association="NONE"),
    ]
    figures = compute_activity(items, [], [], W, seen_before={"regular"})
    assert figures.first_time_contributors == ["unseen"]
    assert figures.first_time_basis == "association+history"


def test_median_hours_to_merge_matches_statistics_median() -> None:
    created_offsets = [-100.0, -30.5, -2.0, -7.25]
    merged = [
        make_pr(n, created_at=at(h), merged_at=at(n + 1.0)) for n, h in enumerate(created_offsets)
    ]
    expected = statistics.median((n + 1.0) - h for n, h in enumerate(created_offsets))
    figures = compute_activity(merged, [], merged, W)
    assert figures.median_hours_to_merge == round(expected, 2)
    assert figures.merges_measured == 4
    assert compute_activity([], [], [], W).median_hours_to_merge is None


def test_median_hours_to_merge_excludes_bot_prs() -> None:
    human = make_pr(1, created_at=at(-10.0), merged_at=at(2.0))
    bot = make_pr(
        2, author="renovate[bot]", author_type="Bot", created_at=at(1.0), merged_at=at(1.5)
    )
    figures = compute_activity([human, bot], [], [human, bot], W)
    assert (figures.median_hours_to_merge, figures.merges_measured) == (12.0, 1)


def test_top_reviewers_count_reviews_and_review_comments_not_own_pr() -> None:
    pr = make_pr(1, author="alice", created_at=at(-10))
    comments = [
        make_review(1, "bob", at(1)),
        make_comment(1, "bob", at(2), kind="review_comment"),
        make_comment(1, "carol", at(2), kind="review_comment"),
        make_comment(1, "alice", at(3), kind="review_comment"),  # author replying
        make_comment(1, "dave", at(3)),  # an issue comment is not a review
        make_review(1, "mergify[bot]", at(3), author_type="Bot"),
        make_review(1, "erin", at(-3)),  # before the window
    ]
    assert compute_activity([pr], comments, [], W).top_reviewers == [("bob", 2), ("carol", 1)]
