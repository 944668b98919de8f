"""The systemd unit files in docs/scheduling.md pass ``systemd-analyze verify``."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "scheduling.md"


def units() -> dict[str, str]:
    """File name → text of each unit file shown in the doc (named in the line before it)."""
    text = DOC.read_text("utf-8")
    found = re.findall(r"`/etc/systemd/system/([\w.]+)`:\n\n```ini\n(.*?)```", text, re.S)
    return dict(found)


def test_the_doc_shows_a_service_and_its_timer():
    assert set(units()) == {"devdigest.service", "devdigest.timer"}
    assert "ExecStart=/opt/devdigest/bin/devdigest run" in units()["devdigest.service"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd is not installed")
def test_unit_files_pass_systemd_analyze_verify(tmp_path):
    paths = []
    for name, text in units().items():
        # verify checks that ExecStart exists: point it at an executable of this machine
        text = text.replace("/opt/devdigest/bin/devdigest", sys.executable)
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    done = subprocess.run(
        ["systemd-analyze", "verify", *paths], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "devdigest" not in done.stderr  # no warning about our units
