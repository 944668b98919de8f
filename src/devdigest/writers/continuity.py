"""Continuity markers as sentences (zh, en): each states its evidence, dates and counts."""

# ruff: noqa: E501  (one sentence template per line reads best)

from __future__ import annotations

from collections.abc import Mapping

from devdigest.analysis.continuity import Marker
from devdigest.analysis.types import WindowAnalysis
from devdigest.models import Statement
from devdigest.writers.common import zh_spacing
from devdigest.writers.phrases import _ONE, _PLURALS

ZH = {
    "hot_run": "#{n} 连续 {days} 天处于高热度{more}（自 {since} 起共 {comments} 条评论与评审）。",
    "hot_run_more": "（更早的天数超出回看范围或存储历史）",
    "returning": "#{n} 沉寂 {quiet} 天后重新活跃：上次活动在 {last}，本窗口 {comments} 条评论与评审，{people} 人参与。",
    "first_seen": "#{n} 是 {author} 在存储历史中的第一个 Issue 或 PR。",
    "stale": "#{n} 是带严重信号的未关闭 bug，{since_text}已 {days} 天没有维护者回复（其间他人评论 {comments} 条）。",
    "stale_since_reply": "自维护者上次回复（{last}）起",
    "stale_since_open": "自 {opened} 提出起",
    "stale_since_store": "自存储历史开始（{start}）起",
    "long_closed": "#{n} 在开启 {days} 天后关闭（提出于 {opened}）。",
    "long_merged": "#{n} 在开启 {days} 天后合并（提出于 {opened}）。",
    "reverted": "#{n} 回退了 #{target}{merged}。",
    "reverted_merged": "（#{target} 合并于 {day}）",
    "list_sep": "、",
    "more": "同类另有 {n} 项：{refs}。",
}
EN = {
    "hot_run": "#{n} has been hot {days} days running{more} ({comments} comments and reviews since {since}).",
    "hot_run_more": " (or longer: earlier days are beyond the lookback or the stored history)",
    "returning": "#{n} is back after {quiet} quiet days: last activity on {last}, {comments} comments and reviews from {people} participants in this window.",
    "first_seen": "#{n} is the first issue or PR by {author} in the stored history.",
    "stale": "#{n} is an open bug with severity signals and no maintainer reply for {days} days ({since_text}; {comments} comments from others).",
    "stale_since_reply": "last maintainer reply on {last}",
    "stale_since_open": "opened on {opened}",
    "stale_since_store": "counted from the start of the stored history, {start}",
    "long_closed": "#{n} was closed after {days} days open (opened on {opened}).",
    "long_merged": "#{n} was merged after {days} days open (opened on {opened}).",
    "reverted": "#{n} reverts #{target}{merged}.",
    "reverted_merged": " (merged on {day})",
    "list_sep": ", ",
    "more": "{n} more of the same kind: {refs}.",
}
STRINGS = {"zh": ZH, "en": EN}
PER_KIND = 5  # sentences per kind; the rest are listed by number
ORDER = ("hot_run", "returning", "reverted", "long_closed", "long_merged", "stale", "first_seen")


def _stale_since(s: Mapping[str, str], facts: dict) -> str:
    if facts["last_reply"] is not None:
        return s["stale_since_reply"].format(last=facts["last_reply"])
    if facts.get("store_start") is not None:
        return s["stale_since_store"].format(start=facts["store_start"])
    return s["stale_since_open"].format(opened=facts["opened"])


def marker_text(marker: Marker, lang: str) -> str:
    """One sentence for ``marker`` in ``lang``."""
    s, f = STRINGS[lang], marker.facts
    values: dict[str, object] = {"n": marker.number, **f}
    if marker.kind == "hot_run":
        values["more"] = s["hot_run_more"] if f["at_least"] else ""
    elif marker.kind == "returning":
        values |= {"quiet": f["quiet_days"], "people": f["participants"]}
    elif marker.kind == "stale":
        values["since_text"] = _stale_since(s, f)
    elif marker.kind == "reverted":
        target, day = f["reverted"], f["reverted_merged"]
        values["target"] = target
        values["merged"] = s["reverted_merged"].format(target=target, day=day) if day else ""
    text = s[marker.kind].format(**values)
    if lang == "en":
        text = singulars(text)
    return zh_spacing(text) if lang == "zh" else text


def singulars(text: str) -> str:
    """English counts of one take the singular, as in the writers' phrases."""
    return _ONE.sub(lambda m: f"1 {m.group(1)}{_PLURALS[m.group(2)]}", text)


def write_markers(markers: list[Marker], lang: str) -> list[Statement]:
    """The markers as statements, at most ``PER_KIND`` sentences per kind (the rest listed by
    number); each cites the items it names."""
    out = []
    for kind in ORDER:
        group = [m for m in markers if m.kind == kind]
        for marker in group[:PER_KIND]:
            refs = {marker.number, marker.facts.get("reverted", marker.number)}
            out.append(Statement(text=marker_text(marker, lang), refs=sorted(refs)))
        rest = sorted(m.number for m in group[PER_KIND:])
        if rest:
            listed = STRINGS[lang]["list_sep"].join(f"#{n}" for n in rest)
            text = STRINGS[lang]["more"].format(n=len(rest), refs=listed)
            out.append(Statement(text=text, refs=rest))
    return out


def history_from(analysis: WindowAnalysis) -> str | None:
    """The local date where the stored history begins (``None``: nothing stored)."""
    start = analysis.history_from
    return start.astimezone(analysis.window.zone).date().isoformat() if start else None
