"""Invisible and control characters in untrusted text never reach any output."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from devdigest.models import DailyReport
from devdigest.render.html import render_html
from devdigest.render.markdown import ZWJ, md_escape, render_json, render_markdown
from devdigest.render.sanitize import strip_invisible
from devdigest.site import build_from_reports
from tests.site_reports import make_report
from tests.test_site import small_config

BAD = ["\u202e", "\u2066", "\u200b", "\u200d", "\ufeff", "\x00", "\x1b", "\r"]


def sneaky_report(lang: str = "en") -> DailyReport:
    """A report whose titles, bodies and logins carry the characters of ``BAD``."""
    raw = make_report(lang=lang, hostile=True).model_dump_json()
    raw = raw.replace("Engine hangs", "Engine\\u202e hangs\\u200b\\u0000\\u001b]0;x\\u0007")
    raw = raw.replace("alert(1)", "al\\u2066ert\\ufeff(1)\\r @\\u200dbob")
    raw = raw.replace('"alice"', '"ali\\u200dce"')
    return DailyReport.model_validate_json(raw)


def assert_clean(text: str, where: str) -> None:
    for char in BAD:
        assert char not in text, f"{char!r} in {where}"


def test_strip_invisible_keeps_visible_text() -> None:
    assert strip_invisible("a\u202eb\u200bc\x00d\te\nf 中文 é") == "abcd\te\nf 中文 é"


def test_mentions_stay_defused_after_stripping() -> None:
    assert md_escape("@\u200dbob \u202e@carol") == f"@{ZWJ}bob @{ZWJ}carol"


def test_markdown_html_and_json_are_clean() -> None:
    report = sneaky_report()
    markdown = render_markdown(report)
    assert_clean(markdown.replace(f"@{ZWJ}", "@"), "Markdown")
    assert "Engine hangs" in markdown
    assert_clean(render_html(report).replace(f"@{ZWJ}", "@"), "HTML")
    text = render_json(report)
    assert_clean(text, "JSON")
    assert "\\u0000" not in text and "\\u001b" not in text
    title = DailyReport.model_validate_json(text).hot_discussions[0].item.title
    assert title == "Engine hangs]0;x under bursty load"


@pytest.mark.parametrize("fmt", ["html", "jekyll"])
def test_every_site_file_is_clean(tmp_path, fmt: str) -> None:
    reports = [sneaky_report("zh"), sneaky_report("en")]
    out = tmp_path / "site"
    build_from_reports(reports, small_config(), out, fmt=fmt)
    files = [p for p in out.rglob("*") if p.is_file()]
    assert files
    for path in files:
        text = path.read_text("utf-8").replace(f"@{ZWJ}", "@")
        assert_clean(text, str(path.relative_to(out)))
        if path.suffix == ".xml":
            ET.parse(path)  # NUL would make the feed invalid XML
        if path.suffix == ".json":
            json.loads(text)


def test_feed_summaries_escape_titles(tmp_path) -> None:
    out = tmp_path / "site"
    build_from_reports([make_report(lang="en", hostile=True)], small_config(), out)
    feed = (out / "feed.xml").read_bytes()
    assert b"<script>" not in feed and b"<img" not in feed
    summary = ET.parse(out / "feed.xml").getroot().find(".//{*}summary")
    assert summary.get("type") == "text" and "<img src=x" in summary.text
