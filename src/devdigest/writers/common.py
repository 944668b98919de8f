"""Helpers shared by the writers: item links, references, short titles, Chinese spacing."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from devdigest.analysis.types import WindowAnalysis
from devdigest.models import ItemLink, ItemRecord, Statement
from devdigest.window import format_local
from devdigest.writers.extract import plain

_REF = re.compile(r"(?<![\w&/])#(\d+)\b")
_TAGS = re.compile(r"^\s*(?:\[[^\]]{1,40}\]\s*:?\s*)+")
_CJK = "\u3400-\u4dbf\u4e00-\u9fff"
_LATIN_AFTER_CJK = re.compile(rf"([{_CJK}])([A-Za-z0-9#])")
_LATIN_BEFORE_CJK = re.compile(rf"([A-Za-z0-9%)\]])([{_CJK}])")
MAINTAINER_ASSOCIATIONS = ("OWNER", "MEMBER", "COLLABORATOR")


@dataclass
class Context:
    """What every section writer needs: the analysis, the language and the citable numbers."""

    analysis: WindowAnalysis
    lang: str
    known: set[int]

    @classmethod
    def of(cls, analysis: WindowAnalysis, lang: str) -> Context:
        return cls(analysis, lang, known_numbers(analysis))

    def when(self, moment: datetime) -> str:
        return format_local(moment, self.analysis.window.zone)

    def statement(self, text: str, refs: Iterable[int] = ()) -> Statement:
        text = self.polish(text)
        found = {int(n) for n in _REF.findall(text)} & self.known
        return Statement(text=text, refs=sorted(found | (set(refs) & self.known)))

    def polish(self, text: str) -> str:
        """Unknown ``#N`` lose their hash (they cannot be checked); Chinese gets its spacing."""
        text = _REF.sub(lambda m: m.group(0) if int(m.group(1)) in self.known else m.group(1), text)
        return zh_spacing(text) if self.lang == "zh" else text

    def name_of(self, category: str) -> str:
        for topic in self.analysis.topics:
            if topic.rule.name == category:
                return topic.rule.display(self.lang)
        return category


def known_numbers(analysis: WindowAnalysis) -> set[int]:
    """Items of the window, items the analysis refers to, and items linked from them."""
    numbers = set(analysis.items)
    for items in analysis.appendix.values():
        numbers.update(item.number for item in items)
    for thread in analysis.discussions:
        numbers.add(thread.item.number)
        numbers.update(thread.linked)
    for change in analysis.key_changes:
        numbers.add(change.item.number)
        numbers.update(change.linked)
    for watch in analysis.watch:
        numbers.add(watch.item.number)
    for focus in analysis.focus:
        numbers.update(m.item.number for m in focus.issues + focus.prs)
    return numbers


def item_state(item: ItemRecord) -> str:
    if item.merged_at is not None:
        return "merged"
    if item.state == "closed":
        return "closed"
    return "draft" if item.draft else "open"


def item_link(item: ItemRecord) -> ItemLink:
    return ItemLink(
        number=item.number,
        title=item.title,
        url=item.html_url,
        is_pr=item.is_pr,
        state=item_state(item),
    )


def short_title(title: str) -> str:
    """The title without leading tags such as ``[Bugfix]`` or ``[Bug]:``."""
    stripped = _TAGS.sub("", title).strip()
    return plain(stripped or title).rstrip(" .。")


def zh_spacing(text: str) -> str:
    """A space between Chinese and Latin letters or digits, none around Chinese punctuation."""
    text = _LATIN_AFTER_CJK.sub(r"\1 \2", text)
    return _LATIN_BEFORE_CJK.sub(r"\1 \2", text)


def is_maintainer(association: str) -> bool:
    return association in MAINTAINER_ASSOCIATIONS
