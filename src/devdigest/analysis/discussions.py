"""Hot discussions: threads with in-window human conversation, ranked.

A thread counts only when at least two distinct humans wrote text in it during the window: a
review without text, or one that only approves ("LGTM", "+1"), is not discussion. The item author
is a participant only if they wrote in the window (a comment or review), or opened the item in
the window with a non-empty body (its body is then in-window writing).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping

from devdigest.analysis.types import Thread
from devdigest.models import CommentRecord, ItemRecord
from devdigest.window import Window

PARTICIPANT_WEIGHT = 2.0
REACTIONS_PER_POINT = 4.0
LIGHT_REVIEW_WEIGHT = 0.25  # a COMMENTED review with no text (a container for inline comments)
MIN_PARTICIPANTS = 2
DECISIVE_REVIEWS = ("APPROVED", "CHANGES_REQUESTED")

_BARE_APPROVAL = re.compile(
    r"^\s*(lgtm|\+1|👍|looks good( to me)?|ship it|approved?|sgtm)\b[\s!.,:;]*"
    r"((thanks|thank you)[^.!?]{0,40})?[\s!.]*$",
    re.I,
)
_BARE_REF = re.compile(r"(?<![\w/&#])#(\d{1,7})\b")
_QUALIFIED_REF = re.compile(r"(?<![\w/])([\w.-]+/[\w.-]+)#(\d{1,7})\b")
_URL_REF = re.compile(r"https?://[^\s/]+/([\w.-]+/[\w.-]+)/(?:issues|pull)/(\d{1,7})\b")


def linked_numbers(text: str, repo: str | None = None, exclude: int | None = None) -> list[int]:
    """Item numbers referenced in ``text``: ``#123``, ``Fixes #123``, ``owner/repo#123`` and
    ``https://HOST/owner/repo/issues/123`` (``/pull/`` too) when they name ``repo``.

    In order of first mention, without duplicates and without ``exclude`` (the item itself).
    """
    found: list[tuple[int, int]] = [(m.start(), int(m.group(1))) for m in _BARE_REF.finditer(text)]
    if repo:
        same = repo.casefold()
        for pattern in (_QUALIFIED_REF, _URL_REF):
            found += [
                (m.start(), int(m.group(2)))
                for m in pattern.finditer(text)
                if m.group(1).casefold() == same
            ]
    numbers = [n for _, n in sorted(found) if n != exclude and n > 0]
    return list(dict.fromkeys(numbers))


def is_light_review(comment: CommentRecord) -> bool:
    """A review that only carries inline comments: state COMMENTED (or DISMISSED), no text."""
    return (
        comment.kind == "review"
        and comment.review_state not in DECISIVE_REVIEWS
        and not comment.body.strip()
    )


def is_bare_approval(text: str) -> bool:
    """An approval and nothing else: "LGTM", "+1", "Looks good, thanks!"."""
    return bool(_BARE_APPROVAL.match(" ".join(text.split())))


def wrote_text(comment: CommentRecord) -> bool:
    """Whether the comment says something beyond an approval."""
    return bool(comment.body.strip()) and not is_bare_approval(comment.body)


def comments_complete(item: ItemRecord, stored: Iterable[CommentRecord]) -> bool:
    """Whether the store holds every conversation comment GitHub counts on ``item`` (bots too)."""
    return sum(1 for c in stored if c.kind == "issue_comment") >= item.comments


def comment_weight(comment: CommentRecord) -> float:
    return LIGHT_REVIEW_WEIGHT if is_light_review(comment) else 1.0


def human_in_window(comments: Iterable[CommentRecord], window: Window) -> list[CommentRecord]:
    """Comments and reviews written by humans inside the window, oldest first."""
    kept = [c for c in comments if not c.is_bot and window.contains(c.created_at)]
    return sorted(kept, key=lambda c: (c.created_at, c.id))


def thread_participants(
    item: ItemRecord, comments: list[CommentRecord], window: Window
) -> list[str]:
    """Distinct humans who wrote text in the window, in order of first appearance."""
    writers: list[tuple] = [(c.created_at, c.id, c.author) for c in comments if wrote_text(c)]
    if window.contains(item.created_at) and not item.is_bot and item.body.strip():
        writers.append((item.created_at, -1, item.author))
    return list(dict.fromkeys(login for *_, login in sorted(writers)))


def build_thread(
    item: ItemRecord, comments: list[CommentRecord], window: Window, repo: str | None = None
) -> Thread:
    """``comments`` are the item's in-window human comments, oldest first."""
    participants = thread_participants(item, comments, window)
    reactions = sum(c.reactions for c in comments)
    if window.contains(item.created_at):
        reactions += item.reactions  # the rollup has no times; count it only for new items
    weight = sum(comment_weight(c) for c in comments)
    score = weight + PARTICIPANT_WEIGHT * len(participants) + reactions / REACTIONS_PER_POINT
    return Thread(
        item=item,
        comments=[c for c in comments if not is_light_review(c)],
        participants=participants,
        reactions=reactions,
        score=round(score, 3),
        linked=linked_numbers(item.body, repo, exclude=item.number),
    )


def compute_threads(
    items: Mapping[int, ItemRecord],
    comments: Iterable[CommentRecord],
    window: Window,
    limit: int = 5,
    repo: str | None = None,
) -> list[Thread]:
    """The top ``limit`` threads with ≥ 2 human participants, by score then activity.

    ``comments`` may include bots and out-of-window rows; both are dropped here.
    """
    threads = [t for t in _all_threads(items, comments, window, repo) if _qualifies(t)]
    threads.sort(key=lambda t: (-t.score, -len(t.comments), -t.item.number))
    return threads[:limit]


def compute_busiest(
    items: Mapping[int, ItemRecord],
    comments: Iterable[CommentRecord],
    window: Window,
    limit: int = 3,
) -> list[Thread]:
    """The threads with the most in-window human comments (named when none qualifies)."""
    threads = [t for t in _all_threads(items, comments, window, None) if t.comments]
    threads.sort(key=lambda t: (-len(t.comments), -t.item.number))
    return threads[:limit]


def _qualifies(thread: Thread) -> bool:
    return len(thread.participants) >= MIN_PARTICIPANTS


def _all_threads(
    items: Mapping[int, ItemRecord],
    comments: Iterable[CommentRecord],
    window: Window,
    repo: str | None,
) -> list[Thread]:
    by_number: dict[int, list[CommentRecord]] = defaultdict(list)
    for comment in human_in_window(comments, window):
        by_number[comment.number].append(comment)
    return [
        build_thread(items[number], rows, window, repo)
        for number, rows in by_number.items()
        if number in items
    ]
