"""The facts layer's vocabulary (``vocabulary.toml``), compiled once."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

_EDGE_BEFORE = r"(?<![A-Za-z0-9_-])"  # CJK text may touch a Latin name directly
_EDGE_AFTER = r"(?![A-Za-z0-9_])"


def _alternation(patterns: list[str]) -> str:
    return "|".join(f"(?:{p})" for p in patterns)


def _named(table: dict[str, list[str]]) -> list[tuple[str, re.Pattern[str]]]:
    return [
        (name, re.compile(_EDGE_BEFORE + f"(?:{_alternation(pats)})" + _EDGE_AFTER, re.I))
        for name, pats in table.items()
    ]


def _grouped(table: dict[str, list[str]], after: str = "") -> tuple[re.Pattern[str], list[str]]:
    """One pattern for a whole table: group ``g{i}`` matched means the i-th name was found."""
    names = list(table)
    parts = [f"(?P<g{i}>{_alternation(table[name])})" for i, name in enumerate(names)]
    return re.compile(_EDGE_BEFORE + f"(?:{'|'.join(parts)})" + after, re.I), names


def group_name(match: re.Match[str], names: list[str]) -> str:
    return names[int(str(match.lastgroup)[1:])]


@dataclass(frozen=True)
class Vocabulary:
    models: tuple[re.Pattern[str], list[str]]  # one pattern, the families (a name runs on)
    hardware: re.Pattern[str]
    vendors: dict[str, str]  # folded hardware name → (canonical name, vendor) lookups
    canonical_hardware: dict[str, str]
    kernels: tuple[re.Pattern[str], list[str]]
    metric: str  # one alternation of every metric pattern (for building figure patterns)
    metrics: list[tuple[str, re.Pattern[str]]]
    lower_is_better: frozenset[str]
    symptoms: tuple[re.Pattern[str], list[str]]
    weights: dict[str, float]  # symptom kind → severity weight
    any_metric: re.Pattern[str]
    errors: re.Pattern[str]
    sections: list[tuple[str, re.Pattern[str]]]
    generic_components: frozenset[str]
    path_depth: int

    def metric_of(self, text: str) -> str | None:
        """The canonical metric named in ``text`` (the first in vocabulary order)."""
        return next((name for name, pattern in self.metrics if pattern.search(text)), None)

    def last_metric_in(self, text: str) -> str | None:
        """The canonical metric named last in ``text`` (the one nearest to what follows)."""
        best: tuple[int, str] | None = None
        for name, pattern in self.metrics:
            for match in pattern.finditer(text):
                if best is None or match.start() > best[0]:
                    best = (match.start(), name)
        return best[1] if best else None

    def section_of(self, heading: str) -> str | None:
        return next((name for name, pattern in self.sections if pattern.fullmatch(heading)), None)


@cache
def vocabulary() -> Vocabulary:
    data = tomllib.loads(files(__package__).joinpath("vocabulary.toml").read_text("utf-8"))
    hardware = dict(data["hardware"])
    names = sorted(hardware, key=len, reverse=True)
    hw_patterns = [re.escape(n).replace(r"\ ", r"\s?") for n in names]
    hw_patterns += list(data["hardware_patterns"].values())
    all_metrics = [p for pats in data["metrics"].values() for p in pats]
    return Vocabulary(
        models=_grouped(data["models"]),
        hardware=re.compile(_EDGE_BEFORE + f"({_alternation(hw_patterns)})" + _EDGE_AFTER, re.I),
        vendors={n.casefold(): v for n, v in hardware.items()},
        canonical_hardware={n.casefold().replace(" ", ""): n for n in hardware},
        kernels=_grouped(data["kernels"], _EDGE_AFTER),
        metric=_alternation(all_metrics),
        metrics=_named(data["metrics"]),
        lower_is_better=frozenset(data["metric_lower_is_better"]["names"]),
        symptoms=_grouped(
            {kind: entry["patterns"] for kind, entry in data["symptoms"].items()},
            r"(?![A-Za-z0-9_-])",
        ),
        weights={kind: float(entry["weight"]) for kind, entry in data["symptoms"].items()},
        any_metric=re.compile(_alternation(all_metrics), re.I),
        errors=re.compile(_alternation(data["errors"]["patterns"])),
        sections=[
            (name, re.compile(_alternation(pats), re.I)) for name, pats in data["sections"].items()
        ],
        generic_components=frozenset(data["components"]["generic"]),
        path_depth=int(data["components"]["path_depth"]),
    )
