"""The static site: golden pages, links, feeds, JSON index, incremental and atomic builds."""

from __future__ import annotations

import json
import os
import posixpath
import re
import shutil
import threading
import urllib.request
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

from devdigest.cli import main
from devdigest.config import Config, Project
from devdigest.errors import ConfigError, SiteError
from devdigest.render.markdown import render_markdown
from devdigest.site import build_from_reports, build_site
from devdigest.site.build import MANIFEST
from devdigest.site.jekyll import escape_liquid
from devdigest.store import open_store
from tests.site_reports import make_report

GOLDEN = Path(__file__).parent / "golden" / "site"
ATOM = "{http://www.w3.org/2005/Atom}"


def small_reports():
    """2 projects x 2 days; vLLM in zh and en (one en report hostile), SGLang in en."""
    reports = [
        make_report(day=day, lang=lang, hostile=(day == "2026-03-13" and lang == "en"))
        for day in ("2026-03-12", "2026-03-13")
        for lang in ("zh", "en")
    ]
    reports += [
        make_report("sgl-project/sglang", "SGLang", day, "en", counts=(1, 2, 3, 4, k))
        for k, day in enumerate(("2026-03-11", "2026-03-13"))
    ]
    return reports


def small_config(db: str = "unused.sqlite3", **extra) -> Config:
    projects = [Project(repo="vllm-project/vllm", name="vLLM"), Project(repo="pytorch/pytorch")]
    return Config(db=db, projects=projects, **extra)


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != MANIFEST
    }


@pytest.fixture
def site(tmp_path):
    out = tmp_path / "site"
    build_from_reports(small_reports(), small_config(), out)
    return out


def test_golden_site(site):
    built = tree(site)
    if os.environ.get("DEVDIGEST_UPDATE_GOLDEN"):
        shutil.rmtree(GOLDEN, ignore_errors=True)
        for rel, data in built.items():
            (GOLDEN / rel).parent.mkdir(parents=True, exist_ok=True)
            (GOLDEN / rel).write_bytes(data)
    expected = tree(GOLDEN)
    assert sorted(built) == sorted(expected), "regenerate with DEVDIGEST_UPDATE_GOLDEN=1"
    for rel, data in built.items():
        assert data == expected[rel], f"{rel} differs; regenerate with DEVDIGEST_UPDATE_GOLDEN=1"


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value is not None:
                self.refs.append(value)
            if name == "id" and value:
                self.ids.add(value)


def parse_links(path: Path) -> Links:
    parser = Links()
    parser.feed(path.read_text("utf-8"))
    return parser


def test_every_internal_link_resolves(site):
    pages = sorted(site.rglob("*.html"))
    assert len(pages) == 1 + 3 + 6  # home, three projects (one configured without reports), days
    checked = 0
    for page in pages:
        links = parse_links(page)
        for ref in links.refs:
            assert not ref.startswith(("javascript:", "data:", "//")), ref
            if ref.startswith(("https://", "http://")):
                continue
            assert not ref.startswith("/"), f"{page}: absolute link {ref} breaks file://"
            target, _, fragment = ref.partition("#")
            resolved = (page.parent / target).resolve() if target else page
            assert resolved.is_file(), f"{page.relative_to(site)} links to missing {ref}"
            if fragment:
                assert fragment in parse_links(resolved).ids, f"{ref}: no such anchor"
            checked += 1
    assert checked > 50


def test_issue_links_and_github_links(site):
    day = (site / "vllm-project/vllm/2026-03-12.html").read_text("utf-8")
    assert 'href="https://github.com/vllm-project/vllm/issues/1120"' in day
    assert 'href="https://github.com/vllm-project/vllm" rel="noopener"' in day
    assert 'hreflang="en"' in day  # the language switch
    assert "2026-03-12.en.html" in day and "2026-03-13.html" in day  # alternate and next day


def test_atom_feeds(site):
    reports = small_reports()
    for feed_path, repo in [
        ("feed.xml", None),
        ("vllm-project/vllm/feed.xml", "vllm-project/vllm"),
        ("sgl-project/sglang/feed.xml", "sgl-project/sglang"),
        ("pytorch/pytorch/feed.xml", "pytorch/pytorch"),
    ]:
        root = ET.parse(site / feed_path).getroot()
        assert root.tag == f"{ATOM}feed"
        for name in ("id", "title", "updated"):
            assert (root.findtext(f"{ATOM}{name}") or "").strip(), name
        entries = root.findall(f"{ATOM}entry")
        mine = [r for r in reports if repo is None or r.repo == repo]
        assert len(entries) == len(mine)
        newest = max((r.provenance.generated_at for r in mine), default=None)
        if newest:
            assert root.findtext(f"{ATOM}updated") == newest.isoformat().replace("+00:00", "Z")
        ids = set()
        for entry in entries:
            ids.add(entry.findtext(f"{ATOM}id"))
            for name in ("title", "updated", "summary"):
                assert entry.findtext(f"{ATOM}{name}"), name
            href = entry.find(f"{ATOM}link").get("href")
            assert (site / posixpath.dirname(feed_path) / href).resolve().is_file()
        assert len(ids) == len(entries)


def test_json_index(site):
    index = json.loads((site / "index.json").read_text("utf-8"))
    reports = small_reports()
    assert len(index["reports"]) == len(reports)
    by_key = {(r.repo, r.date, r.lang): r for r in reports}
    for row in index["reports"]:
        report = by_key[(row["repo"], row["date"], row["lang"])]
        assert row["counts"] == report.counts.model_dump()
        assert (site / row["paths"]["html"]).is_file()
        stored = json.loads((site / row["paths"]["json"]).read_text("utf-8"))
        assert stored["counts"] == row["counts"]
    assert {p["repo"] for p in index["projects"]} == {
        "vllm-project/vllm",
        "sgl-project/sglang",
        "pytorch/pytorch",
    }


def test_incremental_build_rewrites_only_changed_pages(site):
    inodes = {rel: (site / rel).stat().st_ino for rel in tree(site)}
    reports = [*small_reports(), make_report(day="2026-03-14", lang="zh")]
    result = build_from_reports(reports, small_config(), site)
    # Independently: the new day (page + JSON), the day before it (its "next" link), in each of
    # its languages, the project index and feed, home, the overall feed and the index.
    expected = {
        "vllm-project/vllm/2026-03-14.html",
        "vllm-project/vllm/2026-03-14.json",
        "vllm-project/vllm/2026-03-13.html",
        "vllm-project/vllm/2026-03-13.en.html",
        "vllm-project/vllm/index.html",
        "vllm-project/vllm/feed.xml",
        "index.html",
        "feed.xml",
        "index.json",
    }
    assert set(result.written) == expected
    assert result.removed == []
    for rel in result.reused:
        assert (site / rel).stat().st_ino == inodes[rel], f"{rel} was rewritten"
    again = build_from_reports(reports, small_config(), site)
    assert again.written == [] and len(again.reused) == result.pages


def test_failed_build_leaves_previous_site_untouched(site):
    before = tree(site)
    (site / "CNAME").write_text("reports.example.org\n")
    before["CNAME"] = b"reports.example.org\n"
    reports = [*small_reports(), make_report(day="2026-03-14", lang="zh")]
    written: list[str] = []

    def explode(path: str) -> None:
        written.append(path)
        if len(written) == 5:
            raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        build_from_reports(reports, small_config(), site, on_page=explode)
    assert tree(site) == before
    assert sorted(p.name for p in site.parent.iterdir()) == ["site"]  # no staging left behind
    result = build_from_reports(reports, small_config(), site)
    assert result.kept == ["CNAME"] and (site / "CNAME").is_file()


def test_removed_report_removes_its_page(site):
    reports = [r for r in small_reports() if r.date != "2026-03-11"]
    result = build_from_reports(reports, small_config(), site)
    assert "sgl-project/sglang/2026-03-11.en.html" in result.removed
    assert not (site / "sgl-project/sglang/2026-03-11.en.html").exists()


def test_path_pattern_is_configurable(tmp_path):
    config = small_config(site_path_pattern="{owner}/{repo}/{year}/{date}.{lang}.html")
    build_from_reports(small_reports(), config, tmp_path / "s")
    assert (tmp_path / "s/vllm-project/vllm/2026/2026-03-12.zh.html").is_file()
    assert (tmp_path / "s/vllm-project/vllm/2026/2026-03-12.en.html").is_file()
    for bad in ("{owner}/{date}.html", "/{owner}/{repo}/{date}{lang}.html", "{owner}/{repo}/{x}"):
        with pytest.raises(ConfigError, match="site_path_pattern"):
            build_from_reports(small_reports(), small_config(site_path_pattern=bad), tmp_path / "b")


def test_refuses_a_foreign_non_empty_folder(tmp_path):
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "notes.txt").write_text("mine")
    with pytest.raises(SiteError, match="not empty"):
        build_from_reports(small_reports(), small_config(), tmp_path / "home")


def liquid_output(text: str) -> str:
    """What Liquid prints for a template using only raw blocks and string literals."""
    tokens = re.split(r"(\{%.*?%\}|\{\{.*?\}\}?)", text, flags=re.S)
    out, raw = [], False
    for token in tokens:
        if raw:
            if re.fullmatch(r"\{%-?\s*endraw\s*-?%\}", token):
                raw = False
            else:
                out.append(token)
        elif re.fullmatch(r"\{%-?\s*raw\s*-?%\}", token):
            raw = True
        elif literal := re.fullmatch(r"\{\{\s*'([^']*)'\s*\}\}", token):
            out.append(literal.group(1))
        else:
            assert not token.startswith(("{%", "{{")), f"Liquid would evaluate {token!r}"
            out.append(token)
    assert not raw, "unterminated raw block"
    return "".join(out)


def test_jekyll_export_is_liquid_safe(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "_config.yml").write_text("title: x\n")
    reports = small_reports()
    result = build_from_reports(reports, small_config(), docs, fmt="jekyll")
    assert result.kept == ["_config.yml"] and (docs / "_config.yml").is_file()
    hostile = next(r for r in reports if r.lang == "en" and r.date == "2026-03-13")
    text = (docs / "vllm-project/vllm/2026-03-13.en.md").read_text("utf-8")
    front, body = text.split("\n---\n", 1)
    assert front.startswith("---\nlayout: ")
    assert 'repo: "vllm-project/vllm"' in front and "  merged_prs: 4" in front
    assert liquid_output(body).strip() == render_markdown(hostile).strip()
    assert len(list(docs.rglob("*.md"))) == len(reports)
    sneaky = "a {%- endraw -%} {{ site }} {% include x %} b"
    assert liquid_output("{% raw %}" + escape_liquid(sneaky) + "{% endraw %}") == sneaky


def test_cli_build_and_serve(tmp_path):
    db = str(tmp_path / "db.sqlite3")
    store = open_store(db)
    for report in small_reports():
        store.save_report(report)
    out = tmp_path / "site"
    assert main(["--db", db, "site", "build", "--out", str(out)]) == 0
    assert (out / "vllm-project/vllm/2026-03-13.en.html").is_file()
    assert (
        main(["--db", db, "site", "build", "--format", "jekyll", "--out", str(tmp_path / "d")]) == 0
    )

    from devdigest.site.serve import SiteServer, make_server

    server = make_server(SiteServer(store, small_config(db), out, log=lambda _: None), port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        with urllib.request.urlopen(base) as reply:
            assert reply.status == 200 and b"vLLM" in reply.read()
        store.save_report(make_report(day="2026-03-20", lang="zh"))
        with urllib.request.urlopen(base + "vllm-project/vllm/index.html") as reply:
            assert b"2026-03-20" in reply.read()
    finally:
        server.shutdown()
        server.server_close()
        store.close()


def test_build_site_reads_the_store(tmp_path):
    store = open_store(str(tmp_path / "db.sqlite3"))
    for report in small_reports():
        store.save_report(report)
    result = build_site(store, small_config(), tmp_path / "site")
    assert result.pages == len(tree(tmp_path / "site"))
    store.close()
    assert tree(tmp_path / "site") == tree(_reference(tmp_path))


def _reference(tmp_path: Path) -> Path:
    out = tmp_path / "reference"
    build_from_reports(small_reports(), small_config(), out)
    return out
