"""Facts and storylines as lines of the LLM's data blocks: what it may cite, nothing more."""

from __future__ import annotations

from collections.abc import Iterable

from devdigest.analysis.facts import Figure, ItemFacts
from devdigest.analysis.storylines import Storyline

MAX_FIGURES = 6
MAX_NAMES = 6
MAX_STORYLINES = 4
CITED = 5  # item numbers listed per storyline role


def figure_line(figure: Figure) -> str:
    parts = [figure.metric, figure.direction, f"{figure.value}{figure.unit}"]
    if figure.baseline:
        parts.append(f"from {figure.baseline}")
    if figure.context:
        parts.append(f"({figure.context})")
    said = " ".join(p for p in parts if p)
    return f"{said} — written as “{figure.text}”"


def _names(label: str, values: Iterable[str]) -> list[str]:
    shown = list(dict.fromkeys(values))[:MAX_NAMES]
    return [f"{label}: {', '.join(shown)}"] if shown else []


def facts_lines(facts: ItemFacts | None) -> list[str]:
    """Facts extracted from one item's thread, one line per kind (none when nothing is known)."""
    if facts is None:
        return []
    lines = [f"measured figure: {figure_line(f)}" for f in facts.figures[:MAX_FIGURES]]
    lines += _names("models", facts.names("models"))
    lines += _names("hardware", facts.names("hardware"))
    lines += _names("kernels", facts.names("kernels"))
    lines += _names("components", facts.names("components"))
    lines += _names("symptoms", facts.symptom_kinds)
    lines += _names("errors", (e.text for e in facts.errors))
    lines += [f"resource figure: “{r.text}”" for r in facts.out_of_proportion]
    for r in facts.relations:
        target = f"#{r.target}" if r.target else (r.version or "")
        lines.append(f"relation: {r.kind.replace('_', ' ')} {target}".rstrip())
    return [f"fact {line}" for line in lines]


def storyline_lines(storylines: Iterable[Storyline]) -> list[str]:
    """``storyline (family Qwen + symptom crash; 4 items): new bugs #1 #2 #3; fixes merged #4``."""
    out = []
    for line in list(storylines)[:MAX_STORYLINES]:
        shared = " + ".join(f"{kind} {value}" for kind, value in line.shared[:3])
        roles = []
        for role, numbers in line.roles:
            refs = " ".join(f"#{n}" for n in numbers[:CITED])
            more = f" and {len(numbers) - CITED} more" if len(numbers) > CITED else ""
            roles.append(f"{role.replace('_', ' ')} {len(numbers)}: {refs}{more}")
        out.append(f"- storyline ({shared}; {len(line.numbers)} items): {'; '.join(roles)}")
    return ["storylines (items grouped by the facts they share):", *out] if out else []
