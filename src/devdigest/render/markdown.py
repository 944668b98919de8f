"""Markdown and JSON renderings of a DailyReport (one Jinja2 template, strings from i18n)."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from datetime import datetime

import jinja2

from devdigest.models import COUNT_KEYS, DailyReport, ItemLink
from devdigest.render.i18n import catalogue
from devdigest.render.sanitize import strip_invisible, strip_invisible_tree
from devdigest.window import format_local, resolve_tz

# Inline Markdown punctuation, plus { } (Liquid/Jinja) and # (issue references in data).
_PUNCT = re.compile(r"([\\`*_\[\]{}|~#])")
_LINE_START = re.compile(r"^([>+=-])")
_LINE_START_NUMBER = re.compile(r"^(\d+)([.)])")
_MENTION = re.compile(r"@(?=[A-Za-z0-9])")
_ESCAPED_REF = re.compile(r"\\#(\d+)\b")
ZWJ = "\u200d"


def _attr_ref(link: ItemLink) -> str:
    return item_ref(link.number, link.url)


_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("devdigest.render", "templates"),
    autoescape=False,  # Markdown, not HTML: every untrusted value goes through md_escape
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)


_ENV.filters["attr_ref"] = _attr_ref


def md_escape(value: object) -> str:
    """Untrusted text as inert Markdown on one line.

    Markdown punctuation is backslash-escaped, ``<`` and ``&`` become entities (so no raw HTML
    and no entity tricks), ``{{``/``{%`` lose their meaning for Liquid, a line-start ``>``,
    ``-``, ``+``, ``=`` or ``1.`` cannot open a block, and ``@login`` gets a zero-width joiner
    after the ``@`` so it never notifies anyone. Invisible characters are stripped first.
    """
    text = re.sub(r"\s+", " ", strip_invisible(str(value))).strip()
    text = html.escape(text, quote=False).replace("&gt;", ">")
    text = _PUNCT.sub(r"\\\1", text)
    text = text.replace("\\{%", "\\{\\%").replace("%\\}", "\\%\\}")  # no Liquid "{%"
    text = _LINE_START.sub(r"\\\1", text)
    text = _LINE_START_NUMBER.sub(r"\1\\\2", text)
    return _MENTION.sub("@" + ZWJ, text)


def md_url(url: str) -> str | None:
    """An http(s) link target safe inside ``( )``, else ``None``."""
    if not re.match(r"^https?://[^\s]+$", url or ""):
        return None
    return url.replace("(", "%28").replace(")", "%29").replace("<", "%3C").replace(">", "%3E")


def item_ref(number: int, url: str) -> str:
    """``[#N](url)``, or ``#N`` when there is no usable URL."""
    target = md_url(url)
    return f"[#{number}]({target})" if target else f"#{number}"


def _links(report: DailyReport) -> dict[int, str]:
    """Every item URL the report knows, by number."""
    links: dict[int, str] = {}
    for key in COUNT_KEYS:
        links.update({a.number: a.url for a in getattr(report.appendix, key)})
    entries = [e.item for f in report.focus_areas for e in f.issues + f.prs]
    entries += [d.item for d in report.hot_discussions] + [k.item for k in report.key_changes]
    entries += [w.item for w in report.watch]
    links.update({link.number: link.url for link in entries})
    return links


def _text_filter(report: DailyReport) -> Callable[[object], str]:
    """Escape writer text, then link each ``#N`` the report can vouch for."""
    links = _links(report)
    base = _repo_base(report, links)

    def link(match: re.Match[str]) -> str:
        number = int(match.group(1))
        return item_ref(number, links.get(number) or f"{base}/issues/{number}")

    def text(value: object) -> str:
        return _ESCAPED_REF.sub(link, md_escape(value))

    return text


def _repo_base(report: DailyReport, links: dict[int, str]) -> str:
    for url in links.values():
        match = re.match(r"^(https?://[^\s]+?)/(?:issues|pull)/\d+$", url or "")
        if match:
            return match.group(1)
    return f"https://github.com/{report.repo}"


def _delta(value: float | None, unknown: str) -> str:
    if value is None:
        return unknown
    if abs(value) < 0.05:
        return "±0"
    return f"{value:+.1f}"


def render_markdown(report: DailyReport) -> str:
    """The report as Markdown: fixed sections in a fixed order, in the report's language."""
    strings = catalogue(report.lang)
    zone = resolve_tz(report.window.tz)

    def t(key: str, **values: object) -> str:
        return strings[key].format(**values)

    def when(moment: datetime | None) -> str:
        return format_local(moment, zone) if moment else strings["prov_unknown"]

    template = _ENV.get_template("report.md.j2")
    out = template.render(
        r=report,
        t=t,
        text=_text_filter(report),
        md=md_escape,
        ref=item_ref,
        when=when,
        delta=lambda v: _delta(v, strings["trend_unknown"]),
        keys=COUNT_KEYS,
    )
    return re.sub(r"\n{3,}", "\n\n", out).strip() + "\n"


def render_json(report: DailyReport) -> str:
    """The report as JSON (UTF-8 text, indented); ``DailyReport.model_validate_json`` reads it."""
    return clean_json(report.model_dump_json())


def clean_json(text: str, indent: int | None = 2) -> str:
    """JSON text re-serialised with invisible characters stripped from every string
    (``indent=None``: compact, as the store keeps it)."""
    data = strip_invisible_tree(json.loads(text))
    if indent is None:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return json.dumps(data, indent=indent, ensure_ascii=False) + "\n"
