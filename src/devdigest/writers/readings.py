"""Readings of key changes and issues worth watching, written from facts.

What changed (component, the mechanism in the PR's own words), what it affects (models,
hardware, the issues it fixes), the measured figure and its baseline; for an issue, the
symptom, error, absurd memory figure, regression and reproduction it reports. A sentence is
written only from a fact that was found: nothing found, nothing said. Templates that serve the
same purpose are taken in turn within a section, so entries do not all read alike.
"""

from __future__ import annotations

from collections import Counter

from devdigest.analysis.facts import Figure, ItemFacts, compute_item_facts
from devdigest.analysis.facts.text import parse_document
from devdigest.analysis.types import ChangeCandidate, WatchCandidate
from devdigest.models import ItemRecord, KeyChange, WatchItem
from devdigest.writers.common import Context, is_maintainer, item_link, short_title
from devdigest.writers.extract import plain, repeats_title, split_sentences, trim
from devdigest.writers.fact_phrases import FACT_PHRASES, metric_name, symptom_name
from devdigest.writers.phrases import english_counts, join_list
from devdigest.writers.stories import storyline_of

MAX_CHANGES = 5
MAX_WATCH = 5
FIGURES_IN_SENTENCE = 2
QUOTE_LIMIT = 220
_QUOTED_SECTIONS = ("purpose", "")  # the purpose section, else the text before any heading
_SKIPPED = ("test plan", "test result", "environment", "checklist", "essential elements")


class Shapes:
    """Hands out template variants in turn, per purpose, within one section."""

    def __init__(self, lang: str) -> None:
        self.lang, self.used = lang, Counter[str]()

    def say(self, base: str, **values: object) -> str:
        table = FACT_PHRASES[self.lang]
        variants = sorted(k for k in table if k.startswith(base + "_") and k[-1].isdigit())
        key = variants[self.used[base] % len(variants)] if variants else base
        self.used[base] += 1
        return _p(self.lang, key, **values)


def _p(lang: str, key: str, **values: object) -> str:
    text = FACT_PHRASES[lang][key].format(**values)
    return english_counts(text) if lang == "en" else text


def joined(lang: str, sentences: list[str]) -> str:
    return ("" if lang == "zh" else " ").join(sentences)


def facts_of(ctx: Context, item: ItemRecord, given: ItemFacts | None = None) -> ItemFacts:
    return given or ctx.analysis.facts.get(item.number) or compute_item_facts(item)


# --- figures ---------------------------------------------------------------------------------


def render_figure(lang: str, figure: Figure) -> str:
    """A figure in words: "吞吐量提升 约 6%", "TTFT from 120 to 95 ms", "a 1.8x speedup"."""
    metric = metric_name(lang, figure.metric)
    value = figure.value.lstrip("+-−~ ")
    if figure.value.startswith("~"):
        value = _p(lang, "about") + value
    direction = _p(lang, figure.direction) if figure.direction in ("up", "down") else ""
    if figure.baseline:
        unit = f" {figure.unit}" if figure.unit and figure.unit not in figure.value else ""
        text = _p(lang, "fig_base", metric=metric, baseline=figure.baseline, value=value, unit=unit)
    elif figure.unit == "x" and figure.metric == "speedup":
        text = _p(lang, "fig_speedup", value=value)
    elif direction:
        key = "fig_mult" if figure.unit == "x" else "fig_pct"
        text = _p(lang, key, metric=metric, dir=direction, value=value)
    else:
        text = _p(lang, "fig_pct_plain", metric=metric, value=figure.value)
    if figure.context:
        text = _p(lang, "fig_context", figure=text, context=plain(figure.context))
    return text


def headline_figures(facts: ItemFacts) -> list[Figure]:
    """The figures the item's own text states (not its comments), body before title."""
    own = [f for f in facts.figures if f.source.comment_id is None]
    return sorted(own, key=lambda f: f.source.field != "body")


# --- key changes -----------------------------------------------------------------------------


def change_brief(ctx: Context, change: ChangeCandidate) -> str:
    """``#N（title；its headline figure）`` for the summary."""
    item, lang = change.item, ctx.lang
    figures = headline_figures(facts_of(ctx, item, change.facts))
    title = short_title(item.title)
    if figures:
        figure = render_figure(lang, figures[0])
        return _p(lang, "brief_figure", number=item.number, title=title, figure=figure)
    return _p(lang, "brief", number=item.number, title=title)


def write_key_changes(ctx: Context) -> list[KeyChange]:
    shapes = Shapes(ctx.lang)
    return [change_reading(ctx, c, shapes) for c in ctx.analysis.key_changes[:MAX_CHANGES]]


def change_reading(ctx: Context, change: ChangeCandidate, shapes: Shapes) -> KeyChange:
    item = change.item
    facts = facts_of(ctx, item, change.facts)
    figures = headline_figures(facts)
    return KeyChange(
        item=item_link(item),
        technical=ctx.polish(what_changed(ctx, item, facts, shapes)),
        impact=ctx.polish(joined(ctx.lang, what_it_affects(ctx, change, facts, figures, shapes))),
        figures=[plain(f.text) for f in figures[FIGURES_IN_SENTENCE:]],
    )


def what_changed(ctx: Context, item: ItemRecord, facts: ItemFacts, shapes: Shapes) -> str:
    sentence = mechanism(item)
    components = [f"{c.name}" for c in _ranked_components(facts)][:2]
    where = join_list(ctx.lang, components)
    if sentence and where:
        return shapes.say("lead_purpose", component=where, sentence=sentence)
    if sentence:
        return shapes.say("lead_plain", sentence=sentence)
    named = facts.names("kernels") + facts.names("models") + facts.names("hardware")
    if named and facts.has_body:
        return _p(ctx.lang, "lead_named", names=join_list(ctx.lang, named[:4]))
    return "" if facts.has_body else _p(ctx.lang, "lead_title_only")


def _ranked_components(facts: ItemFacts) -> list:
    """Changed paths if reviews name any, else title tags, else labels: one kind, not a mix."""
    for group in ("path", "title tag", "label"):
        found = [c for c in facts.components if c.group == group]
        if found:
            return found
    return []


def mechanism(item: ItemRecord) -> str | None:
    """The first sentence of the PR's purpose (or opening prose) that says more than its title."""
    segments = [s for s in parse_document(item.body or "").prose() if s.kind == "text"]
    for wanted in _QUOTED_SECTIONS:
        for segment in segments:
            if not _in_section(segment.section, wanted):
                continue
            for sentence in split_sentences(plain(segment.text)):
                if _quotable(sentence, item.title):
                    return trim(sentence, QUOTE_LIMIT)
    return None


def _in_section(section: str, wanted: str) -> bool:
    if wanted:
        return any(word in section for word in ("purpose", "summary", "motivation", "description"))
    return not section or not any(section.startswith(s) for s in _SKIPPED)


def _quotable(sentence: str, title: str) -> bool:
    letters = sum(ch.isalpha() for ch in sentence)
    return letters >= 15 and not repeats_title(sentence, title) and "#" not in sentence[:8]


def who(lang: str, facts: ItemFacts, own: bool = False) -> str:
    """Models on hardware the item names (``own``: in its title and body, not its comments)."""
    models = join_list(lang, _names(facts.models, own)[:3])
    hardware = join_list(lang, _names(facts.hardware, own)[:3])
    if models and hardware:
        return _p(lang, "who_on", models=models, hardware=hardware)
    return models or hardware


def _names(mentions, own: bool) -> list[str]:
    return list(dict.fromkeys(m.name for m in mentions if not own or m.source.comment_id is None))


def what_it_affects(
    ctx: Context, change: ChangeCandidate, facts: ItemFacts, figures: list[Figure], shapes: Shapes
) -> list[str]:
    lang = ctx.lang
    out: list[str] = []
    affected = who(lang, facts, own=True)
    if figures:
        said = join_list(lang, [render_figure(lang, f) for f in figures[:FIGURES_IN_SENTENCE]])
        base = "impact_fig_who" if affected else "impact_fig"
        out.append(shapes.say(base, who=affected, figures=said))
    elif affected:
        out.append(shapes.say("impact_who", who=affected))
    fixed = [n for n in facts.targets("fixes") if n in ctx.known]
    if fixed:
        out.append(_fixes(ctx, fixed))
    kernels = facts.names("kernels")
    if kernels and not figures and not affected:
        out.append(_p(lang, "impact_kernels", kernels=join_list(lang, kernels[:3])))
    reviewers = {c.author for c in change.comments if c.kind == "review"} - {change.item.author}
    if not out and change.reviews:
        state = "impact_state_merged" if change.item.merged_at else "impact_state_open"
        values = {"reviews": change.reviews, "reviewers": len(reviewers)}
        out.append(_p(lang, "impact_reviews", state=_p(lang, state), **values))
    return out


def _fixes(ctx: Context, fixed: list[int]) -> str:
    lang = ctx.lang
    kinds: list[str] = []
    for number in fixed:
        target = ctx.analysis.facts.get(number)
        kinds += target.symptom_kinds if target else []
    names = [symptom_name(lang, k) for k in dict.fromkeys(kinds)][:3]
    detail = _p(lang, "impact_fixes_symptoms", symptoms=join_list(lang, names)) if names else ""
    refs = join_list(lang, [f"#{n}" for n in fixed[:3]])
    return _p(lang, "impact_fixes", refs=refs, symptoms=detail)


# --- issues worth watching -------------------------------------------------------------------


def write_watch(ctx: Context) -> list[WatchItem]:
    shapes = Shapes(ctx.lang)
    return [watch_reading(ctx, w, shapes) for w in ctx.analysis.watch[:MAX_WATCH]]


def watch_reading(ctx: Context, watch: WatchCandidate, shapes: Shapes) -> WatchItem:
    facts = facts_of(ctx, watch.item, watch.facts)
    symptoms = [symptom_name(ctx.lang, k) for k in facts.symptom_kinds]
    text = joined(ctx.lang, why(ctx, watch, facts, shapes))
    return WatchItem(
        item=item_link(watch.item), signals=symptoms + watch.breadth, why=ctx.polish(text)
    )


def why(ctx: Context, watch: WatchCandidate, facts: ItemFacts, shapes: Shapes) -> list[str]:
    lang = ctx.lang
    out = [*_lead(lang, facts, shapes)]
    affected = who(lang, facts)
    if affected and not facts.out_of_proportion:
        out.append(_p(lang, "watch_where", who=affected))
    out += _regression(ctx, facts)
    if story := storyline_of(ctx, watch.item.number):
        out.append(story)
    if facts.reproducible:
        out.append(_p(lang, "watch_repro"))
    if watch.window_comments:
        out.append(
            _p(lang, "watch_talk", comments=watch.window_comments, participants=watch.participants)
        )
    if watch.reactions:
        out.append(_p(lang, "watch_reactions", reactions=watch.reactions))
    if _no_maintainer_reply(watch):
        if watch.item.comments:
            out.append(shapes.say("watch_no_reply"))
        else:
            out.append(_p(lang, "watch_no_comments"))
    return out


def _lead(lang: str, facts: ItemFacts, shapes: Shapes) -> list[str]:
    symptoms = join_list(lang, [symptom_name(lang, k) for k in facts.symptom_kinds[:3]])
    out = []
    absurd = facts.out_of_proportion
    if absurd:
        r = absurd[0]
        values = {"model": r.model, "params": f"{r.params_b:g}", "amount": f"{r.amount_gb:g}"}
        out.append(_p(lang, "watch_absurd", text=plain(r.text), **values))
    if facts.errors and not absurd:
        error = f"“{trim(facts.errors[0].text, 80)}”"
        if symptoms:
            out.append(shapes.say("watch_error", error=error, symptoms=symptoms))
        else:
            out.append(_p(lang, "watch_error_only", error=error))
    elif symptoms and not absurd:
        out.append(shapes.say("watch_symptoms", symptoms=symptoms))
    return out


def _regression(ctx: Context, facts: ItemFacts) -> list[str]:
    for relation in facts.relations:
        if relation.kind != "regression":
            continue
        if relation.target is not None and relation.target in ctx.known:
            return [_p(ctx.lang, "watch_regression_item", ref=f"#{relation.target}")]
        if relation.version:
            key = "watch_last_good" if relation.text.lower().startswith("work") else None
            return [_p(ctx.lang, key or "watch_regression_version", version=relation.version)]
    return []


def _no_maintainer_reply(watch: WatchCandidate) -> bool:
    """True only when every comment GitHub counts is stored and none is a maintainer's."""
    item = watch.item
    if item.state == "closed":
        return False
    stored = [c for c in watch.comments if c.kind == "issue_comment"]
    if len(stored) < item.comments:
        return False
    return not any(is_maintainer(c.author_association) and c.author != item.author for c in stored)
