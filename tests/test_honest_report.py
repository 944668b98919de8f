"""Sentences the offline writer may only write when the data makes them true (issue 8, class 3)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from devdigest.analysis import compute_window_analysis
from devdigest.config import Config, Project, Rule, load_config
from devdigest.render.markdown import render_markdown
from devdigest.store import open_store
from devdigest.writers.fact_phrases import FACT_PHRASES
from devdigest.writers.offline import write_offline
from tests.helpers import REPO, at, day_window, fill_store, make_comment, make_item, make_pr

NOW = datetime(2026, 3, 14, tzinfo=UTC)
ROCM = Rule(name="AMD/ROCm", name_zh="AMD/ROCm 生态", labels=["rocm"])
TITLE_ONLY = ("标题即其内容", "described by its title only")
NO_REPLY = tuple(  # every wording of "no maintainer reply", in both languages
    text.split("（")[0].rstrip("。.")
    for table in FACT_PHRASES.values()
    for key, text in table.items()
    if key.startswith("watch_no_reply")
)


def config() -> Config:
    base = load_config(env={})
    return base.model_copy(update={"projects": [Project(repo=REPO, focus=[ROCM])]})


def report_of(tmp_path, items, comments, lang):
    store = fill_store(open_store(str(tmp_path / f"{lang}.sqlite3")), items, comments)
    try:
        analysis = compute_window_analysis(store, config(), REPO, day_window(), now=NOW)
    finally:
        store.close()
    report = write_offline(analysis, lang, now=NOW)
    return report, render_markdown(report)


BODIES = {
    1: "Fix HIP graph capture with FP8 quantization on MI300X in one long line without breaks",
    2: "## Purpose\n\n<!-- describe your change -->\n\n## Test Plan\n\npytest tests/rocm",
    3: "### Your current environment\n```text\nROCm 7.0\n```",
}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_entry_claims_title_only_when_a_body_exists(tmp_path, lang):
    title = "[ROCm] Fix HIP graph capture with FP8 quantization on MI300X"
    items = [
        make_pr(n, title=title, body=body, labels=["rocm"], created_at=at(n))
        for n, body in BODIES.items()
    ]
    report, markdown = report_of(tmp_path, items, [], lang)
    assert not any(claim in markdown for claim in TITLE_ONLY)
    empty = make_pr(4, title=title, body="", labels=["rocm"], created_at=at(4))
    report, markdown = report_of(tmp_path / "empty", [*items, empty], [], lang)
    entries = {e.item.number: e.about for f in report.focus_areas for e in f.prs}
    assert [n for n, about in entries.items() if any(c in about for c in TITLE_ONLY)] == [4]


def bug(comments: int):
    return make_item(
        7,
        title="[Bug]: server crashes on H100 with FP8",
        body="### Describe the bug\nThe server crashes after ten minutes.",
        labels=["bug"],
        comments=comments,
        created_at=at(1),
    )


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_maintainer_reply_only_when_every_comment_is_stored(tmp_path, lang):
    comment = make_comment(7, "bob", at(2), body="Same crash here on H100.")
    _, complete = report_of(tmp_path / "a", [bug(comments=1)], [comment], lang)
    assert any(claim in complete for claim in NO_REPLY)
    _, partial = report_of(tmp_path / "b", [bug(comments=3)], [comment], lang)
    assert not any(claim in partial for claim in NO_REPLY)
    answer = make_comment(7, "maint", at(3), body="Looking.", author_association="MEMBER")
    _, answered = report_of(tmp_path / "c", [bug(comments=2)], [comment, answer], lang)
    assert not any(claim in answered for claim in NO_REPLY)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_day_without_discussion_says_so_and_names_the_busiest_threads(tmp_path, lang):
    pr = make_pr(5, title="[Core] Speed up the scheduler", body="Faster.", created_at=at(-50))
    issue = make_item(6, title="[Bug]: hang", body="It hangs.", created_at=at(-50))
    comments = [make_comment(5, "bob", at(k), body=f"Benchmark run {k} done.") for k in (2, 3)]
    comments.append(make_comment(6, "carol", at(4), body="Still hangs on main."))
    report, markdown = report_of(tmp_path, [pr, issue], comments, lang)
    assert report.hot_discussions == []
    [note] = report.discussion_notes
    assert note.refs == [5, 6]
    assert note.text in re.sub(r"\[(#\d+)\]\([^)]*\)", r"\1", markdown).replace("\\", "")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_contention_is_omitted_without_disagreement(tmp_path, lang):
    pr = make_pr(5, title="[Core] Speed up the scheduler", body="Faster.", created_at=at(1))
    comments = [
        make_comment(5, "bob", at(2), body="Could you share benchmark numbers for H100?"),
        make_comment(5, "alice", at(3), body="Throughput is up 4% on H100, but only at batch 64."),
    ]
    report, markdown = report_of(tmp_path, [pr], comments, lang)
    [hot] = report.hot_discussions
    assert hot.contention == ""
    assert "争议焦点" not in markdown and "Contention" not in markdown


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_reviewer_ties_of_one_are_not_a_ranking(tmp_path, lang):
    pr = make_pr(5, title="[Core] Speed up the scheduler", body="Faster.", created_at=at(1))
    reviews = [
        make_comment(5, who, at(2 + k), kind="review", review_state="APPROVED", body="")
        for k, who in enumerate(["bob", "carol", "dave"])
    ]
    report, _ = report_of(tmp_path, [pr], reviews, lang)
    texts = " ".join(s.text for s in report.activity_notes)
    assert "bob" not in texts and "carol" not in texts
