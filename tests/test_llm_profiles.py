"""Every kind of OpenAI-compatible server, end to end: the output-mode ladder, its stored probe
result, what stderr says, and a complete, grounded report whatever the server honours."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from devdigest.cli import main
from devdigest.models import DailyReport
from devdigest.store import open_store
from devdigest.writers.llm import write_llm
from devdigest.writers.llm_modes import judge
from tests.fakes.openai_server import PROFILES, FakeOpenAI, Scripted
from tests.helpers import mark_synced
from tests.llm_case import (
    CONFIG,
    NOW,
    WINDOW,
    assert_complete_and_grounded,
    case_analysis,
    case_store,
    settings,
)

# profile → (the mode it ends in, what stderr gives as the reason)
EXPECTED = {
    "openai": ("json_schema", "the server enforces the JSON schema"),
    "vllm": ("json_schema", "the server enforces the JSON schema"),
    "llamacpp": (
        "json_object",
        "json_schema rejected (HTTP 500: 1 validation error: {'type': 'literal_error', 'loc': "
        "('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\"})",
    ),
    "ollama": ("json_object", "json_schema ignored (the reply was not bare JSON)"),
    "deepseek": (
        "json_object",
        "json_schema rejected (HTTP 400: This response_format type is unavailable now)",
    ),
    "prose": ("text", "json_object ignored (the reply was not bare JSON)"),
}
ZH_SUMMARY, EN_SUMMARY = "本窗口新增", "In this window"  # how the fake's echo replies begin


@pytest.fixture
def cli_env(tmp_path, monkeypatch):
    """A stored case window, its config, and no settings from the machine running the tests."""
    monkeypatch.chdir(tmp_path)
    for name in ("DEVDIGEST_DB", "OPENAI_BASE_URL", "OPENAI_API_KEY", "DEVDIGEST_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "devdigest.toml").write_text(CONFIG, "utf-8")
    monkeypatch.setenv("DEVDIGEST_CONFIG", str(tmp_path / "devdigest.toml"))
    mark_synced(case_store(tmp_path), WINDOW.start, WINDOW.end).close()
    return tmp_path


def report_args(tmp_path: Path, writer: str = "llm") -> list[str]:
    db = str(tmp_path / "case.sqlite3")
    window = ["--since", WINDOW.start.isoformat(), "--until", WINDOW.end.isoformat()]
    return ["--db", db, "report", "o/r", *window, "--no-sync", "--writer", writer, "--lang", "both"]


def use_llm(monkeypatch, url: str) -> None:
    monkeypatch.setenv("DEVDIGEST_LLM_BASE_URL", url)
    monkeypatch.setenv("DEVDIGEST_LLM_API_KEY", "test-key")
    monkeypatch.setenv("DEVDIGEST_LLM_MODEL", "fake-model")


def written(tmp_path: Path, out: str) -> list[DailyReport]:
    paths = [Path(p) for p in out.split() if p.endswith(".json")]
    assert len(paths) == 2
    return [DailyReport.model_validate_json((tmp_path / p).read_text("utf-8")) for p in paths]


def test_expected_covers_every_profile():
    assert set(EXPECTED) == set(PROFILES)


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_every_server_profile_gives_a_complete_grounded_llm_report(
    profile, cli_env, monkeypatch, capsys
):
    mode, reason = EXPECTED[profile]
    with FakeOpenAI(profile=profile) as fake:
        use_llm(monkeypatch, fake.url)
        assert main(report_args(cli_env)) == 0
        out, err = capsys.readouterr()
        probed = [e.body.get("response_format", {}).get("type", "text") for e in fake.log[1:]]
        assert main(report_args(cli_env)) == 0  # again: the stored mode, no probe
        again = capsys.readouterr().err
        probes = len(fake.chat_calls("probe"))
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"note: LLM fake-model at {fake.url}: output mode {mode} (")
    assert reason in lines[0] and "probed now and saved for later runs" in lines[0]
    assert f"output mode {mode} (" in again and reason in again and "; from a probe on " in again
    ladder = ["json_schema", "json_object", "text"]
    assert probed[:probes] == ladder[: ladder.index(mode) + 1]  # probed once, in ladder order
    store = open_store(str(cli_env / "case.sqlite3"))
    analysis = case_analysis(cli_env, store)
    assert store.llm_capability(fake.url, "fake-model")["mode"] == mode
    store.close()
    for report in written(cli_env, out):
        assert report.provenance.writer == "llm" and report.provenance.llm_mode == mode
        assert report.provenance.fallbacks == [] and report.provenance.llm_sections >= 7
        assert report.summary[0].text.startswith(ZH_SUMMARY if report.lang == "zh" else EN_SUMMARY)
        assert_complete_and_grounded(report, analysis)


def test_a_stale_stored_mode_steps_down_and_is_saved(tmp_path):
    store = case_store(tmp_path)
    analysis = case_analysis(tmp_path, store)
    with FakeOpenAI(profile="deepseek") as fake:
        store.save_llm_capability(fake.url, "fake-model", "json_schema", "accepted")
        report = write_llm(
            analysis, "en", settings=settings(fake.url, max_concurrency=1), store=store, now=NOW
        )
        rejected = [e for e in fake.chat_calls() if e.status == 400]
        ok = [e for e in fake.chat_calls() if e.status == 200]
        probes = [e.status for e in fake.chat_calls("probe")]
    assert len(rejected) == 1 and probes == [400, 200]  # re-probed once: json_schema, json_object
    assert all(e.body["response_format"] == {"type": "json_object"} for e in ok)
    assert all('"properties"' in e.body["messages"][0]["content"] for e in ok)
    assert report.provenance.fallbacks == [] and report.provenance.llm_mode == "json_object"
    saved = store.llm_capability(fake.url, "fake-model")
    assert saved["mode"] == "json_object" and "HTTP 400" in saved["reason"]
    store.close()


def test_prose_replies_are_extracted_and_validated_in_text_mode(tmp_path):
    store = case_store(tmp_path)
    analysis = case_analysis(tmp_path, store)
    with FakeOpenAI(profile="prose") as fake:
        chatty = 'Sure. {"note": "no"} Then: {"statements": [{"text": "T.", "refs": []}]} {'
        fake.script("trends", Scripted(content=chatty))
        report = write_llm(analysis, "en", settings=settings(fake.url), store=store, now=NOW)
        assert all(e.body.get("response_format") is None for e in fake.chat_calls())
    assert [s.text for s in report.trend_notes] == ["T."]
    assert_complete_and_grounded(report, analysis)
    store.close()


def test_auto_with_an_unreachable_llm_writes_offline_and_says_so(cli_env, monkeypatch, capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    use_llm(monkeypatch, f"http://127.0.0.1:{port}/v1")
    assert main(report_args(cli_env, writer="auto")) == 0
    out, err = capsys.readouterr()
    assert err.startswith(
        f"note: writing offline: cannot reach the LLM server http://127.0.0.1:{port}"
    )
    assert "--writer llm makes this an error" in err and len(err.strip().splitlines()) == 1
    assert all(r.provenance.writer == "offline" for r in written(cli_env, out))
    assert main(report_args(cli_env, writer="llm")) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: cannot reach the LLM server")


def test_a_mostly_failed_llm_run_says_so_in_one_line_at_the_end(cli_env, monkeypatch, capsys):
    with FakeOpenAI(profile="openai") as fake:
        for task in ("discussion", "change", "watch", "summary", "focus"):
            fake.script(task, Scripted(status=422, times=99))
        use_llm(monkeypatch, fake.url)
        assert main([*report_args(cli_env)[:-1], "en"]) == 0
    out, err = capsys.readouterr()
    (report,) = [
        DailyReport.model_validate_json((cli_env / p).read_text("utf-8"))
        for p in out.split()
        if p.endswith(".json")
    ]
    failed, total = len(report.provenance.fallbacks), report.provenance.llm_sections
    assert 2 * failed > total
    assert err.strip().splitlines()[-1] == (
        f"note: the en report is mostly offline text: {failed} of {total} LLM sections fell "
        "back (listed in its provenance)"
    )


@pytest.mark.parametrize(
    ("mode", "content", "verdict"),
    [
        ("json_schema", '{"probe": "ok"}', None),
        ("json_schema", '{"answer": "ok"}', "ignored (the reply did not follow the schema)"),
        ("json_schema", 'Sure! {"probe": "ok"}', "ignored (the reply was not bare JSON)"),
        ("json_object", '{"anything": 1}', None),
        ("json_object", '{\n  "probe": {\n    "name": "La', None),  # cut at max_tokens (real)
        ("json_object", "[1, 2]", "ignored (the reply was not a JSON object)"),
        ("json_object", '```json\n{"probe": "ok"}\n```', "ignored (the reply was not bare JSON)"),
        ("text", "no JSON at all", None),
    ],
)
def test_probe_verdicts(mode, content, verdict):
    assert judge(mode, content) == verdict
