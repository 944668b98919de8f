"""Two runs on one store, and ``kill -9`` in the middle of a run: real subprocesses."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from devdigest.cli import main
from devdigest.store import open_store
from devdigest.store.runs import last_run
from tests.fakes.github_server import FakeGitHub
from tests.run_case import END, datasets, write_config

REPOS = ["acme/alpha", "acme/beta"]
SRC = str(Path(__file__).resolve().parents[1] / "src")
AS_OF = END.isoformat()
ENTRY = "import sys; from devdigest.cli import main; sys.exit(main(sys.argv[1:]))"


@pytest.fixture(scope="module")
def server():
    with FakeGitHub(datasets()[:2]) as gh:
        yield gh


@pytest.fixture(scope="module")
def clean(tmp_path_factory, server) -> dict:
    """What an uninterrupted run leaves behind."""
    setup = Setup(tmp_path_factory.mktemp("clean"), server.url)
    env = {"DEVDIGEST_GITHUB_TOKEN": "crash-token"}
    with pytest.MonkeyPatch.context() as mp:
        for name, value in env.items():
            mp.setenv(name, value)
        assert setup.run_here() == 0
    return snapshot(setup)


class Setup:
    """A config, store and output folders under one directory."""

    def __init__(self, root: Path, api: str) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.root, self.api = root, api
        self.db = str(root / "store.sqlite3")
        self.config = write_config(root / "devdigest.toml", root, REPOS, '["en", "zh"]')

    def argv(self, *args: str) -> list[str]:
        return ["--config", str(self.config), "--db", self.db, "--github-api-url", self.api, *args]

    def start(self, *args: str) -> subprocess.Popen:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DEVDIGEST_", "GITHUB_"))}
        env |= {"PYTHONPATH": SRC, "DEVDIGEST_GITHUB_TOKEN": "crash-token"}
        cmd = [sys.executable, "-c", ENTRY, *self.argv("run", "--as-of", AS_OF, *args)]
        return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def run_here(self, *args: str) -> int:
        return main(self.argv("run", "--as-of", AS_OF, *args))


@pytest.fixture(autouse=True)
def _no_environment(monkeypatch):
    for name in ("GITHUB_TOKEN", "DEVDIGEST_GITHUB_TOKEN", "DEVDIGEST_DB", "DEVDIGEST_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DEVDIGEST_GITHUB_TOKEN", "crash-token")


def wait_for(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def snapshot(setup: Setup) -> dict:
    """What a run leaves behind, without what differs between two correct runs: timings,
    request counts and fetch times (the provenance section and the site manifest, which hashes
    it), and sync bookkeeping."""
    with open_store(setup.db) as store, store.engine.connect() as conn:
        tables = {
            name: sorted(map(tuple, conn.execute(sa.text(f"SELECT * FROM {name}"))))
            for name in ("items", "comments")
        }
        reports = sorted(
            json.dumps(r.model_dump(mode="json", exclude={"provenance"}), sort_keys=True)
            for r in store.reports()
        )
    files = {}
    for path in sorted(setup.root.rglob("*")):
        rel = path.relative_to(setup.root).as_posix()
        if path.is_dir() or rel.startswith(("store.sqlite3", "devdigest.toml", "site/.devdigest")):
            continue
        files[rel] = _stable(path)
    return {"tables": tables, "reports": reports, "files": files}


def _stable(path: Path) -> str:
    text = path.read_text("utf-8")
    if path.suffix == ".md":
        return text[: text.rfind("\n## ")]  # the provenance section is the last one
    if path.suffix == ".json" and path.parent.name != "site":
        return json.dumps({k: v for k, v in json.loads(text).items() if k != "provenance"})
    return "" if "/20" in path.as_posix() or path.suffix == ".xml" else text


def test_a_second_run_on_a_busy_store_stops_with_a_clear_message(tmp_path, server, capsys):
    setup = Setup(tmp_path / "busy", server.url)
    server.latency = 0.03
    try:
        first = setup.start()
        wait_for(lambda: any(r.path.startswith("/repos/acme/") for r in server.requests))
        assert setup.run_here() == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error: another devdigest run is using this")
        assert "--wait-lock" in err[0] and f"pid {first.pid}" in err[0]
    finally:
        server.latency = 0.0
    assert first.wait(120) == 0, first.stderr.read().decode()
    server.reset_log()
    assert setup.run_here("--wait-lock", "5") == 0  # the first one did everything
    assert server.requests == []
    with open_store(setup.db) as store:
        assert len(store.reports()) == 4  # 2 projects x 2 languages, no duplicates
        assert last_run(store)["status"] == "ok"


def _kill_when(setup: Setup, server: FakeGitHub, ready) -> None:
    server.latency = 0.01
    try:
        proc = setup.start()
        wait_for(lambda: ready() or proc.poll() is not None)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        server.latency = 0.0
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"


@pytest.mark.parametrize("moment", ["mid-sync", "after-first-report"])
def test_kill_9_then_rerun_equals_a_clean_run(tmp_path, server, clean, moment):
    crashed = Setup(tmp_path / "crashed", server.url)
    server.reset_log()
    if moment == "mid-sync":
        _kill_when(crashed, server, lambda: len(server.requests) >= 25)
    else:
        reports = crashed.root / "reports"
        _kill_when(crashed, server, lambda: any(reports.rglob("*.en.json")))
    assert crashed.run_here() == 0
    assert snapshot(crashed) == clean
    with open_store(crashed.db) as store, store.engine.connect() as conn:
        statuses = [r.status for r in conn.execute(sa.text("SELECT status FROM runs ORDER BY id"))]
    assert statuses == ["interrupted", "ok"]
