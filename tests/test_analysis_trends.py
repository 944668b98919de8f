"""Trends: per-day means over the previous days the store covers, and deltas."""

from __future__ import annotations

from devdigest.analysis.classify import compute_categories
from devdigest.analysis.trends import compute_topics, covered_days
from devdigest.config import Rule
from tests.helpers import T0, at, day_window, make_item

W = day_window()
RULES = [Rule(name="Perf", title_tags=["Perf"]), Rule(name="Docs", title_tags=["Doc"])]


def perf(number: int, hours: float):
    return make_item(number, title="[Perf] x", created_at=at(hours))


def doc(number: int, hours: float):
    return make_item(number, title="[Doc] x", created_at=at(hours))


def test_covered_days_stop_at_the_earliest_stored_activity() -> None:
    assert covered_days(W, None) == 0
    assert covered_days(W, at(-24 * 30)) == 7
    assert covered_days(W, at(-24 * 3)) == 3
    assert covered_days(W, at(-24 * 3 + 1)) == 2  # the third day is only partly covered
    assert covered_days(W, T0) == 0


def test_deltas_against_the_per_day_mean() -> None:
    current = [perf(1, 1), perf(2, 5), perf(3, 20), doc(4, 2)]
    # three previous days: Perf 1, 2, 3 per day → mean 2; Docs 3 on one day → mean 1
    previous = [perf(10, -1), perf(11, -25), perf(12, -30), perf(13, -49), perf(14, -60)]
    previous += [perf(15, -70), doc(16, -2), doc(17, -3), doc(18, -4)]
    previous.append(perf(19, -24 * 3 - 1))  # outside the covered days: ignored
    labels = compute_categories(current + previous, RULES)
    topics, days = compute_topics(current, previous, labels, RULES, W, earliest=at(-24 * 3))
    assert days == 3
    got = {t.rule.name: (t.count, t.numbers, t.previous_avg, t.delta) for t in topics}
    assert got == {"Perf": (3, [1, 2, 3], 2.0, 1.0), "Docs": (1, [4], 1.0, 0.0)}
    assert [t.rule.name for t in topics] == ["Perf", "Docs"]


def test_no_history_gives_none_and_topics_only_with_items() -> None:
    current = [perf(1, 1)]
    labels = compute_categories(current, RULES)
    topics, days = compute_topics(current, [], labels, RULES, W, earliest=at(-1))
    assert days == 0
    assert [(t.rule.name, t.count, t.previous_avg, t.delta) for t in topics] == [
        ("Perf", 1, None, None)
    ]


def test_a_topic_that_went_quiet_is_kept_with_its_drop() -> None:
    previous = [doc(n, -2 - n) for n in range(7)]
    labels = compute_categories(previous, RULES)
    topics, _ = compute_topics([], previous, labels, RULES, W, earliest=at(-24 * 10))
    assert [(t.rule.name, t.count, t.previous_avg, t.delta) for t in topics] == [
        ("Docs", 0, 1.0, -1.0)
    ]


def test_longer_windows_scale_the_baseline() -> None:
    window = day_window(hours=48)
    previous = [perf(n, -2 - 24 * n) for n in range(7)]  # one per day
    current = [perf(100 + n, n) for n in range(5)]
    labels = compute_categories(current + previous, RULES)
    [topic], _ = compute_topics(current, previous, labels, RULES, window, earliest=at(-24 * 10))
    assert (topic.previous_avg, topic.delta) == (1.0, 3.0)  # 5 - 1/day * 2 days
