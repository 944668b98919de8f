"""What an item's title and body state, said in the report's language (not quoted in English).

A description lists what can be read off the text with certainty: the kind of item, symptoms,
the models and hardware it names, error names from its logs, linked items, and whether it
carries a test plan or results. An empty body is said to be empty; nothing is guessed.
"""

from __future__ import annotations

import re

from devdigest.analysis.discussions import linked_numbers
from devdigest.analysis.watch import BODY_HEAD, SEVERITY, breadth_signals
from devdigest.models import ItemRecord
from devdigest.writers.common import Context
from devdigest.writers.extract import sections
from devdigest.writers.phrases import join_list, phrase, signal_name

_ERROR = re.compile(r"\b([A-Z][A-Za-z]*(?:Error|Exception))\b|\b(CUDA error|HIP error)\b")
_SEVERITY = {
    name: re.compile(rf"(?<![\w-])(?:{pattern})(?![\w-])", re.I)
    for name, (_, pattern) in SEVERITY.items()
}
MAX_NAMES = 3


def symptom_names(lang: str, text: str) -> list[str]:
    """The severity classes ``text`` names (crash, hang, OOM…), in the report's language."""
    names = [signal_name(lang, name) for name, rx in _SEVERITY.items() if rx.search(text)]
    return list(dict.fromkeys(names))


def error_names(body: str) -> list[str]:
    """Exception and CUDA/HIP error names found in the body (logs included)."""
    named = [m.group(1) for m in _ERROR.finditer(body) if m.group(1)]
    found = named or [m.group(2) for m in _ERROR.finditer(body)]  # "CUDA error" only if unnamed
    return list(dict.fromkeys(found))


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
    lang, body = ctx.lang, item.body[:BODY_HEAD]
    text = f"{item.title}\n{body}"
    sep = phrase(lang, "signal_join")
    parts = []
    symptoms = symptom_names(lang, text)
    if symptoms and not item.is_pr:
        parts.append(phrase(lang, "desc_symptoms", names=sep.join(symptoms[:MAX_NAMES])))
    named = breadth_signals(text)
    if named:
        parts.append(phrase(lang, "desc_breadth", names=sep.join(named[:MAX_NAMES])))
    errors = error_names(body)
    if errors:
        parts.append(phrase(lang, "desc_errors", names=sep.join(errors[:2])))
    linked = [n for n in linked_numbers(body, ctx.analysis.repo, item.number) if n in ctx.known]
    if linked:
        refs = join_list(lang, [f"#{n}" for n in linked[:MAX_NAMES]])
        parts.append(phrase(lang, "desc_linked", refs=refs))
    headings = {name for name, _ in sections(body)}
    for key in ("test plan", "test result"):
        if any(h.startswith(key) for h in headings):
            parts.append(phrase(lang, f"desc_{key.replace(' ', '_')}"))
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
