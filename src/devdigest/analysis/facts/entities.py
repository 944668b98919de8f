"""Named things and signals in text segments: models, hardware, kernels, symptoms, error
signatures, out-of-proportion memory figures, relations to other items, template sections."""

from __future__ import annotations

import re
from dataclasses import replace

from devdigest.analysis.facts.text import Segment
from devdigest.analysis.facts.types import (
    ErrorSignature,
    Mention,
    Relation,
    ResourceFigure,
    Source,
    Symptom,
)
from devdigest.analysis.facts.vocabulary import group_name, vocabulary

# "Qwen3.5-0.8B", "Qwen/Qwen3-8B", "Llama 3.3 70B": separators, or a space before a digit
_NAME_TAIL = re.compile(r"[A-Za-z0-9_.]*(?:[-_/][A-Za-z0-9_.]+|\s(?=\d)[A-Za-z0-9_.]+)*")
_PARAMS = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?B(?![a-z])", re.I)
_ALLOC = re.compile(
    r"(?:allocat\w*|tried\s+to\s+allocate|trying\s+to\s+allocate|request(?:ed|s|ing)?|"
    r"(?:needs?|requires?|uses?|using|consum\w+|occup\w+)|分配|占用|申请)\s*(?:of\s+)?"
    r"(?:~|about\s+|around\s+|over\s+|约)?\s*(\d+(?:\.\d+)?)\s?(GiB|GB|TiB|TB)\b",
    re.I,
)
_REF = r"(?:#(?P<n>\d+)|https?://github\.com/(?P<repo>[\w.-]+/[\w.-]+)/(?:issues|pull)/(?P<u>\d+))"
_VERSION = r"(?P<v>v?\d+\.\d+(?:\.\d+)?(?:rc\d+)?)"
_RELATIONS = [
    ("fixes", rf"\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?)\s*:?\s+(?:issue\s+)?{_REF}"),
    ("duplicate", rf"\bduplicate\s+of\s+{_REF}"),
    ("follow_up", rf"\bfollow[- ]?ups?\s+(?:to|of|for|on)\s+(?:PR\s+)?{_REF}"),
    (
        "regression",
        rf"\b(?:regression|regressed|broken|broke)\b[^.#\n]{{0,40}}?"
        rf"\b(?:from|since|by|in|after|introduced\s+(?:by|in)|caused\s+by)\s+(?:PR\s+)?"
        rf"(?:{_REF}|{_VERSION})",
    ),
    ("regression", rf"\b(?:worked|works|working)\s+(?:fine\s+)?(?:in|on|with)\s+{_VERSION}"),
    ("regression", rf"\b(?:introduced|caused)\s+(?:by|in)\s+(?:PR\s+)?{_REF}"),
]
_RELATION = [(kind, re.compile(p, re.I)) for kind, p in _RELATIONS]
_REPRO = re.compile(
    r"\b(?:python3?\s+(?:-m\s+\S+|\S+\.py)|vllm\s+(?:serve|bench)|pytest|lm_eval|curl|"
    r"docker\s+run|torchrun|pip\s+install)\b",
    re.I,
)


def _source(segment: Segment, base: Source, start: int, end: int) -> Source:
    s, e = segment.span(start, end)
    return Source(base.number, base.comment_id, base.field, s, e)


def find_models(segment: Segment, base: Source) -> list[Mention]:
    out = []
    pattern, families = vocabulary().models
    for match in pattern.finditer(segment.text):
        family = group_name(match, families)
        tail = _NAME_TAIL.match(segment.text, match.end())
        end = tail.end() if tail else match.end()
        name = segment.text[match.start() : end].rstrip(".-_/")
        name = name.rsplit("/", 1)[-1] if "/" in name else name
        params = _PARAMS.search(name)
        size = float(params.group(1)) if params else None
        out.append(Mention("model", name, family, _source(segment, base, match.start(), end), size))
    return out


def find_hardware(segment: Segment, base: Source) -> list[Mention]:
    vocab = vocabulary()
    out = []
    for match in vocab.hardware.finditer(segment.text):
        written = match.group(1)
        folded = written.casefold().replace(" ", "")
        name = vocab.canonical_hardware.get(
            folded, written.lower() if folded.startswith("gfx") else written
        )
        vendor = vocab.vendors.get(name.casefold(), "AMD" if folded.startswith("gfx") else "")
        out.append(Mention("hardware", name, vendor, _source(segment, base, *match.span())))
    return out  # fmt: skip


def find_kernels(segment: Segment, base: Source) -> list[Mention]:
    pattern, names = vocabulary().kernels
    out = []
    for match in pattern.finditer(segment.text):
        name = group_name(match, names)
        out.append(Mention("kernel", name, name, _source(segment, base, *match.span())))
    return out


def find_symptoms(segment: Segment, base: Source) -> list[Symptom]:
    vocab = vocabulary()
    pattern, kinds = vocab.symptoms
    found: dict[str, Symptom] = {}
    for match in pattern.finditer(segment.text):
        kind = group_name(match, kinds)
        if kind not in found:
            words = " ".join(match.group(0).split())
            where = _source(segment, base, *match.span())
            found[kind] = Symptom(kind, words, vocab.weights[kind], where)
    return list(found.values())


def find_errors(segment: Segment, base: Source) -> list[ErrorSignature]:
    out = []
    for match in vocabulary().errors.finditer(segment.text):
        text = " ".join(match.group(0).split()).rstrip(" .:")
        out.append(ErrorSignature(text, _source(segment, base, *match.span())))
    return out


def find_resources(segment: Segment, base: Source) -> list[ResourceFigure]:
    out = []
    for match in _ALLOC.finditer(segment.text):
        amount = float(match.group(1)) * (1024 if match.group(2).upper().startswith("T") else 1)
        source = _source(segment, base, *match.span())
        out.append(ResourceFigure(amount, " ".join(match.group(0).split()), source))
    return out


def with_model_size(resources: list[ResourceFigure], models: list[Mention]) -> list[ResourceFigure]:
    """Each memory figure set against the smallest sized model the item names (bf16 weights)."""
    sized = sorted((m for m in models if m.params_b), key=lambda m: m.params_b or 0)
    if not sized:
        return resources
    model = sized[0]
    weights_gb = 2.0 * (model.params_b or 1.0)
    return [
        replace(
            r, model=model.name, params_b=model.params_b, ratio=round(r.amount_gb / weights_gb, 1)
        )
        for r in resources
    ]


def find_relations(segment: Segment, base: Source, repo: str | None) -> list[Relation]:
    out = []
    for kind, pattern in _RELATION:
        for match in pattern.finditer(segment.text):
            g = match.groupdict()
            if g.get("repo") and repo and g["repo"].casefold() != repo.casefold():
                continue
            number = g.get("n") or g.get("u")
            target = int(number) if number else None
            if target == base.number:
                continue
            text = " ".join(match.group(0).split())
            where = _source(segment, base, *match.span())
            out.append(Relation(kind, target, g.get("v"), text, where))
    return out


def is_reproduction(segment: Segment) -> bool:
    """A command or script that reproduces the problem (environment dumps aside)."""
    return "environment" not in segment.section and bool(_REPRO.search(segment.text))


def component_of_path(path: str) -> str:
    """``vllm/v1/attention/backends/x.py`` → ``vllm/v1/attention`` (depth from the vocabulary)."""
    parts = [p for p in path.split("/") if p]
    depth = vocabulary().path_depth
    return "/".join(parts[: min(depth, max(len(parts) - 1, 1))])
