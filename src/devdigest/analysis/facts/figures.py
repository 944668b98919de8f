"""Measured figures in prose and tables: metric, value, unit, direction and baseline.

Only phrases that tie a number to a measured notion are taken: "+6.2% throughput",
"improves **Output token throughput (tok/s) by ~6%**", "TTFT 120→95 ms", "1.8x speedup",
"吞吐提升 6%", and table rows with before/after columns. Version numbers, issue numbers, dates,
GPU counts ("8x H100") and bare percentages are not figures; code blocks are never read.
"""

from __future__ import annotations

import re
from functools import cache

from devdigest.analysis.facts.text import Document, Segment, Table
from devdigest.analysis.facts.types import Figure, Source
from devdigest.analysis.facts.vocabulary import vocabulary

_NUM = r"(?<![A-Za-z0-9_.])\d+(?:[.,]\d+)?(?![.\d])"
_PCT = rf"(?:[+\-−±~]\s?)?{_NUM}\s?%"
_MULT = rf"~?{_NUM}\s?[x×X](?![\w])"
_UNIT = (
    r"(?:tok(?:en)?s?/s(?:ec)?|req(?:uest)?s?/s|it/s|qps|ms|µs|us|s|sec|seconds|minutes|min|"
    r"GiB|GB|MiB|MB|TFLOPS|%)"
)
_DIR = (
    r"(?:higher|lower|more|less|better|worse|faster|slower|increase|decrease|improvement|"
    r"reduction|gain|speed-?up|boost|drop|regression)"
)
_VERB = (
    r"(?:reduc|improv|increas|decreas|boost|cut|lower|rais|speed|accelerat|drop|shrink|sav)"
    r"\w*(?:\s+up)?"
)
_ABOUT = r"(?:about\s+|around\s+|roughly\s+|up\s+to\s+|approximately\s+)?"
_PAREN = r"(?:\s*\([^()]{1,24}\))?"
_ZH_VERB = r"(?:提升|提高|增加|加快|降低|减少|下降|缩短)"

_UP_WORDS = ("higher", "more", "increase", "gain", "boost", "rais", "faster", "speed", "acceler")
_DOWN_WORDS = ("lower", "less", "decrease", "reduc", "cut", "drop", "shrink", "sav", "slower")
_ZH_UP, _ZH_DOWN = ("提升", "提高", "增加", "加快"), ("降低", "减少", "下降", "缩短")
_BEFORE = re.compile(
    r"\b(?:before|baseline|base|main|original|old|w/o|without|default|ref)\b|前", re.I
)
_AFTER = re.compile(r"\b(?:after|this\s+pr|pr|new|ours|with|w/|optimi[sz]ed|patched)\b|后", re.I)
_CHANGE = re.compile(r"\b(?:speed-?up|improvement|change|diff|delta|gain)\b|提升|变化", re.I)
_DIGIT = re.compile(r"\d")
_CELL_VALUE = re.compile(rf"({_PCT}|{_MULT}|{_NUM})\s?({_UNIT})?", re.I)


@cache
def _patterns() -> re.Pattern[str]:
    m = rf"(?:{vocabulary().metric}){_PAREN}"
    forms = [
        # "+6.2% throughput", "6% higher throughput", "1.8x speedup", "2x faster"
        rf"(?:up\s+to\s+)?(?P<v1>{_PCT}|{_MULT})\s+(?:(?P<d1>{_DIR})\s+)?(?:(?:in|on|of)\s+)?"
        rf"(?:the\s+)?(?P<m1>{m})",
        # "TTFT -12%", "throughput: +6.2%", "throughput (+0.5%)"
        rf"(?P<m2>{m})\s*(?:[:=]\s*|\(\s*)?(?P<v2>[+\-−]\s?{_NUM}\s?%)",
        # "reduces latency by 15%", "improves Output token throughput (tok/s) by ~6%"
        rf"(?:(?P<m3>{m})\s+(?:is\s+|was\s+)?)?(?P<d3>{_VERB})\s+(?:the\s+)?"
        rf"(?P<w3>(?:[\w/().-]+\s+){{0,5}}?)by\s+{_ABOUT}(?P<v3>{_PCT}|{_MULT})",
        # "from 1200 to 1450 tok/s", "TTFT 120→95 ms", "GSM8K: 0.951 -> 0.953"
        rf"(?:(?P<m4>{m})\s*:?\s+)?(?P<from>from\s+)?(?P<b4>{_NUM})\s?(?:{_UNIT}\s?)?"
        rf"(?:->|→|=>|\s+to\s+)\s?(?P<v4>{_NUM})\s?(?P<u4>{_UNIT})?(?![\w/])",
        # "speedup of 1.8x"
        rf"(?P<m5>speed-?up)\s+(?:of\s+)?{_ABOUT}(?P<v5>{_MULT})",
        # "吞吐提升 6%", "延迟降低约 15%"
        rf"(?P<m6>{m})\s*(?P<d6>{_ZH_VERB})了?\s*(?:约|~)?\s*(?P<v6>{_NUM}\s?(?:%|倍|x))",
        # "显存占用从 61 GB 降到 47 GB"
        rf"(?P<m7>{m})\s*从\s*(?P<b7>{_NUM})\s?(?:{_UNIT})?\s*(?:{_ZH_VERB}|降|升)?[到至]\s*"
        rf"(?P<v7>{_NUM})\s?(?P<u7>{_UNIT})?",
        # "gsm8k: 0.912 before and 0.913 after"
        rf"(?P<b8>{_NUM})\s?(?:{_UNIT})?\s+before\s*(?:and|,|/|vs\.?)\s*(?P<v8>{_NUM})\s?"
        rf"(?P<u8>{_UNIT})?\s+after",
    ]
    return re.compile("|".join(f"(?:{f})" for f in forms), re.I)


def extract_figures(doc: Document, source: Source) -> list[Figure]:
    """Figures in ``doc``'s prose and tables; ``source`` gives the number, comment and field."""
    found: list[Figure] = []
    cells = {id(c) for t in doc.tables for row in (t.header, *t.rows) for c in row}
    for segment in doc.prose():
        if id(segment) not in cells:
            found += _prose_figures(segment, source)
    for table in doc.tables:
        found += _table_figures(table, source)
    return found


def figure_texts(text: str) -> list[str]:
    """The figure phrases of plain ``text``, verbatim (for one-off checks and tests)."""
    segment = Segment(text, tuple(range(len(text))), "text")
    return [f.text for f in _prose_figures(segment, Source(0, None, "body", 0, 0))]


def _prose_figures(segment: Segment, source: Source) -> list[Figure]:
    out: list[Figure] = []
    text, last_end = segment.text, -1
    if not _DIGIT.search(text) or not vocabulary().any_metric.search(text):
        return out
    for match in _patterns().finditer(text):
        if match.start() < last_end:
            continue
        figure = _figure(match, text)
        if figure is None:
            continue
        start, end = match.start(), _close_paren(text, match.end(), match.group(0))
        phrase = " ".join(text[start:end].split()).strip(" ,;:(")
        s, e = segment.span(start, end)
        where = Source(source.number, source.comment_id, source.field, s, e)
        out.append(Figure(**figure, text=phrase, source=where))
        last_end = end
    return out


def _close_paren(text: str, end: int, phrase: str) -> int:
    if phrase.count("(") > phrase.count(")") and text[end : end + 1] == ")":
        return end + 1
    return end


def _figure(match: re.Match[str], text: str) -> dict | None:
    g = {k: v for k, v in match.groupdict().items() if v}
    for n in "78":  # the Chinese from-to and the before/after forms read like "from … to"
        if f"v{n}" in g:
            g |= {"v4": g[f"v{n}"], "b4": g[f"b{n}"], "from": "from"}
            g |= {"u4": g[f"u{n}"]} if f"u{n}" in g else {}
            g |= {"m4": g[f"m{n}"]} if f"m{n}" in g else {}
    if "v4" in g and not ("u4" in g or "m4" in g or "from" in g):
        return None  # "1.2.3 -> 1.2.4": a bare pair of numbers needs a unit or a metric
    value = next((g[k] for k in ("v1", "v2", "v3", "v4", "v5", "v6") if k in g), "")
    metric_text = next((g[k] for k in ("m1", "m2", "m3", "m4", "m5", "m6") if k in g), "")
    if not metric_text and "w3" in g:
        metric_text = g["w3"]
    if not metric_text and "v4" in g:
        metric_text = g.get("u4", "")
    metric = vocabulary().metric_of(metric_text)
    if metric is None and ("v3" in g or "v4" in g):  # "median ITL dropped from 62 to 51 ms"
        metric = vocabulary().last_metric_in(text[max(0, match.start() - 60) : match.start()])
    if metric is None:
        return None
    value = " ".join(value.split())
    unit = g.get("u4") or _unit_of(value)
    words = " ".join(g.get(k, "") for k in ("d1", "d3", "d6", "m1"))  # "35% faster": up
    direction = _direction(words, value, g)
    if direction in ("better", "worse"):  # a latency gets better by going down
        lower = metric in vocabulary().lower_is_better
        direction = "up" if (direction == "better") != lower else "down"
    baseline = g.get("b4")
    return dict(metric=metric, value=value, unit=unit, direction=direction, baseline=baseline)


def _unit_of(value: str) -> str:
    if value.endswith("%"):
        return "%"
    if value.endswith(("x", "×", "X")):
        return "x"
    if value.endswith("倍"):
        return "x"
    return ""


def _direction(words: str, value: str, groups: dict[str, str]) -> str:
    lowered = words.casefold()
    if "b4" in groups:
        return _compare(groups["b4"], groups["v4"])
    if value.startswith(("+",)):
        return "up"
    if value.startswith(("-", "−")):
        return "down"
    if any(w in lowered for w in ("improv", "better")) or "improvement" in lowered:
        return "better"
    if any(w in lowered for w in ("worse", "regression")):
        return "worse"
    if any(w in lowered for w in _DOWN_WORDS) or any(w in words for w in _ZH_DOWN):
        return "down"
    if any(w in lowered for w in _UP_WORDS) or any(w in words for w in _ZH_UP):
        return "up"
    return ""


def _compare(before: str, after: str) -> str:
    a, b = _number(before), _number(after)
    if a is None or b is None or a == b:
        return ""
    return "up" if b > a else "down"


def _number(text: str) -> float | None:
    match = re.search(r"\d+(?:[.,]\d+)?", text)
    return float(match.group(0).replace(",", "")) if match else None


# --- tables --------------------------------------------------------------------------------


def _table_figures(table: Table, source: Source) -> list[Figure]:
    heads = [c.text for c in table.header]
    before = _column(heads, _BEFORE)
    after = _column(heads, _AFTER, exclude=before)
    change = _column(heads, _CHANGE)
    if before is not None and after is not None:
        return [
            f for row in table.rows if (f := _row_figure(row, heads, before, after, change, source))
        ]
    labels = [row[0].text if row else "" for row in table.rows]
    before_row = _column(labels, _BEFORE, first=0)
    after_row = _column(labels, _AFTER, exclude=before_row, first=0)
    if before_row is None or after_row is None:
        return []
    out = []
    for col in range(1, len(heads)):
        metric = vocabulary().metric_of(heads[col])
        rows = table.rows
        if metric and col < len(rows[before_row]) and col < len(rows[after_row]):
            cell = rows[after_row][col]
            fig = _cell_figure(metric, rows[before_row][col].text, cell, heads[col], "", source)
            out += [fig] if fig else []
    return out  # fmt: skip


def _column(
    cells: list[str], pattern: re.Pattern[str], exclude: int | None = None, first: int = 1
) -> int | None:
    """The first of ``cells`` (from index ``first``) that ``pattern`` finds words in."""
    return next(
        (i for i, text in enumerate(cells) if i >= first and i != exclude and pattern.search(text)),
        None,
    )


def _row_figure(row, heads, before, after, change, source) -> Figure | None:
    if len(row) <= max(before, after):
        return None
    label = row[0].text
    metric = vocabulary().metric_of(label) or vocabulary().metric_of(" ".join(heads))
    if metric is None:
        return None
    context = "" if vocabulary().metric_of(label) else label
    unit_text = f"{label} {heads[after]}"
    return _cell_figure(metric, row[before].text, row[after], unit_text, context, source)


def _cell_figure(metric, before_text, cell: Segment, unit_text, context, source) -> Figure | None:
    after_match = _CELL_VALUE.search(cell.text)
    before_match = _CELL_VALUE.search(before_text)
    if not after_match or not before_match:
        return None
    unit = after_match.group(2) or _unit_in(unit_text)
    s, e = cell.span(after_match.start(), after_match.end())
    return Figure(
        metric=metric,
        value=after_match.group(1),
        unit=unit,
        direction=_compare(before_match.group(1), after_match.group(1)),
        baseline=before_match.group(0).strip(),
        text=f"{context or metric}: {before_match.group(0).strip()} → {after_match.group(0).strip()}",  # noqa: E501
        source=Source(source.number, source.comment_id, source.field, s, e),
        context=context,
    )


def _unit_in(text: str) -> str:
    match = re.search(rf"\(\s*({_UNIT})\s*\)", text, re.I)
    return match.group(1) if match else ""
