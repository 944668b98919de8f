"""Storylines: the window's items grouped by the facts they share.

A storyline is explainable by construction: ``shared`` lists the facts every one of its items
has (the grouping key first: a model family and a symptom kind, a component, a piece of
hardware, a kernel; then any other fact they all share), and its
items are listed by role (new bugs, fixes merged, …). PRs that close one of its issues join it
as fixes. The grouping is deterministic: candidate groups are ranked by size and specificity,
then taken greedily, skipping those mostly covered by a storyline already taken.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from devdigest.analysis.facts import ItemFacts
from devdigest.models import ItemRecord
from devdigest.window import Window

MAX_STORYLINES = 6
MIN_ITEMS = 2  # a pair of facts (family + symptom) groups two items
MIN_ITEMS_SINGLE = 3  # one fact alone (a component) needs three
OVERLAP = 0.6  # a group this much covered by storylines already taken adds nothing
ROLES = (
    "new_bugs", "new_issues", "closed_issues", "fixes_merged", "merged_prs", "open_prs",
    "discussed",
)  # fmt: skip
Fact = tuple[str, str]  # (kind, value): ("family", "Qwen"), ("symptom", "crash")


@dataclass(frozen=True)
class Storyline:
    shared: tuple[Fact, ...]  # the facts every item of the storyline has: the reason it exists
    roles: tuple[tuple[str, tuple[int, ...]], ...]  # (role, item numbers), in ROLES order
    score: float

    @property
    def numbers(self) -> list[int]:
        return sorted({n for _, numbers in self.roles for n in numbers})

    def role(self, name: str) -> tuple[int, ...]:
        return next((numbers for role, numbers in self.roles if role == name), ())


def item_keys(facts: ItemFacts) -> list[tuple[Fact, ...]]:
    """The fact combinations an item can be grouped by, most specific first."""
    symptoms = [("symptom", kind) for kind in facts.symptom_kinds]
    families = [("family", f) for f in facts.families]
    hardware = [("hardware", h) for h in facts.names("hardware")]
    keys: list[tuple[Fact, ...]] = []
    for subject in families + hardware:
        keys += [(subject, symptom) for symptom in symptoms]
    keys += [(f,) for f in families + hardware]
    keys += [(("component", c.casefold()),) for c in facts.names("components")]
    keys += [(("kernel", k),) for k in facts.names("kernels")]
    return keys


def single_facts(facts: ItemFacts) -> set[Fact]:
    return {
        *(("family", f) for f in facts.families),
        *(("hardware", h) for h in facts.names("hardware")),
        *(("symptom", k) for k in facts.symptom_kinds),
        *(("component", c.casefold()) for c in facts.names("components")),
        *(("kernel", k) for k in facts.names("kernels")),
    }


def item_role(item: ItemRecord, facts: ItemFacts, window: Window) -> str:
    if item.is_pr:
        if window.contains(item.merged_at):
            return "fixes_merged" if facts.targets("fixes") or facts.symptoms else "merged_prs"
        return "open_prs" if item.state == "open" else "discussed"
    if window.contains(item.created_at):
        return "new_bugs" if facts.symptoms else "new_issues"
    if item.state == "closed" and window.contains(item.closed_at):
        return "closed_issues"
    return "discussed"


def compute_storylines(
    items: Iterable[ItemRecord],
    facts: Mapping[int, ItemFacts],
    window: Window,
    limit: int = MAX_STORYLINES,
) -> list[Storyline]:
    """Storylines of ``items`` (the window's items; bots' items are left out), best first."""
    records = {i.number: i for i in items if not i.is_bot and i.number in facts}
    groups: dict[tuple[Fact, ...], set[int]] = {}
    for number in sorted(records):
        for key in item_keys(facts[number]):
            groups.setdefault(key, set()).add(number)
    ranked = sorted(
        ((key, numbers) for key, numbers in groups.items() if _big_enough(key, numbers)),
        key=lambda kv: (-len(kv[0]), -_score(kv[0], kv[1]), kv[0]),  # what broke where first
    )
    taken: list[Storyline] = []
    covered: set[int] = set()
    for key, numbers in ranked:
        if len(numbers & covered) >= OVERLAP * len(numbers):
            continue
        members = numbers | _fixes_of(numbers, records, facts)
        common = set.intersection(*(single_facts(facts[n]) for n in numbers)) - set(key)
        shared = (*key, *sorted(common))
        taken.append(_storyline(shared, members, records, facts, window))
        covered |= members
        if len(taken) >= limit:
            break
    return taken


def _big_enough(key: tuple[Fact, ...], numbers: set[int]) -> bool:
    return len(numbers) >= (MIN_ITEMS if len(key) > 1 else MIN_ITEMS_SINGLE)


def _score(key: tuple[Fact, ...], numbers: set[int]) -> float:
    return len(numbers) * (1.5 if len(key) > 1 else 1.0)


def _fixes_of(
    numbers: set[int], records: Mapping[int, ItemRecord], facts: Mapping[int, ItemFacts]
) -> set[int]:
    """PRs of the window that say they fix one of ``numbers``."""
    return {
        n
        for n, item in records.items()
        if item.is_pr and numbers.intersection(facts[n].targets("fixes"))
    }


def _storyline(shared, members, records, facts, window) -> Storyline:
    by_role: dict[str, list[int]] = {}
    for number in sorted(members):
        by_role.setdefault(item_role(records[number], facts[number], window), []).append(number)
    roles = tuple((role, tuple(by_role[role])) for role in ROLES if role in by_role)
    return Storyline(shared=shared, roles=roles, score=_score(shared, members))
