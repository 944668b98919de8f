"""The facts layer: typed, grounded facts read from one item's title, body, comments and reviews.

:func:`compute_item_facts` parses each text as Markdown (markdown-it-py), reads its prose, tables
and code blocks with the vocabulary in ``vocabulary.toml``, and returns an :class:`ItemFacts`
whose every fact names its source (item, comment id, field, character span). Measured figures
come from prose and tables only; logs and tracebacks count as evidence of symptoms, errors and
memory figures.
"""

from __future__ import annotations

from collections.abc import Iterable

from devdigest.analysis.classify import title_tags
from devdigest.analysis.facts import entities as find
from devdigest.analysis.facts.figures import extract_figures, figure_texts
from devdigest.analysis.facts.text import Document, Segment, parse_document, title_document
from devdigest.analysis.facts.types import (
    ErrorSignature,
    Figure,
    ItemFacts,
    Mention,
    Relation,
    ResourceFigure,
    Section,
    Source,
    Symptom,
)
from devdigest.analysis.facts.vocabulary import vocabulary
from devdigest.models import CommentRecord, ItemRecord

__all__ = [
    "ErrorSignature",
    "Figure",
    "ItemFacts",
    "Mention",
    "Relation",
    "ResourceFigure",
    "Section",
    "Source",
    "Symptom",
    "compute_facts",
    "compute_item_facts",
    "figure_texts",
]


class _Collector:
    def __init__(self, item: ItemRecord, repo: str | None) -> None:
        self.item, self.repo = item, repo
        self.lists: dict[str, list] = {k: [] for k in _FIELDS}
        self.reproducible = False

    def read(self, doc: Document, base: Source) -> None:
        issue_logs = not self.item.is_pr  # an issue's logs are evidence; a PR's are test output
        self.lists["figures"] += extract_figures(doc, base)
        for segment in doc.segments:
            code = segment.kind == "code"
            if not code or issue_logs:
                self._named(segment, base, code)
            self.lists["errors"] += find.find_errors(segment, base)
            self.lists["resources"] += find.find_resources(segment, base)
            self.reproducible |= issue_logs and find.is_reproduction(segment)

    def _named(self, segment: Segment, base: Source, code: bool) -> None:
        self.lists["models"] += find.find_models(segment, base)
        self.lists["hardware"] += find.find_hardware(segment, base)
        self.lists["symptoms"] += find.find_symptoms(segment, base)
        if not code:
            self.lists["kernels"] += find.find_kernels(segment, base)
            self.lists["relations"] += find.find_relations(segment, base, self.repo)


_FIELDS = (
    "figures", "models", "hardware", "kernels", "symptoms", "errors", "resources", "relations",
)  # fmt: skip


def compute_item_facts(
    item: ItemRecord, comments: Iterable[CommentRecord] = (), repo: str | None = None
) -> ItemFacts:
    """The facts of ``item`` from its title, body and ``comments`` (bots' comments skipped).

    ``repo`` ("owner/name") lets full GitHub links to the same repository count as relations.
    """
    collect = _Collector(item, repo)
    number = item.number
    collect.read(title_document(item.title), Source(number, None, "title", 0, len(item.title)))
    body = parse_document(item.body or "")
    collect.read(body, Source(number, None, "body", 0, 0))
    human = [c for c in comments if not c.is_bot and c.number == number]
    for comment in human:
        collect.read(
            parse_document(comment.body or ""), Source(number, comment.id, "comment", 0, 0)
        )
    lists = collect.lists
    sections = _sections(body, number)
    return ItemFacts(
        number=number,
        figures=tuple(
            _unique(lists["figures"], lambda f: (f.metric, f.value.strip("~+ "), f.baseline))
        ),
        models=tuple(_specific(_unique(lists["models"], lambda m: m.name.casefold()))),
        hardware=tuple(_unique(lists["hardware"], lambda m: m.name)),
        kernels=tuple(_unique(lists["kernels"], lambda m: m.name)),
        components=tuple(_components(item, human)),
        symptoms=tuple(_unique(lists["symptoms"], lambda s: s.kind)),
        errors=tuple(_unique(lists["errors"], lambda e: e.text)),
        resources=tuple(find.with_model_size(lists["resources"], lists["models"])),
        relations=tuple(_unique(lists["relations"], lambda r: (r.kind, r.target, r.version))),
        sections=tuple(sections),
        has_body=bool((item.body or "").strip()),
        reproducible=collect.reproducible or any(s.name == "reproduce" for s in sections),
    )


def compute_facts(
    items: Iterable[ItemRecord],
    comments: dict[int, list[CommentRecord]],
    repo: str | None = None,
) -> dict[int, ItemFacts]:
    """:func:`compute_item_facts` for each item, with its comments from ``comments``."""
    return {i.number: compute_item_facts(i, comments.get(i.number, ()), repo) for i in items}


def _unique(values: list, key) -> list:
    seen: dict = {}
    for value in values:
        seen.setdefault(key(value), value)
    return list(seen.values())


def _specific(models: list[Mention]) -> list[Mention]:
    """A bare family name ("gpt-oss") goes when a model of that family is named ("gpt-oss-120b")."""
    named = {m.group for m in models if m.name.casefold() != m.group.casefold()}
    return [m for m in models if m.name.casefold() != m.group.casefold() or m.group not in named]


def _components(item: ItemRecord, comments: list[CommentRecord]) -> list[Mention]:
    generic = vocabulary().generic_components
    found: list[Mention] = []
    title = Source(item.number, None, "title", 0, len(item.title))
    for tag in title_tags(item.title):
        if tag.casefold() not in generic:
            found.append(Mention("component", tag, "title tag", title))
    for label in item.labels:
        if label.casefold() not in generic:
            found.append(
                Mention("component", label, "label", Source(item.number, None, "labels", 0, 0))
            )
    for c in comments:
        if c.path:
            where = Source(item.number, c.id, "path", 0, len(c.path))
            found.append(Mention("component", find.component_of_path(c.path), "path", where))
    return _unique(found, lambda m: m.name.casefold())  # fmt: skip


def _sections(doc: Document, number: int) -> list[Section]:
    vocab = vocabulary()
    by_section: dict[str, list[Segment]] = {}
    for segment in doc.segments:
        by_section.setdefault(segment.section, []).append(segment)
    out: dict[str, Section] = {}
    for key, segments in by_section.items():
        name = vocab.section_of(key) if key else None
        heading = next((s for s in segments if s.kind == "heading"), None)
        if name is None or heading is None or name in out:
            continue
        parts = [s for s in segments if s.kind != "heading"]
        prose = " ".join(" ".join(s.text for s in parts if s.kind != "code").split())
        start = heading.offsets[0] if heading.offsets else 0
        end = parts[-1].offsets[-1] + 1 if parts and parts[-1].offsets else start
        out[name] = Section(name, heading.text, prose, Source(number, None, "body", start, end))
    return list(out.values())
