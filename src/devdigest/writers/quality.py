"""Measures of a written report's prose: the Chinese share of a zh narrative, repeated sentences.

Both look at the narrative outside the appendix. The Chinese share leaves out what a zh report
keeps in its original language: item titles, people's logins, quoted evidence (“…”), code, URLs and
references.
"""

from __future__ import annotations

import re
from collections import Counter

from devdigest.models import DailyReport
from devdigest.writers.common import short_title

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")
_QUOTED = re.compile(r"“[^”]*”|\"[^\"]*\"|`[^`]*`")
_URL = re.compile(r"https?://\S+")
_SENTENCE = re.compile(r"(?<=[。！？])|(?<=[.!?])\s+")


def narrative(report: DailyReport) -> list[str]:
    """Every narrative text of the report outside the appendix, in reading order."""
    texts = [s.text for s in report.summary]
    for focus in report.focus_areas:
        texts += [s.text for s in focus.overview]
        texts += [e.about for e in focus.issues + focus.prs]
    for hot in report.hot_discussions:
        texts += [hot.core_question, *(v.position for v in hot.viewpoints)]
        texts += [hot.contention, hot.status]
    texts += [s.text for s in report.discussion_notes + report.trend_notes]
    for change in report.key_changes:
        texts += [change.technical, change.impact]
    texts += [s.text for s in report.activity_notes]
    texts += [w.why for w in report.watch]
    return [t for t in texts if t]


def titles(report: DailyReport) -> list[str]:
    """Item titles the report names (full and without tags), longest first."""
    appendix = report.appendix
    found = {a.title for key in type(appendix).model_fields for a in getattr(appendix, key)}
    for focus in report.focus_areas:
        found |= {e.item.title for e in focus.issues + focus.prs}
    found |= {h.item.title for h in report.hot_discussions}
    found |= {c.item.title for c in report.key_changes} | {w.item.title for w in report.watch}
    found |= {short_title(t) for t in found}
    return sorted((t for t in found if t), key=len, reverse=True)


def logins(report: DailyReport) -> list[str]:
    """The logins the report names (authors, participants, contributors), longest first."""
    appendix = report.appendix
    found = {a.author for key in type(appendix).model_fields for a in getattr(appendix, key)}
    found |= {v.login for h in report.hot_discussions for v in h.viewpoints}
    activity = report.activity
    found |= set(activity.first_time_contributors) | set(activity.bots_excluded)
    found |= {login for login, _ in activity.top_reviewers}
    return sorted((login for login in found if login), key=len, reverse=True)


def without_kept_text(report: DailyReport, quotes: bool = False) -> str:
    """The narrative minus titles, logins, quotes, code and URLs (what a zh report should say
    in Chinese); ``quotes=True`` keeps the quoted evidence and code."""
    text = "\n".join(narrative(report))
    text = _URL.sub(" ", text if quotes else _QUOTED.sub(" ", text))
    for kept in titles(report) + logins(report):
        text = text.replace(kept, " ")
    return text


def letter_counts(text: str) -> tuple[int, int]:
    """(CJK characters, Latin letters) in ``text``."""
    return len(_CJK.findall(text)), len(_LATIN.findall(text))


def cjk_share(text: str) -> float:
    """CJK characters / (CJK characters + Latin letters); 1.0 for text with neither."""
    cjk, latin = letter_counts(text)
    return cjk / (cjk + latin) if cjk + latin else 1.0


def repeated_sentences(report: DailyReport, limit: int = 2) -> dict[str, int]:
    """Sentences of the narrative said more than ``limit`` times, with their counts."""
    counts: Counter[str] = Counter()
    for text in narrative(report):
        counts.update(s.strip() for s in _SENTENCE.split(text) if len(s.strip()) > 3)
    return {sentence: n for sentence, n in counts.items() if n > limit}
