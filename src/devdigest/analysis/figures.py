"""Benchmark figures stated in PR text, extracted verbatim (never computed or rounded).

Only phrases that tie a number to a performance notion are taken: "+6.2% throughput",
"1.8x speedup", "TTFT -12%", "reduces latency by 15%", "from 1200 to 1450 tok/s". Version
numbers, issue numbers, dates, GPU counts ("8x H100") and bare percentages are not figures.
"""

from __future__ import annotations

import re

MAX_FIGURES = 6

_NUM = r"(?<![\w.])\d+(?:[.,]\d+)?(?![.\d])"
_PCT = rf"(?:[+\-−±~]\s?)?{_NUM}\s?%"
_MULT = rf"{_NUM}\s?[x×X](?![\w])"
_METRIC = (
    r"(?:end-to-end\s+|e2e\s+|output\s+|overall\s+|decode\s+|prefill\s+|token\s+|request\s+)?"
    r"(?:throughput|latency|latencies|ttft|tpot|itl|e2el|speed-?up|speed|perf(?:ormance)?|"
    r"tok(?:en)?s?/s(?:ec)?|req(?:uest)?s?/s|qps|memory(?:\s+usage)?|accuracy|bandwidth|tflops|"
    r"run\s?time|step\s+time|time|gain|improvement|reduction|faster|slower|acceptance\s+rate)"
)
_DIRECTION = (
    r"(?:higher|lower|more|less|better|faster|slower|increase|decrease|improvement|reduction|"
    r"gain|speed-?up|boost|drop|regression)"
)
_UNIT = (
    r"(?:tok(?:en)?s?/s(?:ec)?|req(?:uest)?s?/s|it/s|qps|ms|µs|us|s|sec|seconds|minutes|min|"
    r"gb|gib|mb|mib|tflops|%)"
)
_VERB = (
    r"(?:reduc|improv|increas|decreas|boost|cut|lower|rais|speed|accelerat|drop|shrink|sav)"
    r"\w*(?:\s+up)?"
)

_PATTERNS = [
    # "+6.2% throughput", "6% higher throughput", "15% lower latency", "~20% faster"
    rf"{_PCT}\s+(?:{_DIRECTION}\s+)?(?:(?:in|on|of)\s+)?(?:the\s+)?{_METRIC}\b",
    # "TTFT -12%", "throughput: +6.2%", "TPOT improved -5%"
    rf"\b{_METRIC}\s*(?:[:=]\s*|\(\s*)?[+\-−]\s?{_NUM}\s?%",
    # "reduces latency by 15%", "improves decode throughput by 1.3x", "speeds up prefill by ~2x"
    rf"(?:\b{_METRIC}\s+(?:is\s+|was\s+)?)?\b{_VERB}\s+(?:the\s+)?(?:[\w/-]+\s+){{0,3}}?by\s+(?:~|about\s+|around\s+|up\s+to\s+)?"
    rf"(?:{_PCT}|{_MULT})",
    # "from 1200 to 1450 tok/s", "from 35 ms to 29 ms"
    rf"(?:\b{_METRIC}\s*:?\s+)?\bfrom\s+{_NUM}\s?(?:{_UNIT}\s+)?to\s+{_NUM}\s?{_UNIT}(?![\w/])",
    # "1200 -> 1450 tok/s", "35ms → 29ms"
    rf"(?:\b{_METRIC}\s*:?\s+)?{_NUM}\s?(?:{_UNIT}\s?)?(?:->|→|=>)\s?{_NUM}\s?{_UNIT}(?![\w/])",
    # "1.8x speedup", "2x faster", "1.5x higher throughput", "up to 3× lower latency"
    rf"(?:up\s+to\s+)?{_MULT}\s+(?:{_DIRECTION}\s+)?{_METRIC}\b",
    # "speedup of 1.8x", "a 1.4x speed-up"
    rf"\bspeed-?up\s+(?:of\s+)?(?:~|about\s+|up\s+to\s+)?{_MULT}",
]
_FIGURE = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.I)


def extract_figures(text: str, limit: int = MAX_FIGURES) -> list[str]:
    """Figures stated in ``text``, verbatim, in order of appearance, without duplicates."""
    found: list[str] = []
    for match in _FIGURE.finditer(text):
        end = match.end()
        if match.group(0).count("(") > match.group(0).count(")") and text[end : end + 1] == ")":
            end += 1
        phrase = " ".join(text[match.start() : end].split()).strip(" ,;:(")
        if phrase and phrase not in found:
            found.append(phrase)
        if len(found) >= limit:
            break
    return found
