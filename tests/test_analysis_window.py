"""compute_window_analysis over real stores: invariants on the sample day, store reads."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from devdigest.analysis import compute_window_analysis
from devdigest.analysis.types import WindowAnalysis
from devdigest.config import Config, Project, Rule
from devdigest.models import COUNT_KEYS
from devdigest.sample.dataset import generate_day
from devdigest.store import open_store
from devdigest.window import Window
from tests.fakes.oracle import expected
from tests.helpers import (
    at,
    day_window,
    fill_store,
    make_comment,
    make_item,
    make_pr,
    store_from_dataset,
)


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> tuple[WindowAnalysis, dict]:
    ds = generate_day(seed=0)
    store = store_from_dataset(ds, str(tmp_path_factory.mktemp("day") / "day.db"))
    window = Window(ds.end - timedelta(days=1), ds.end, "Asia/Shanghai")
    config = Config(db=":memory:")
    analysis = compute_window_analysis(store, config, ds.repo, window)
    store.close()
    return analysis, expected(ds, window.start, window.end)


def test_counts_equal_appendix_and_oracle(sample) -> None:
    analysis, oracle = sample
    for key in COUNT_KEYS:
        numbers = [i.number for i in analysis.appendix[key]]
        assert getattr(analysis.counts, key) == len(numbers) == oracle["counts"][key]
        assert numbers == oracle["items"][key]


def test_every_discussion_has_two_humans_who_wrote_in_window(sample) -> None:
    analysis, _ = sample
    window = analysis.window
    assert analysis.discussions
    for thread in analysis.discussions:
        assert len(thread.participants) >= 2
        writers = {c.author for c in thread.comments}
        if window.contains(thread.item.created_at):
            writers.add(thread.item.author)
        assert set(thread.participants) <= writers
        assert all(window.contains(c.created_at) and not c.is_bot for c in thread.comments)
        assert all(c.number == thread.item.number for c in thread.comments)
    scores = [t.score for t in analysis.discussions]
    assert scores == sorted(scores, reverse=True)


def test_key_changes_are_merged_in_window_or_flagged(sample) -> None:
    analysis, _ = sample
    assert analysis.key_changes
    for change in analysis.key_changes:
        merged = analysis.window.contains(change.item.merged_at)
        assert merged != change.nearly_merged
        for figure in change.figures:
            assert figure in " ".join(change.item.body.split())


def test_focus_items_carry_reasons_and_belong_to_the_window(sample) -> None:
    analysis, _ = sample
    [focus] = analysis.focus  # the vLLM preset has one focus area
    assert focus.issues and focus.prs
    for match in focus.issues + focus.prs:
        assert match.reasons
        assert match.item.number in analysis.items
    assert all(not m.item.is_pr for m in focus.issues) and all(m.item.is_pr for m in focus.prs)


def test_watch_topics_and_activity_are_filled(sample) -> None:
    analysis, _ = sample
    assert analysis.watch and all(
        w.item.state == "open" and not w.item.is_pr for w in analysis.watch
    )
    assert analysis.history_days == 7
    new = {i.number for k in ("new_issues", "new_prs") for i in analysis.appendix[k]}
    for topic in analysis.topics:
        assert set(topic.numbers) <= new
        assert all(topic.rule.name in analysis.categories[n] for n in topic.numbers)
    merged = analysis.appendix["merged_prs"]
    assert analysis.activity.merges_measured == len(merged)
    assert analysis.activity.contributors >= analysis.activity.authors > 0
    assert not any(login.endswith("[bot]") for login, _ in analysis.activity.top_reviewers)


def test_store_reads_first_time_history_and_linked_items(tmp_path: Path) -> None:
    window = day_window()
    items = [
        make_item(1, author="veteran", created_at=at(-24 * 40)),  # the history begins here
        make_pr(2, author="veteran", body="Fixes #1", created_at=at(2)),
        make_pr(3, author="newcomer", created_at=at(3), title="[ROCm] Enable x"),
        make_item(4, author="someone", created_at=at(-24 * 20)),
    ]
    comments = [make_comment(4, "veteran", at(5)), make_comment(4, "newcomer", at(6))]
    store = fill_store(open_store(str(tmp_path / "s.db")), items, comments)
    project = Project(repo="o/r", focus=[Rule(name="AMD", title_tags=["ROCm"])])
    config = Config(db=":memory:", projects=[project])
    analysis = compute_window_analysis(store, config, "o/r", window)
    store.close()
    assert analysis.activity.first_time_contributors == ["newcomer"]
    assert analysis.activity.first_time_basis == "association+history"
    assert 1 in analysis.items  # linked from #2's body, fetched by number
    assert [t.item.number for t in analysis.discussions] == [4]
    assert [m.item.number for m in analysis.focus[0].prs] == [3]
    assert analysis.counts.new_prs == 2 and analysis.counts.new_issues == 0
