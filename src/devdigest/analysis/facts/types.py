"""The typed facts of one item: every fact carries the place in the text it was read from."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Source:
    """Where a fact was read: the item, the comment (None: the item's title or body), the field
    ("title", "body" or "comment") and the character span in that text."""

    number: int
    comment_id: int | None
    field: str
    start: int
    end: int


@dataclass(frozen=True)
class Figure:
    """A measured figure: "throughput up ~6%", "TTFT 120 → 95 ms", "1.8x speedup"."""

    metric: str  # canonical metric: throughput, TTFT, latency, memory, speedup…
    value: str  # as written: "~6%", "95", "1.8x"
    unit: str  # "%", "x", "ms", "tok/s"… ("" when the text gives none)
    direction: str  # up, down, better, worse or "" (not stated)
    baseline: str | None  # the value it is compared with, when stated
    text: str  # the phrase, verbatim (emphasis marks dropped)
    source: Source
    context: str = ""  # a table row's label ("Qwen3-8B, bs 32")


@dataclass(frozen=True)
class Mention:
    """A model, a piece of hardware, a backend/kernel or a component."""

    kind: str  # model, hardware, kernel, component
    name: str  # as written ("Qwen3.5-0.8B", "MI300X", "vllm/v1/attention")
    group: str  # model family, hardware vendor, kernel name, component origin (label/tag/path)
    source: Source
    params_b: float | None = None  # models: parameters in billions when the name says ("0.8B")


@dataclass(frozen=True)
class Symptom:
    kind: str  # crash, hang, oom, wrong_output, accuracy_drop, perf_regression, security, …
    text: str  # the words found
    weight: float
    source: Source


@dataclass(frozen=True)
class ErrorSignature:
    text: str  # "torch.OutOfMemoryError", "CUDA error: an illegal memory access was encountered"
    source: Source


@dataclass(frozen=True)
class ResourceFigure:
    """An amount of memory the text says was requested or used, set against the model's size."""

    amount_gb: float
    text: str
    source: Source
    model: str | None = None
    params_b: float | None = None
    ratio: float | None = None  # amount / the model's bf16 weights (2 GB per billion params)

    @property
    def out_of_proportion(self) -> bool:
        return self.ratio is not None and self.ratio >= OUT_OF_PROPORTION


OUT_OF_PROPORTION = 20.0


@dataclass(frozen=True)
class Relation:
    kind: str  # fixes, regression, follow_up, duplicate
    target: int | None  # the item referred to
    version: str | None  # "v0.11.0" for "regression since v0.11.0"
    text: str
    source: Source


@dataclass(frozen=True)
class Section:
    name: str  # canonical: purpose, test_plan, test_result, environment, bug, reproduce
    heading: str
    text: str  # the section's prose, plain
    source: Source


@dataclass(frozen=True)
class ItemFacts:
    number: int
    figures: tuple[Figure, ...] = ()
    models: tuple[Mention, ...] = ()
    hardware: tuple[Mention, ...] = ()
    kernels: tuple[Mention, ...] = ()
    components: tuple[Mention, ...] = ()
    symptoms: tuple[Symptom, ...] = ()
    errors: tuple[ErrorSignature, ...] = ()
    resources: tuple[ResourceFigure, ...] = ()
    relations: tuple[Relation, ...] = ()
    sections: tuple[Section, ...] = field(default=())
    has_body: bool = False
    reproducible: bool = False  # a reproduction section, command or script is given

    def names(self, kind: str) -> list[str]:
        """Distinct names of ``kind`` (models, hardware, kernels, components), first seen first."""
        return list(dict.fromkeys(m.name for m in getattr(self, kind)))

    @property
    def families(self) -> list[str]:
        return list(dict.fromkeys(m.group for m in self.models))

    @property
    def symptom_kinds(self) -> list[str]:
        """Symptom kinds, most severe first."""
        ranked = sorted(self.symptoms, key=lambda s: -s.weight)
        return list(dict.fromkeys(s.kind for s in ranked))

    @property
    def severity(self) -> float:
        return sum({s.kind: s.weight for s in self.symptoms}.values())

    def targets(self, kind: str) -> list[int]:
        return [r.target for r in self.relations if r.kind == kind and r.target is not None]

    def section(self, name: str) -> Section | None:
        return next((s for s in self.sections if s.name == name), None)

    @property
    def out_of_proportion(self) -> list[ResourceFigure]:
        return [r for r in self.resources if r.out_of_proportion]
