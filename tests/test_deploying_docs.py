"""The worker unit in docs/deploying.md passes ``systemd-analyze verify``."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "deploying.md"


def worker_unit() -> str:
    text = DOC.read_text("utf-8")
    found = re.findall(r"`/etc/systemd/system/([\w.-]+)`:\n\n```ini\n(.*?)```", text, re.S)
    assert [name for name, _ in found] == ["devdigest-worker.service"]
    return found[0][1]


def test_the_worker_unit_runs_a_worker():
    assert "ExecStart=/opt/devdigest/bin/devdigest worker --concurrency 8" in worker_unit()


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd is not installed")
def test_the_worker_unit_passes_systemd_analyze_verify(tmp_path):
    text = worker_unit().replace("/opt/devdigest/bin/devdigest", sys.executable)
    text = text.replace("User=devdigest\nGroup=devdigest\n", "")  # no such user here
    text = text.replace("EnvironmentFile=/etc/devdigest/env", f"EnvironmentFile=-{tmp_path}/env")
    text = text.replace("WorkingDirectory=/var/lib/devdigest", f"WorkingDirectory={tmp_path}")
    path = tmp_path / "devdigest-worker.service"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run(
        ["systemd-analyze", "verify", str(path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
