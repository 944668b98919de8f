"""Message content: limits on a huge report (cut only between whole lines, never mid-word or
mid-link), no @-pings, hostile text escaped for each platform's markup."""

from __future__ import annotations

import html
import json
import re

from devdigest.models import FocusEntry, ItemLink, Statement
from devdigest.notify import deliver_pending
from devdigest.notify.text import Piece, clip, fit_lines, utf8_bytes
from tests.fakes.notify_server import FakeReceivers
from tests.notify_case import NOW, REPO, InstantTransport, environment, make_config
from tests.site_reports import make_report

WORDS = ["scheduler", "regression", "after", "enabling", "chunked", "prefill", "on", "MI300X"]


def _sentence(k: int, words: int = 220) -> str:
    return f"S{k}: " + " ".join(WORDS[i % len(WORDS)] + str(k) for i in range(words)) + "."


def huge_report(lang: str = "en"):
    report = make_report(lang=lang)
    report.summary = [Statement(text=_sentence(k, 400)) for k in range(12)]
    area = report.focus_areas[0]
    area.overview = [Statement(text=_sentence(100 + k, 60)) for k in range(3)]
    area.prs = [
        FocusEntry(
            item=ItemLink(
                number=5000 + k,
                title=_sentence(200 + k, 40),
                url=f"https://github.com/{REPO}/pull/{5000 + k}",
                is_pr=True,
            ),
            reasons=["label rocm"],
            about="x",
        )
        for k in range(10)
    ]
    return report


def _send(fake: FakeReceivers, store, tmp_path, reports):
    config = make_config(fake, tmp_path / "store.sqlite3")
    env = environment(fake)
    return deliver_pending(
        config, store, REPO, reports, now=NOW, transport=InstantTransport(), env=env
    )


def test_a_huge_report_fits_every_platform(receivers: FakeReceivers, store, tmp_path):
    results = _send(receivers, store, tmp_path, [huge_report()])
    assert all(r.status == "sent" for r in results), [r.error for r in results]
    assert all(not r.problems for r in receivers.log)
    for platform in ("slack", "discord", "feishu", "dingtalk", "wecom", "telegram"):
        raw = receivers.received(platform)[0].raw.decode()
        assert "more on the site" in raw, platform
    wecom = receivers.received("wecom")[0].body["markdown"]["content"]
    assert 3500 < utf8_bytes(wecom) <= 4096  # filled, not just emptied


def test_lines_are_whole_and_links_intact(receivers: FakeReceivers, store, tmp_path):
    report = huge_report()
    _send(receivers, store, tmp_path, [report])
    text = receivers.received("telegram")[0].body["text"]
    sentences = {s.text for s in report.summary} | {s.text for s in report.focus_areas[0].overview}
    titles = {f"#{e.item.number} {e.item.title}": e.item.url for e in report.focus_areas[0].prs}
    bullets = [line[2:] for line in text.splitlines() if line.startswith("• ")]
    assert bullets, text
    for bullet in bullets:
        link = re.fullmatch(r'<a href="([^"]+)">(.*)</a>', bullet)
        if link:
            assert titles[html.unescape(link.group(2))] == link.group(1)
        else:
            assert html.unescape(bullet) in sentences
    assert text.endswith('">Read the full report</a>')


def test_cjk_report_is_measured_in_bytes_for_wecom(receivers: FakeReceivers, store, tmp_path):
    report = huge_report(lang="zh")
    report.summary = [
        Statement(text="调度器在启用分块预填充后出现性能回退。" * 40) for _ in range(6)
    ]
    results = _send(receivers, store, tmp_path, [report])
    assert all(r.status == "sent" for r in results)
    content = receivers.received("wecom")[0].body["markdown"]["content"]
    assert utf8_bytes(content) <= 4096 and "更多内容见网站" in content


def test_no_pings_anywhere(receivers: FakeReceivers, store, tmp_path):
    report = make_report()
    report.summary = [Statement(text="Thanks @alice and @everyone; cc @here @channel @all.")]
    report.focus_areas[0].prs[0].item.title = "@bob [ROCm] fix for @vllm-project/amd"
    _send(receivers, store, tmp_path, [report])
    assert len(receivers.log) == 7
    for received in receivers.log:
        body = json.dumps(received.body, ensure_ascii=False)
        assert not re.search(r"@(alice|everyone|here|channel|all|bob|vllm)", body), (
            received.platform
        )
        assert "<!" not in body and "<@" not in body
    assert "Thanks alice and everyone" in receivers.received("hook")[0].raw.decode()


def test_hostile_titles_are_escaped(receivers: FakeReceivers, store, tmp_path):
    report = make_report(hostile=True)
    report.focus_areas[0].prs[0].item.title = '<at id=all></at> <script>x</script> *b* <a href="j">'
    _send(receivers, store, tmp_path, [report])
    assert all(not r.problems and r.status == 200 for r in receivers.log)
    slack = json.dumps(receivers.received("slack")[0].body)
    assert "&lt;script&gt;" in slack and "<script>" not in slack
    telegram = receivers.received("telegram")[0].body["text"]
    assert "&lt;at id=all&gt;&lt;/at&gt; &lt;script&gt;" in telegram
    wecom = receivers.received("wecom")[0].body["markdown"]["content"]
    assert r"&lt;at id=all>&lt;/at> &lt;script>x&lt;/script> \*b\*" in wecom
    feishu = json.dumps(receivers.received("feishu")[0].body, ensure_ascii=False)
    assert "<at" not in feishu and "&lt;at id=all>" in feishu
    discord = receivers.received("discord")[0].body["embeds"][0]["description"]
    assert r"\<script\>" in discord and r"\*b\*" in discord


def test_clip_cuts_at_a_word_boundary():
    assert clip("alpha beta gamma", 16) == "alpha beta gamma"
    assert clip("alpha beta gamma", 15) == "alpha beta…"
    assert clip("alpha beta gamma", 5) == ""  # no whole word fits before the mark
    assert clip("调度器回退问题", 4) == "调度器…"  # CJK characters are words of their own
    assert clip("https://example.org/a/very/long/link", 20) == ""


def test_fit_lines_keeps_whole_lines_and_drops_dangling_headings():
    pieces = [
        Piece("H1", heading=True),
        Piece("one two"),
        Piece("H2", heading=True),
        Piece("x" * 9),
    ]
    assert fit_lines(pieces, 100, "more") == "H1\none two\nH2\nxxxxxxxxx"
    assert fit_lines(pieces, 20, "more") == "H1\none two\nmore"
    assert fit_lines(pieces, 9, "more") == "more"
