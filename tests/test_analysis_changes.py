"""Key technical changes: merged in the window or nearly merged (flagged), ranked by kind."""

from __future__ import annotations

from devdigest.analysis.changes import compute_changes, is_nearly_merged
from devdigest.config import Rule
from tests.helpers import at, day_window, make_comment, make_pr, make_review

W = day_window()
RULES = [
    Rule(name="Performance", title_tags=["Perf"], keywords=["throughput"]),
    Rule(name="Documentation", title_tags=["Doc"]),
    Rule(name="CI and build", title_tags=["CI"]),
]


def by_number(comments):
    out: dict[int, list] = {}
    for c in comments:
        out.setdefault(c.number, []).append(c)
    return out


def test_candidates_are_merged_in_window_or_flagged_nearly_merged() -> None:
    prs = [
        make_pr(1, created_at=at(-48), merged_at=at(3), title="[Perf] merged today"),
        make_pr(2, created_at=at(-48), merged_at=at(-5), title="[Perf] merged yesterday"),
        make_pr(3, created_at=at(-48), title="[Perf] approved today"),
        make_pr(4, created_at=at(-48), title="[Perf] approved, then changes requested"),
        make_pr(5, created_at=at(-48), title="[Perf] approved before the window"),
        make_pr(6, created_at=at(-48), title="[Perf] draft", draft=True),
    ]
    comments = [
        make_review(3, "rev1", at(2)),
        make_review(4, "rev1", at(2)),
        make_review(4, "rev2", at(3), state="CHANGES_REQUESTED", body="needs tests"),
        make_review(5, "rev1", at(-3)),
        make_review(6, "rev1", at(2)),
    ]
    found = compute_changes(prs, by_number(comments), RULES, W)
    assert {c.item.number: c.nearly_merged for c in found} == {1: False, 3: True}
    nearly = next(c for c in found if c.nearly_merged)
    assert "nearly merged: approved, not merged yet" in nearly.reasons


def test_changes_requested_then_approved_by_same_reviewer_is_nearly_merged() -> None:
    pr = make_pr(1, created_at=at(-48))
    rows = [
        make_review(1, "rev", at(-10), state="CHANGES_REQUESTED", body="no"),
        make_review(1, "rev", at(2)),
    ]
    assert is_nearly_merged(pr, rows, W)


def test_docs_and_ci_rank_below_performance_with_same_review_depth() -> None:
    prs = [
        make_pr(1, created_at=at(-5), merged_at=at(2), title="[Doc] Explain throughput"),
        make_pr(2, created_at=at(-5), merged_at=at(2), title="[Perf] Faster sampler"),
        make_pr(3, created_at=at(-5), merged_at=at(2), title="[CI] Split jobs"),
    ]
    comments = [make_review(n, r, at(1)) for n in (1, 2, 3) for r in ("rev1", "rev2")]
    found = compute_changes(prs, by_number(comments), RULES, W)
    assert found[0].item.number == 2
    assert {c.item.number for c in found[1:]} == {1, 3}
    assert found[0].score - found[1].score >= 4  # 3 for Performance against -2 for docs/CI


def test_review_depth_links_and_figures_raise_the_score() -> None:
    plain = make_pr(1, created_at=at(-5), merged_at=at(2), title="[Perf] A")
    rich = make_pr(
        2,
        created_at=at(-5),
        merged_at=at(2),
        title="[Perf] B",
        body="Fixes #10. Benchmark: 1.8x speedup on H100.",
    )
    comments = [make_review(2, "rev1", at(1)), make_review(2, "rev2", at(1))]
    comments.append(make_comment(2, "rev1", at(1), kind="review_comment", body="nit"))
    comments.append(make_review(2, "alice", at(1), state="COMMENTED", body="self"))  # author
    first, second = compute_changes([plain, rich], by_number(comments), RULES, W)
    assert first.item.number == 2 and second.item.number == 1
    assert first.figures == ["1.8x speedup"]
    assert first.linked == [10]
    assert first.reviews == 3
    assert "2 reviewers" in first.reasons and "states figures" in first.reasons
    assert [c.author for c in first.comments] == ["rev1", "rev2", "rev1", "alice"]


def test_a_change_is_scored_from_what_it_states_and_keeps_its_discussion_facts() -> None:
    stated = make_pr(
        1, created_at=at(-5), merged_at=at(2), title="[Perf] A", body="Fixes #10 on MI300X."
    )
    talked = make_pr(2, created_at=at(-5), merged_at=at(2), title="[Perf] B", body="Faster.")
    comments = [make_review(n, "rev1", at(1)) for n in (1, 2)]
    # a reviewer's words name hardware and an issue: they say nothing of what #2 changes,
    # and GitHub closes issues only from the PR's own text
    comments.append(make_comment(2, "rev1", at(1), body="Does this fix #11 on MI300X too?"))
    first, second = compute_changes([stated, talked], by_number(comments), RULES, W)
    assert first.item.number == 1
    assert "names MI300X" in first.reasons and "fixes #10" in first.reasons
    assert not any(r.startswith(("names", "fixes")) for r in second.reasons)
    assert second.facts is not None and "MI300X" in second.facts.names("hardware")
