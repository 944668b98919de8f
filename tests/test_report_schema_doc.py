"""docs/report-schema.md documents every field of the report models, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel

from devdigest import models

DOC = Path(__file__).parent.parent / "docs" / "report-schema.md"


def documented(doc: Path = DOC) -> dict[str, set[str]]:
    sections: dict[str, set[str]] = {}
    current = None
    for line in doc.read_text("utf-8").splitlines():
        heading = re.match(r"^### (\w+)$", line)
        if heading:
            current = sections.setdefault(heading.group(1), set())
        elif current is not None and (row := re.match(r"^\| `(\w+)` \|", line)):
            current.add(row.group(1))
    return sections


def report_models() -> dict[str, type[BaseModel]]:
    """Every pydantic model reachable from DailyReport."""
    found: dict[str, type[BaseModel]] = {}
    todo: list[type[BaseModel]] = [models.DailyReport]
    while todo:
        model = todo.pop()
        if model.__name__ in found:
            continue
        found[model.__name__] = model
        for field in model.model_fields.values():
            text = str(field.annotation)
            for name in re.findall(r"\b([A-Z]\w+)\b", text):
                candidate = getattr(models, name, None)
                if isinstance(candidate, type) and issubclass(candidate, BaseModel):
                    todo.append(candidate)
            annotation = field.annotation
            if isinstance(annotation, type) and issubclass(annotation, BaseModel):
                todo.append(annotation)
    return found


def test_schema_doc_matches_the_models():
    doc = documented()
    for name, model in report_models().items():
        assert name in doc, f"docs/report-schema.md has no section for {name}"
        assert doc[name] == set(model.model_fields), name
    assert set(doc) == set(report_models())
