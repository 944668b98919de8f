"""What an item's title and body state, said in the report's language (not quoted in English).

A description lists what can be read off the text with certainty: the kind of item, symptoms,
the models and hardware it names, error names from its logs, linked items, and whether it
carries a test plan or results. An empty body is said to be empty; nothing is guessed.
"""

from __future__ import annotations

from devdigest.analysis.discussions import linked_numbers
from devdigest.analysis.facts import ItemFacts, compute_item_facts
from devdigest.analysis.watch import breadth_of
from devdigest.models import ItemRecord
from devdigest.writers.common import Context
from devdigest.writers.fact_phrases import symptom_name
from devdigest.writers.phrases import join_list, phrase

MAX_NAMES = 3


def facts_of(ctx: Context, item: ItemRecord) -> ItemFacts:
    """The item's facts as the analysis computed them (computed here for items it did not)."""
    return ctx.analysis.facts.get(item.number) or compute_item_facts(item, (), ctx.analysis.repo)


def kind_phrase(ctx: Context, item: ItemRecord, kind: str) -> str:
    """``kind``: pr, bug, proposal or question (see ``threads.item_kind``)."""
    if kind != "pr":
        return phrase(ctx.lang, f"desc_kind_{kind}")
    categories = ctx.analysis.categories.get(item.number, [])[:2]
    if not categories:
        return phrase(ctx.lang, "desc_kind_pr")
    names = phrase(ctx.lang, "signal_join").join(ctx.name_of(c) for c in categories)
    return phrase(ctx.lang, "desc_kind_pr_cat", names=names)


def stated_facts(ctx: Context, item: ItemRecord) -> list[str]:
    """Short clauses, one per kind of fact the title and body state."""
    lang, facts = ctx.lang, facts_of(ctx, item)
    sep = phrase(lang, "signal_join")
    parts = []
    symptoms = [symptom_name(lang, kind) for kind in facts.symptom_kinds]
    if symptoms and not item.is_pr:
        parts.append(phrase(lang, "desc_symptoms", names=sep.join(symptoms[:MAX_NAMES])))
    named = breadth_of(facts)
    if named:
        parts.append(phrase(lang, "desc_breadth", names=sep.join(named[:MAX_NAMES])))
    errors = list(dict.fromkeys(e.text.split(":")[0].strip() for e in facts.errors))  # the name
    if errors:
        parts.append(phrase(lang, "desc_errors", names=sep.join(errors[:2])))
    found = linked_numbers(item.body, ctx.analysis.repo, item.number)
    linked = [n for n in found if n in ctx.known]
    if linked:
        refs = join_list(lang, [f"#{n}" for n in linked[:MAX_NAMES]])
        parts.append(phrase(lang, "desc_linked", refs=refs))
    for key in ("test_plan", "test_result"):
        if facts.section(key):
            parts.append(phrase(lang, f"desc_{key}"))
    return parts


def describe(ctx: Context, item: ItemRecord, kind: str, quote: str | None) -> str:
    """One sentence on ``item``: its kind and stated facts; ``quote`` (a body sentence) is
    added in English reports, and in Chinese ones only when no fact could be read."""
    parts = stated_facts(ctx, item)
    if quote and (ctx.lang == "en" or not parts):
        parts.append(phrase(ctx.lang, "desc_quote", text=quote))
    opened = "desc_opened_new" if ctx.analysis.window.contains(item.created_at) else "desc_opened"
    head = phrase(ctx.lang, opened, kind=kind_phrase(ctx, item, kind))
    if not parts:
        return phrase(ctx.lang, "desc_bare", kind=head)
    text = phrase(ctx.lang, "desc", kind=head, parts=phrase(ctx.lang, "desc_join").join(parts))
    return _one_stop(text)


def _one_stop(text: str) -> str:
    """``says “It hangs.”.`` → ``says “It hangs.”``: a quote that ends a sentence ends it."""
    if text.endswith("”.") and text[-3:-2] in ".?!":
        return text[:-1]
    return text
