"""Week and month pages on the site: reachable from the project page and the day pages, with
their chart, Atom feeds per kind, escaped text, and incremental builds."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, date, datetime

import pytest

from devdigest.config import Config, Project
from devdigest.models import Statement
from devdigest.report import generate_period_reports, generate_reports
from devdigest.sample.dataset import generate_history
from devdigest.site import build_site
from devdigest.store.periods import period_reports, save_period_report
from devdigest.window import day_window, month_window, week_window
from tests.helpers import store_from_dataset
from tests.test_site import parse_links

REPO = "vllm-project/vllm"
TZ = "Asia/Shanghai"
NOW = datetime(2026, 3, 13, 4, 0, tzinfo=UTC)
ATOM = "{http://www.w3.org/2005/Atom}"
FOLDER = "vllm-project/vllm"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Two days of W09 (2026-02-23..03-01) in zh, the week in zh and en, February in en."""
    root = tmp_path_factory.mktemp("site-periods")
    store = store_from_dataset(generate_history(days=40, seed=7), str(root / "s.sqlite3"))
    config = Config(db=str(root / "s.sqlite3"), projects=[Project(repo=REPO, name="vLLM", tz=TZ)])
    for day in (date(2026, 2, 24), date(2026, 3, 2)):  # in W09, in W10
        window = day_window(day, TZ)
        generate_reports(config, store, REPO, window, ["zh"], writer="offline", no_sync=True)
    week, month = week_window("2026-W09", TZ), month_window("2026-02", TZ)
    generate_period_reports(config, store, REPO, week, ["zh", "en"], no_sync=True, now=NOW)
    generate_period_reports(config, store, REPO, month, ["en"], no_sync=True, now=NOW)
    hostile = period_reports(store, REPO, "month")[0]
    hostile.summary.append(Statement(text="<script>alert(1)</script> & <img src=x>"))
    save_period_report(store, hostile)
    out = root / "site"
    first = build_site(store, config, out, base_url="https://digest.example.org/")
    yield store, config, out, first
    store.close()


def links(path) -> list[str]:
    return parse_links(path).refs


def test_period_pages_are_written_beside_the_days(built):
    _, _, out, first = built
    pages = {
        f"{FOLDER}/{name}" for name in ("2026-W09.html", "2026-W09.en.html", "2026-02.en.html")
    }
    pages |= {f"{FOLDER}/weekly.xml", f"{FOLDER}/monthly.xml"}
    assert pages <= set(first.written)
    week = (out / FOLDER / "2026-W09.html").read_text("utf-8")
    assert "<svg" in week and "2026-W09" in week
    assert "2026-W09.en.html" in links(out / FOLDER / "2026-W09.html")  # language switch
    report = next(r for r in period_reports(built[0], REPO, "week") if r.lang == "zh")
    for row in report.days:  # the page's per-day table shows the stored counts
        assert f"<td>{row.date}</td>" in week


def test_project_page_lists_weeks_and_months_and_their_feeds(built):
    _, _, out, _ = built
    found = links(out / FOLDER / "index.html")
    for target in ("2026-W09.html", "2026-02.en.html", "weekly.xml", "monthly.xml"):
        assert target in found


def test_day_pages_link_to_their_published_week(built):
    _, _, out, _ = built
    assert "2026-W09.html" in links(out / FOLDER / "2026-02-24.html")
    assert not any("W10" in link for link in links(out / FOLDER / "2026-03-02.html"))


def test_weekly_and_monthly_feeds_are_atom_with_absolute_links(built):
    _, _, out, _ = built
    for name, expected in (("weekly.xml", 2), ("monthly.xml", 1)):
        feed = ET.parse(out / FOLDER / name).getroot()
        assert feed.tag == f"{ATOM}feed"
        entries = feed.findall(f"{ATOM}entry")
        assert len(entries) == expected
        for entry in entries:
            href = entry.find(f"{ATOM}link").get("href")
            assert href.startswith(f"https://digest.example.org/{FOLDER}/")
            assert (out / href.removeprefix("https://digest.example.org/")).is_file()


def test_untrusted_period_text_is_escaped(built):
    _, _, out, _ = built
    page = (out / FOLDER / "2026-02.en.html").read_text("utf-8")
    assert "<script>" not in page and "<img src=x>" not in page
    assert "&lt;script&gt;" in page
    feed = (out / FOLDER / "monthly.xml").read_text("utf-8")
    assert "<script>" not in feed and "&lt;script&gt;" in feed


def test_an_unchanged_store_rebuilds_nothing_and_a_new_week_only_its_pages(built):
    store, config, out, _ = built
    again = build_site(store, config, out, base_url="https://digest.example.org/")
    assert again.written == []
    week = week_window("2026-W08", TZ)
    generate_period_reports(config, store, REPO, week, ["zh"], no_sync=True, now=NOW)
    third = build_site(store, config, out, base_url="https://digest.example.org/")
    assert f"{FOLDER}/2026-W08.html" in third.written
    assert f"{FOLDER}/2026-W09.en.html" in third.reused
    assert f"{FOLDER}/2026-02-24.html" in third.reused  # its week is unchanged


def test_every_link_of_the_period_pages_resolves(built):
    _, _, out, _ = built
    for page in [*sorted((out / FOLDER).glob("2026-*.html")), out / FOLDER / "index.html"]:
        for ref in links(page):
            if ref.startswith(("http://", "https://", "#")):
                continue
            assert (page.parent / ref.split("#")[0]).resolve().is_file(), (page.name, ref)
