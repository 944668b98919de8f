"""Storylines in the offline report: counts by role, cited items grounded, both languages."""

from __future__ import annotations

import re
from datetime import datetime

from devdigest.analysis.facts import compute_facts
from devdigest.analysis.storylines import compute_storylines
from devdigest.writers.common import Context
from devdigest.writers.offline import write_offline
from devdigest.writers.stories import storyline_of
from tests.analysis_builders import empty_analysis
from tests.test_analysis_storylines import W, window_items

NOW = datetime(2026, 3, 1)


def analysis():
    items = window_items()
    facts = compute_facts(items, {})
    return empty_analysis(
        items={i.number: i for i in items},
        facts=facts,
        storylines=compute_storylines(items, facts, W),
    )


def test_the_summary_tells_the_day_s_storyline_with_its_reason_and_items() -> None:
    a = analysis()
    en = [s.text for s in write_offline(a, "en", now=NOW).summary]
    qwen = next(s for s in en if "Qwen" in s)
    assert qwen == (
        "4 items of this window revolve around the Qwen model family and crashes: "
        "3 new bug reports (#1, #2 and #3); 1 merged fix (#4)."
    )
    zh = next(s for s in write_offline(a, "zh", now=NOW).summary if "Qwen" in s.text)
    assert zh.text == (
        "本窗口有 4 项动态围绕 Qwen 系列模型和崩溃："
        "新报告问题 3 个（#1、#2 和 #3），合并修复 1 个（#4）。"
    )
    assert zh.refs == [1, 2, 3, 4]


def test_storyline_counts_add_up_to_its_items() -> None:
    a = analysis()
    for line in write_offline(a, "en", now=NOW).summary:
        found = re.match(r"(\d+) items of this window revolve around (.+?): (.+)\.$", line.text)
        if not found:
            continue
        parts = [int(p.split()[0]) for p in found.group(3).split("; ")]
        assert sum(parts) == int(found.group(1))
        rocm = ("hardware", "MI300X")
        if "MI300X" in found.group(2):
            line_of = next(s for s in a.storylines if rocm in s.shared)
            assert int(found.group(1)) == len(line_of.numbers) == 3


def test_a_watch_entry_names_its_symptom_storyline_and_no_other() -> None:
    ctx = Context.of(analysis(), "en")
    assert storyline_of(ctx, 1) == (
        "Part of a storyline around the Qwen model family and crashes; see also #3 and #4."
    )
    assert storyline_of(ctx, 2) == "Same storyline (the Qwen model family and crashes): #3 and #4."
    assert storyline_of(ctx, 8) == ""  # MI300X with ROCm: no symptom, nothing to say of a bug
    assert storyline_of(ctx, 6) == ""
