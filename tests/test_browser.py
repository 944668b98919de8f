"""The built site in a real headless browser (Debian's chromium) from file://.

Needs ``/usr/bin/chromium`` (Debian packages: chromium, and fonts-noto-cjk for readable Chinese
screenshots); skipped when absent. Screenshots go to tests/artifacts/ (git-ignored).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from devdigest.site import build_from_reports
from tests.test_site import small_config, small_reports

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = Path(__file__).parent / "artifacts"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--enable-logging=stderr",
    "--v=0",
    "--allow-file-access-from-files",
]
CONSOLE = re.compile(r":CONSOLE[:(]\d+\)?\] \"(.*)\", source: (.*)")  # both log formats

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium not installed (apt-get install chromium fonts-noto-cjk)"
)


def chromium(tmp_path: Path, url: str, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    command = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args, url]
    return subprocess.run(command, capture_output=True, text=True, timeout=25, check=False)


def console_messages(stderr: str) -> list[str]:
    return [" ".join(m.groups()) for m in CONSOLE.finditer(stderr)]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("browser") / "site"
    build_from_reports(small_reports(), small_config(), out)
    return out


@pytest.mark.parametrize(
    "page",
    ["index.html", "vllm-project/vllm/index.html", "vllm-project/vllm/2026-03-13.en.html"],
)
def test_pages_load_without_console_errors(site, tmp_path, page):
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / (page.replace("/", "_").removesuffix(".html") + ".png")
    shot.unlink(missing_ok=True)
    run = chromium(
        tmp_path, (site / page).as_uri(), "--window-size=1280,1400", f"--screenshot={shot}"
    )
    assert console_messages(run.stderr) == []
    assert shot.is_file() and shot.stat().st_size > 10_000


def test_console_errors_are_detected(tmp_path):
    page = tmp_path / "broken.html"
    page.write_text(
        '<link rel="stylesheet" href="missing.css"><script>console.error("boom")</script>'
    )
    run = chromium(tmp_path, page.as_uri(), "--dump-dom")
    assert any("boom" in message for message in console_messages(run.stderr))


def test_svg_charts_render(site, tmp_path):
    """Measure the drawn chart and sparkline in the browser (a probe script in a copy)."""
    probe = """<script>
    const box = (sel) => { const e = document.querySelector(sel); if (!e) return 'none';
      const b = e.getBBox(); return b.width + 'x' + b.height + ':' +
      getComputedStyle(e).stroke + '/' + getComputedStyle(e).fill; };
    document.title = 'PROBE ' + box('svg.chart polyline.s-new') + ' | ' + box('svg.spark rect');
    </script></body>"""
    results = {}
    for page in ("vllm-project/vllm/index.html", "index.html"):
        copy = site / (page.removesuffix(".html") + ".probe.html")
        copy.write_text((site / page).read_text("utf-8").replace("</body>", probe))
        run = chromium(tmp_path, copy.as_uri(), "--dump-dom")
        copy.unlink()
        results[page] = re.search(r"<title>PROBE (.*?) \| (.*?)</title>", run.stdout)
    chart = results["vllm-project/vllm/index.html"]
    spark = results["index.html"]
    assert chart and spark, "probe did not run"
    width, _, stroke, _ = measured(chart.group(1))
    assert width > 10 and stroke.startswith("rgb(")  # a visible coloured line between two days
    _, height, _, fill = measured(spark.group(2))
    assert height > 0 and fill.startswith("rgb(")  # coloured bars


def measured(value: str) -> tuple[float, float, str, str]:
    """``WxH:stroke/fill`` from the probe."""
    size, colours = value.split(":", 1)
    width, height = (float(v) for v in size.split("x"))
    stroke, fill = colours.split("/", 1)
    return width, height, stroke, fill
