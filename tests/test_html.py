"""render_html: escaping, link safety, #N links, stable section anchors."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from devdigest.render.html import (
    make_parser,
    render_html,
    render_html_parts,
    section_ids,
    validate_link,
)
from devdigest.render.i18n import catalogue
from devdigest.render.markdown import render_markdown
from tests.site_reports import make_report


class Collect(HTMLParser):
    """Every tag with its attributes, and the text as a browser would show it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.heading: str | None = None
        self.headings: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "h2":
            self.heading = dict(attrs).get("id") or ""
            self.headings.append((tag, self.heading, ""))

    def handle_endtag(self, tag):
        if tag == "h2":
            self.heading = None

    def handle_data(self, data):
        self.text.append(data)
        if self.heading is not None:
            tag, anchor, text = self.headings[-1]
            self.headings[-1] = (tag, anchor, text + data)


def parse(html: str) -> Collect:
    collector = Collect()
    collector.feed(html)
    return collector


def test_untrusted_text_is_escaped_and_entities_stay_literal():
    report = make_report(hostile=True, lang="en")
    page = parse(render_html(report))
    assert "script" not in {tag for tag, _ in page.tags}
    assert "img" not in {tag for tag, _ in page.tags}
    hrefs = [attrs.get("href") or "" for tag, attrs in page.tags if tag == "a"]
    assert hrefs and not [h for h in hrefs if not h.startswith(("https://", "#"))]
    shown = "".join(page.text)
    # What a reader sees is the text as written: the tag, the entity, the template syntax.
    assert "<script>alert(1)</script>" in shown
    assert "&lt;b&gt;" in shown and "&amp;" in shown
    assert "{{ site }}" in shown and "{{ site.github }}" in shown


@pytest.mark.parametrize(
    "url",
    ["javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,hi", "vbscript:x", "file:///x"],
)
def test_dangerous_link_schemes_are_not_links(url):
    assert not validate_link(url)
    html = make_parser().render(f"[x]({url}) ![i]({url})")
    assert "<a" not in html and "<img" not in html


def test_markdown_it_default_validator_blocks_javascript():
    from markdown_it import MarkdownIt

    assert "<a" not in MarkdownIt("commonmark").render("[x](javascript:alert(1))")


def test_issue_refs_link_only_in_text():
    report = make_report(repo="o/r", lang="en")
    markdown = "## S\n\nsee #12, `#13`, [#14](https://example.org/x) and a#15\n"
    page = parse(render_html(report, markdown))
    links = [(attrs["href"], attrs.get("rel")) for tag, attrs in page.tags if tag == "a"]
    assert links == [
        ("https://github.com/o/r/issues/12", "noopener"),
        ("https://example.org/x", "noopener"),
    ]


def test_sections_get_stable_ids_in_report_order():
    for lang in ("zh", "en"):
        report = make_report(lang=lang)
        parts = render_html_parts(report)
        page = parse(parts.body)
        strings = catalogue(lang)
        expected_titles = [strings["h_summary"]]
        expected_titles += [strings["h_focus"].format(name=f.name) for f in report.focus_areas]
        expected_titles += [
            strings[f"h_{k}"]
            for k in (
                "discussions",
                "topics",
                "changes",
                "activity",
                "watch",
                "continuity",
                "appendix",
            )
        ]
        expected_titles.append(strings["h_provenance"])
        assert [h[2].strip() for h in page.headings] == expected_titles
        assert [h[1] for h in page.headings] == section_ids(report)
        assert [e.anchor for e in parts.toc if e.level == 2] == section_ids(report)
        assert section_ids(report)[:3] == ["summary", "focus-1", "discussions"]


def test_default_markdown_is_the_report_renderer():
    report = make_report(lang="en")
    html = render_html(report)
    assert html == render_html(report, render_markdown(report))
    assert re.search(r'<h2 id="appendix">', html)
