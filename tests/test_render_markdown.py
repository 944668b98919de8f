"""The Markdown and JSON renderers and the offline writer over hand-built analyses."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from markdown_it import MarkdownIt

from devdigest.config import Config, LLMSettings
from devdigest.errors import ConfigError
from devdigest.models import DailyReport
from devdigest.render.i18n import CATALOGUES, t
from devdigest.render.markdown import md_escape, render_json, render_markdown
from devdigest.window import format_local, resolve_tz
from devdigest.writers import write_report
from devdigest.writers.offline import write_offline
from tests.analysis_builders import busy_analysis, empty_analysis
from tests.helpers import at

NOW = datetime(2026, 3, 13, 4, 0, tzinfo=UTC)
MD = MarkdownIt("commonmark", {"html": False}).enable("table")
NASTY = "<script>alert(1)</script> {{ x }} {% y %} | a `b` *c* _d_ [e](javascript:x) @alice & co"


def html_of(markdown: str) -> str:
    return MD.render(markdown)


def headings(markdown: str) -> list[str]:
    return re.findall(r"^## (.+)$", markdown, re.M)


@pytest.mark.parametrize(
    "raw",
    ["*bold*", "_it_", "`code`", "[x](http://e.com)", "<b>x</b>", "a | b", "{{ v }}", "# h"],
)
def test_md_escape_renders_as_the_literal_text(raw):
    rendered = html_of(md_escape(raw))
    text = rendered.removeprefix("<p>").removesuffix("</p>\n")
    expected = raw.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    assert text == expected


def test_md_escape_blocks_line_start_constructs_and_mentions():
    for raw in ("- item", "> quote", "1. one", "+ plus", "=== x"):
        rendered = html_of(md_escape(raw))
        assert rendered.startswith("<p>"), (raw, rendered)
    escaped = md_escape("ping @alice and @bob-2 please")
    assert not re.search(r"@[A-Za-z0-9]", escaped)
    assert "alice" in escaped and "bob-2" in escaped


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_untrusted_titles_render_safely(lang):
    report = write_offline(busy_analysis(NASTY), lang, now=NOW)
    markdown = render_markdown(report)
    html = html_of(markdown)
    assert "<script" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "{{" not in markdown and "{%" not in markdown
    assert 'href="javascript' not in html
    assert html.count("<table>") == 1  # the topics table only: "|" in titles made none
    assert not re.search(r"@[A-Za-z0-9]", re.sub(r"`[^`]*`", "", markdown))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_empty_sections_say_so_in_one_line(lang):
    report = write_offline(empty_analysis(), lang, now=NOW)
    markdown = render_markdown(report)
    for key in ("empty_discussions", "empty_changes", "empty_watch", "empty_topics"):
        assert t(lang, key) in markdown
    assert markdown.count(t(lang, "empty_list")) == 5  # the five appendix lists
    for heading in headings(markdown):  # every heading is followed by some text
        after = markdown.split(f"## {heading}\n", 1)[1].lstrip("\n")
        assert after and not after.startswith("## ")


def test_layout_is_the_same_for_a_busy_and_an_empty_day():
    for lang in ("zh", "en"):
        busy = headings(render_markdown(write_offline(busy_analysis(), lang, now=NOW)))
        empty = headings(render_markdown(write_offline(empty_analysis(), lang, now=NOW)))
        assert busy == empty
        assert busy[0] == t(lang, "h_summary") and busy[-1] == t(lang, "h_provenance")


def test_catalogues_have_the_same_keys():
    assert CATALOGUES["zh"].keys() == CATALOGUES["en"].keys()


def test_statements_carry_the_refs_they_mention():
    report = write_offline(busy_analysis(), "en", now=NOW)
    statements = report.summary + report.trend_notes + report.activity_notes
    statements += [s for f in report.focus_areas for s in f.overview]
    for statement in statements:
        mentioned = sorted({int(n) for n in re.findall(r"#(\d+)", statement.text)})
        assert statement.refs == mentioned


def test_hot_discussion_positions_come_from_the_thread():
    report = write_offline(busy_analysis(), "en", now=NOW)
    (discussion,) = report.hot_discussions
    positions = {v.login: v.position for v in discussion.viewpoints}
    assert positions["carol"] == "Requested changes: “Please add tests before we merge.”"
    assert positions["dave"] == "Approved the PR without further comment."
    assert "not sure we should change the default" in positions["erin"]
    assert discussion.viewpoints[0].role == "author"
    assert "carol" in discussion.contention and "dave" in discussion.contention
    merged = format_local(at(20), resolve_tz("Asia/Shanghai"))
    assert discussion.status == f"Merged on {merged}."


def test_activity_notes_name_the_excluded_bots_and_trends_admit_no_history():
    for lang in ("zh", "en"):
        report = write_offline(busy_analysis(), lang, now=NOW)
        assert any("mergify[bot]" in s.text for s in report.activity_notes)
        no_history = "暂无法判断趋势" if lang == "zh" else "trends cannot be judged"
        assert any(no_history in s.text for s in report.trend_notes)


def test_chinese_text_uses_chinese_punctuation_and_spacing():
    report = write_offline(busy_analysis(), "zh", now=NOW)
    text = " ".join(s.text for s in report.summary)
    assert "。" in text and ". " not in text.replace("e.g. ", "")
    assert re.search(r"[\u4e00-\u9fff][A-Za-z0-9]", text) is None  # a space between the two
    assert not text.startswith(("好的", "以下是"))


def test_json_round_trips():
    report = write_offline(busy_analysis(), "zh", now=NOW)
    assert DailyReport.model_validate_json(render_json(report)) == report
    assert "缺陷修复" in render_json(report)  # UTF-8 text, not \\u escapes


def test_write_report_chooses_the_writer():
    analysis = busy_analysis()
    config = Config(db=":memory:")
    assert write_report(analysis, "en", config=config, store=None, now=NOW).provenance.writer == (
        "offline"
    )
    with pytest.raises(ConfigError, match="DEVDIGEST_LLM_BASE_URL"):
        write_report(analysis, "en", writer="llm", config=config, store=None, now=NOW)
    with pytest.raises(ConfigError, match="unknown writer"):
        write_report(analysis, "en", writer="gpt", config=config, store=None, now=NOW)
    configured = Config(db=":memory:", llm=LLMSettings(base_url="http://127.0.0.1:9", model="m"))
    assert configured.llm_for(analysis.project).configured
