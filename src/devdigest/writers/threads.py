"""Offline writing of the hot discussions (key changes and the watch list: ``readings``)."""

from __future__ import annotations

from devdigest.analysis.classify import title_tags
from devdigest.analysis.types import Thread
from devdigest.models import CommentRecord, HotDiscussion, ItemRecord, Statement, Viewpoint
from devdigest.writers.common import Context, is_maintainer, item_link, short_title
from devdigest.writers.describe import stated_facts
from devdigest.writers.extract import (
    best_sentences,
    first_sentence,
    has_disagreement,
    is_bare_approval,
    plain,
    sentences_of,
    trim,
)
from devdigest.writers.phrases import join_list, phrase

MAX_DISCUSSIONS = 5
MAX_VIEWPOINTS = 5
_DECISIVE = ("APPROVED", "CHANGES_REQUESTED", "DISMISSED")


# --- hot discussions ---------------------------------------------------------------------


def write_discussions(ctx: Context) -> list[HotDiscussion]:
    return [_discussion(ctx, t) for t in ctx.analysis.discussions[:MAX_DISCUSSIONS]]


def write_discussion_notes(ctx: Context) -> list[Statement]:
    """When no thread qualifies: one line saying so, naming the most-commented threads."""
    busiest = ctx.analysis.busiest
    if ctx.analysis.discussions or not busiest:
        return []
    named = [
        phrase(ctx.lang, "busy_thread", number=t.item.number, comments=len(t.comments))
        for t in busiest
    ]
    text = phrase(ctx.lang, "no_hot_discussion", threads=join_list(ctx.lang, named))
    return [ctx.statement(text, [t.item.number for t in busiest])]


def _discussion(ctx: Context, thread: Thread) -> HotDiscussion:
    item = thread.item
    return HotDiscussion(
        item=item_link(item),
        comments=len(thread.comments),
        participants=len(thread.participants),
        core_question=ctx.polish(core_question(ctx, item)),
        viewpoints=_viewpoints(ctx, thread),
        contention=ctx.polish(contention(ctx, thread)),
        status=ctx.polish(status(ctx, thread)),
    )


def item_kind(ctx: Context, item: ItemRecord) -> str:
    """pr, bug, proposal, question or issue: from title tags and categories."""
    if item.is_pr:
        return "pr"
    tags = {t.lower() for t in title_tags(item.title)}
    categories = set(ctx.analysis.categories.get(item.number, []))
    if tags & {"rfc", "feature", "feature request"} or "RFCs and feature requests" in categories:
        return "proposal"
    if tags & {"usage", "installation", "doc"}:
        return "question"
    if tags & {"bug", "performance"} or "bug" in item.labels or "Bug fixes" in categories:
        return "bug"
    return "question"


def core_question(ctx: Context, item: ItemRecord) -> str:
    """The thread's question, with what the body states (zh: in Chinese, quoting only when
    nothing else can be read)."""
    lang = ctx.lang
    sentence = first_sentence(item.body, item.title)
    facts = stated_facts(ctx, item) if lang == "zh" else []
    if not item.body.strip():
        detail = phrase(lang, "core_no_body")
    elif facts:
        detail = phrase(lang, "core_facts", facts=phrase(lang, "desc_join").join(facts))
    elif sentence:
        detail = phrase(lang, "core_sentence", text=sentence)
    else:
        detail = ""
    key = {"pr": "core_pr", "bug": "core_bug", "proposal": "core_proposal"}.get(
        item_kind(ctx, item), "core_question"
    )
    return phrase(ctx.lang, key, title=short_title(item.title), sentence=detail)


def _by_author(thread: Thread) -> dict[str, list[CommentRecord]]:
    grouped: dict[str, list[CommentRecord]] = {}
    for comment in thread.comments:
        grouped.setdefault(comment.author, []).append(comment)
    return grouped


def _last_review_state(comments: list[CommentRecord]) -> str | None:
    states = [
        c.review_state for c in comments if c.kind == "review" and c.review_state in _DECISIVE
    ]
    return states[-1] if states else None


def role_of(item: ItemRecord, login: str, comments: list[CommentRecord]) -> str:
    if login == item.author:
        return "author"
    if any(c.kind in ("review", "review_comment") for c in comments):
        return "reviewer"
    if any(is_maintainer(c.author_association) for c in comments):
        return "maintainer"
    return "commenter"


def _viewpoints(ctx: Context, thread: Thread) -> list[Viewpoint]:
    grouped = _by_author(thread)
    logins = [p for p in thread.participants if p in grouped]
    if thread.item.author in logins:  # the author first, then others in order of appearance
        logins.remove(thread.item.author)
        logins.insert(0, thread.item.author)
    out = []
    for login in logins[:MAX_VIEWPOINTS]:
        comments = grouped[login]
        role = role_of(thread.item, login, comments)
        text = position(ctx, thread.item, role, comments)
        out.append(Viewpoint(login=login, role=phrase(ctx.lang, f"role_{role}"), position=text))
    return out


def position(ctx: Context, item: ItemRecord, role: str, comments: list[CommentRecord]) -> str:
    """What ``comments`` (one participant's) say, in their own words where possible."""
    lang = ctx.lang
    state = _last_review_state(comments)
    bodies = [c.body for c in comments if c.body.strip() and not is_bare_approval(c.body)]
    text = best_sentences(bodies) or (trim(plain(bodies[0])) if bodies else None)
    text = ctx.polish(text) if text else None
    if state == "CHANGES_REQUESTED":
        return phrase(lang, "pos_changes", text=text) if text else phrase(lang, "pos_changes_only")
    if state == "APPROVED":
        return (
            phrase(lang, "pos_approved", text=text) if text else phrase(lang, "pos_approved_only")
        )
    if text:
        if role == "author":
            key = "pos_author"
        elif has_disagreement(text):
            key = "pos_concern"
        elif text.rstrip().endswith(("?", "？")):
            key = "pos_question"
        else:
            key = "pos_plain"
        return phrase(lang, key, text=text)
    if any(is_bare_approval(c.body) for c in comments):
        return phrase(lang, "pos_approved_only" if item.is_pr else "pos_plus_one")
    return phrase(lang, "pos_nothing")


def contention(ctx: Context, thread: Thread) -> str:
    lang = ctx.lang
    grouped = _by_author(thread)
    states = {login: _last_review_state(cs) for login, cs in grouped.items()}
    blockers = [login for login, s in states.items() if s == "CHANGES_REQUESTED"]
    approvers = [login for login, s in states.items() if s == "APPROVED"]
    if blockers and approvers:
        return phrase(
            lang,
            "contention_reviews",
            blockers=join_list(lang, blockers),
            approvers=join_list(lang, approvers),
        )
    if blockers:
        return phrase(lang, "contention_blocked", blockers=join_list(lang, blockers))
    others = [c for c in thread.comments if c.author != thread.item.author]
    concern = _marked_sentence(others, has_disagreement)
    if concern:
        return phrase(lang, "contention_concern", who=concern[0], text=concern[1])
    return ""  # no disagreement found in the text: nothing to report


def _marked_sentence(comments: list[CommentRecord], test) -> tuple[str, str] | None:
    best: tuple[int, str, str] | None = None
    for comment in comments:
        for sentence in sentences_of(comment.body):
            if test(sentence) and (best is None or len(sentence) > best[0]):
                best = (len(sentence), comment.author, sentence)
    return (best[1], trim(best[2])) if best else None


def status(ctx: Context, thread: Thread) -> str:
    lang, item = ctx.lang, thread.item
    if item.merged_at is not None:
        return phrase(lang, "status_merged", when=ctx.when(item.merged_at))
    if item.state == "closed" and item.closed_at is not None:
        if item.is_pr:
            return phrase(lang, "status_closed_pr", when=ctx.when(item.closed_at))
        reason = (
            item.state_reason if item.state_reason in ("not_planned", "duplicate") else "completed"
        )
        return phrase(
            lang,
            "status_closed_issue",
            when=ctx.when(item.closed_at),
            reason=phrase(lang, f"reason_{reason}"),
        )
    state_key = "status_open_issue"
    if item.is_pr:
        state_key = "status_draft_pr" if item.draft else "status_open_pr"
    state = phrase(lang, state_key)
    last = thread.comments[-1].author if thread.comments else item.author
    if last == item.author:
        whom = phrase(lang, "whom_reviewers" if item.is_pr else "whom_maintainers")
        return phrase(lang, "status_wait_others", state=state, author=item.author, whom=whom)
    return phrase(lang, "status_wait_author", state=state, last=last, author=item.author)
