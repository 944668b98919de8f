"""Hot discussions: at least two humans in the window, bots excluded, ranked by score."""

from __future__ import annotations

from devdigest.analysis.discussions import compute_busiest, compute_threads, linked_numbers
from tests.helpers import at, bot_comment, day_window, make_comment, make_item, make_review

W = day_window()


def items(*records):
    return {r.number: r for r in records}


def test_one_human_and_bots_is_not_a_discussion() -> None:
    old = make_item(1, created_at=at(-100), author="alice")
    comments = [
        make_comment(1, "bob", at(2)),
        make_comment(1, "bob", at(3)),
        bot_comment(1, at(4)),
        bot_comment(1, at(5), login="github-actions[bot]"),
    ]
    assert compute_threads(items(old), comments, W) == []


def test_two_humans_make_a_discussion() -> None:
    old = make_item(1, created_at=at(-100), author="alice")
    comments = [
        make_comment(1, "bob", at(2)),
        make_comment(1, "carol", at(3)),
        bot_comment(1, at(4)),
    ]
    [thread] = compute_threads(items(old), comments, W)
    assert thread.participants == ["bob", "carol"]
    assert [c.author for c in thread.comments] == ["bob", "carol"]


def test_item_author_counts_only_if_they_wrote_in_window_or_opened_it_there() -> None:
    old = make_item(1, created_at=at(-100), author="alice")
    new = make_item(2, created_at=at(1), author="dave", body="The server hangs on start.")
    comments = [
        make_comment(1, "alice", at(-50)),  # before the window: not a participant
        make_comment(1, "bob", at(2)),
        make_comment(2, "erin", at(3)),
    ]
    threads = compute_threads(items(old, new), comments, W)
    assert [t.item.number for t in threads] == [2]
    assert threads[0].participants == ["dave", "erin"]


def test_out_of_window_comments_are_ignored() -> None:
    old = make_item(1, created_at=at(-100))
    comments = [make_comment(1, "bob", at(2)), make_comment(1, "carol", at(30))]
    assert compute_threads(items(old), comments, W) == []


def test_empty_commented_review_is_light_and_not_participation() -> None:
    old = make_item(1, created_at=at(-100), is_pr=True)
    comments = [
        make_comment(1, "bob", at(2)),
        make_review(1, "carol", at(3), state="COMMENTED", body=""),
    ]
    assert compute_threads(items(old), comments, W) == []
    comments.append(make_review(1, "carol", at(4), state="APPROVED", body="Good change."))
    [thread] = compute_threads(items(old), comments, W)
    assert thread.participants == ["bob", "carol"]
    assert thread.score == 1 + 0.25 + 1 + 2 * 2


def test_an_approval_without_text_is_not_discussion() -> None:
    """The author's new PR body plus a bare approval: one human wrote, nothing was discussed."""
    pr = make_item(1, created_at=at(1), is_pr=True, author="alice", body="Speeds up the sampler.")
    for body in ("", "LGTM", "LGTM, thanks!", "+1"):
        comments = [make_review(1, "bob", at(2), state="APPROVED", body=body)]
        assert compute_threads(items(pr), comments, W) == [], body
    comments = [make_review(1, "bob", at(2), state="APPROVED", body="Nice, the cast was wasted.")]
    assert compute_threads(items(pr), comments, W)[0].participants == ["alice", "bob"]


def test_an_author_with_an_empty_body_did_not_write() -> None:
    new = make_item(1, created_at=at(1), author="alice", body="  ")
    comments = [make_comment(1, "bob", at(2), body="Same here on H100.")]
    assert compute_threads(items(new), comments, W) == []


def test_busiest_threads_are_named_when_nothing_qualifies() -> None:
    a = make_item(1, created_at=at(-100))
    b = make_item(2, created_at=at(-100))
    comments = [make_comment(1, "bob", at(2)), make_comment(1, "bob", at(3))]
    comments += [make_comment(2, "carol", at(4)), bot_comment(2, at(5))]
    assert compute_threads(items(a, b), comments, W) == []
    busiest = compute_busiest(items(a, b), comments, W)
    assert [(t.item.number, len(t.comments)) for t in busiest] == [(1, 2), (2, 1)]


def test_ranking_by_comments_participants_and_reactions() -> None:
    a = make_item(1, created_at=at(-100))
    b = make_item(2, created_at=at(-100))
    c = make_item(3, created_at=at(-100))
    comments = [make_comment(1, who, at(2 + k)) for k, who in enumerate(["u1", "u2"])]
    comments += [make_comment(2, who, at(2 + k)) for k, who in enumerate(["u1", "u2", "u3", "u4"])]
    comments += [make_comment(3, who, at(2 + k)) for k, who in enumerate(["u1", "u2", "u1", "u2"])]
    comments.append(make_comment(1, "u3", at(9), reactions=40))
    threads = compute_threads(items(a, b, c), comments, W)
    scores = {t.item.number: t.score for t in threads}
    # 1: 3 comments + 2*3 + 40/4 = 19; 2: 4 + 2*4 = 12; 3: 4 + 2*2 = 8
    assert scores == {1: 19.0, 2: 12.0, 3: 8.0}
    assert [t.item.number for t in threads] == [1, 2, 3]
    assert [t.item.number for t in compute_threads(items(a, b, c), comments, W, limit=2)] == [1, 2]


def test_linked_numbers_from_body() -> None:
    body = (
        "Fixes #123, related to vllm-project/vllm#456 and other/repo#789.\n"
        "See https://github.com/vllm-project/vllm/issues/1011 and "
        "https://github.com/vllm-project/vllm/pull/1213#issuecomment-1 but not "
        "https://github.com/elsewhere/x/issues/1415, &#1617; or abc#1819. Self: #5"
    )
    assert linked_numbers(body, "vllm-project/vllm", exclude=5) == [123, 456, 1011, 1213]
    assert linked_numbers(body, None, exclude=5) == [123]


def test_thread_carries_links() -> None:
    old = make_item(1, created_at=at(-100), body="Follow-up of #77")
    comments = [make_comment(1, "bob", at(2)), make_comment(1, "carol", at(3))]
    assert compute_threads(items(old), comments, W, repo="o/r")[0].linked == [77]
