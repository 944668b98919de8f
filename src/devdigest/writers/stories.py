"""Storylines in prose: what the day was about, with the shared facts as the reason."""

from __future__ import annotations

from devdigest.analysis.storylines import Fact, Storyline
from devdigest.models import Statement
from devdigest.writers.common import Context
from devdigest.writers.fact_phrases import symptom_name
from devdigest.writers.phrases import english_counts, join_list

SUMMARY_STORYLINES = 2
MIN_NEWS = 2  # a storyline of old threads alone is not what the day was about
SHARED_NAMED = 3  # shared facts named in one sentence
CITED = {"new_bugs": 3, "new_issues": 3, "fixes_merged": 3, "merged_prs": 2}  # refs per role

REST = ("open_prs", "discussed")  # counted together: open PRs and older threads with activity
OTHER = {"new_issues": "new_bugs", "merged_prs": "fixes_merged"}  # "other" only beside these

PHRASES = {
    "zh": {
        "story": "本窗口有 {total} 项动态围绕{shared}：{parts}。",
        "story_watch_0": "属于围绕{shared}的一条主线，另见{refs}。",
        "story_watch_1": "同一主线（{shared}）上的还有{refs}。",
        "family": "{value} 系列模型",
        "hardware": "{value}",
        "component": "{value} 组件",
        "kernel": "{value} 内核",
        "new_bugs": "新报告问题 {n} 个{refs}",
        "new_issues": "新 Issue {n} 个{refs}",
        "new_issues_other": "其他新 Issue {n} 个{refs}",
        "closed_issues": "关闭 Issue {n} 个",
        "fixes_merged": "合并修复 {n} 个{refs}",
        "merged_prs": "合并 PR {n} 个{refs}",
        "merged_prs_other": "合并其他 PR {n} 个{refs}",
        "rest": "另有 {n} 项其他动态",
        "refs": "（{refs}）",
        "refs_some": "（如{refs}）",
        "part_sep": "，",
    },
    "en": {
        "story": "{total} items of this window revolve around {shared}: {parts}.",
        "story_watch_0": "Part of a storyline around {shared}; see also {refs}.",
        "story_watch_1": "Same storyline ({shared}): {refs}.",
        "family": "the {value} model family",
        "hardware": "{value}",
        "component": "the {value} component",
        "kernel": "the {value} kernel",
        "new_bugs": "{n} new bug reports{refs}",
        "new_issues": "{n} new issues{refs}",
        "new_issues_other": "{n} other new issues{refs}",
        "closed_issues": "{n} closed issues",
        "fixes_merged": "{n} merged fixes{refs}",
        "merged_prs": "{n} merged PRs{refs}",
        "merged_prs_other": "{n} other merged PRs{refs}",
        "rest": "{n} other items with activity",
        "refs": " ({refs})",
        "refs_some": " (e.g. {refs})",
        "part_sep": "; ",
    },
}


def fact_name(lang: str, fact: Fact) -> str:
    kind, value = fact
    if kind == "symptom":
        return symptom_name(lang, value)
    return PHRASES[lang][kind].format(value=value)


def shared_text(lang: str, storyline: Storyline) -> str:
    names = [fact_name(lang, f) for f in storyline.shared[:SHARED_NAMED]]
    return join_list(lang, names)


def storyline_statement(ctx: Context, storyline: Storyline) -> Statement:
    """``12 items of this window involve Qwen and crashes: 3 new bug reports (#a, #b, #c); …``."""
    table = PHRASES[ctx.lang]
    parts = []
    present = {role for role, _ in storyline.roles}
    rest = 0
    for role, numbers in storyline.roles:
        if role in REST:
            rest += len(numbers)
            continue
        cited = numbers[: CITED.get(role, 0)]
        refs = join_list(ctx.lang, [f"#{n}" for n in cited])
        key = "refs" if len(cited) == len(numbers) else "refs_some"
        more = table[key].format(refs=refs) if refs else ""
        other = OTHER.get(role) in present
        parts.append(table[role + "_other" if other else role].format(n=len(numbers), refs=more))
    if rest:
        parts.append(table["rest"].format(n=rest))
    text = table["story"].format(
        total=len(storyline.numbers),
        shared=shared_text(ctx.lang, storyline),
        parts=table["part_sep"].join(parts),
    )
    return ctx.statement(english_counts(text) if ctx.lang == "en" else text)


def about_symptom(storyline: Storyline) -> bool:
    return any(kind == "symptom" for kind, _ in storyline.shared)


def news(storyline: Storyline) -> int:
    """Items that were opened, closed or merged in the window (open PRs and older threads aside)."""
    return sum(len(numbers) for role, numbers in storyline.roles if role not in REST)


def summary_storylines(storylines: list[Storyline]) -> list[Storyline]:
    """Storylines worth a summary sentence: with news, those about a symptom first."""
    worth = [s for s in storylines if news(s) >= MIN_NEWS]
    ranked = sorted(worth, key=lambda s: (not about_symptom(s), -news(s), -s.score, s.shared))
    return ranked[:SUMMARY_STORYLINES]


def write_storyline_summary(ctx: Context) -> list[Statement]:
    return [storyline_statement(ctx, s) for s in summary_storylines(ctx.analysis.storylines)]


def storyline_of(ctx: Context, number: int) -> str:
    """A sentence naming the storyline ``number`` belongs to and two other members, or ""."""
    for storyline in ctx.analysis.storylines:
        if not about_symptom(storyline):
            continue  # a storyline on a piece of hardware alone says little about one bug
        others = [n for n in storyline.numbers if n != number]
        if number in storyline.numbers and others:
            refs = join_list(ctx.lang, [f"#{n}" for n in others[-2:]])
            shared = shared_text(ctx.lang, storyline)
            shape = f"story_watch_{storyline.numbers.index(number) % 2}"  # vary the shape
            return PHRASES[ctx.lang][shape].format(shared=shared, refs=refs)
    return ""
