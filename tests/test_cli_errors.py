"""Bad places, busy ports, corrupt stores and Ctrl-C give one line on stderr, never a traceback."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import sqlalchemy as sa

from devdigest.cli import main
from devdigest.store import open_store
from tests.helpers import store_from_dataset
from tests.site_reports import make_report
from tests.test_stats_cli import hard_cases

SRC = str(Path(__file__).resolve().parent.parent / "src")


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    for name in ("DEVDIGEST_DB", "DEVDIGEST_OUT", "DEVDIGEST_LLM_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DEVDIGEST_CONFIG", str(tmp_path / "devdigest.toml"))
    (tmp_path / "devdigest.toml").write_text("", encoding="utf-8")


def one_error(capsys, *fragments: str) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: "), err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, err
    return err


@pytest.mark.parametrize("out", ["a-file", "a-file/sub", "/proc/devdigest-out"])
def test_report_out_that_cannot_be_written(tmp_path: Path, capsys, out: str) -> None:
    db = str(tmp_path / "db.sqlite3")
    store_from_dataset(hard_cases(), db).close()
    (tmp_path / "a-file").write_text("not a folder")
    args = ["--db", db, "report", "acme/widgets", "--no-sync", "--date", "2026-03-08"]
    assert main([*args, "--out", out, "--writer", "offline"]) == 1
    one_error(capsys, "cannot write", "--out")
    assert (tmp_path / "a-file").read_text() == "not a folder"
    store = open_store(db)
    assert [r.date for r in store.reports("acme/widgets")] == ["2026-03-08"]  # kept in the store
    store.close()


def test_serve_on_a_busy_port(tmp_path: Path, capsys) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        args = ["--db", str(tmp_path / "db.sqlite3"), "site", "serve", "--out", "site"]
        assert main([*args, "--port", str(port)]) == 1
    one_error(capsys, f"127.0.0.1:{port}", "--port")


@pytest.mark.parametrize("port", ["70000", "-1"])
def test_serve_on_a_port_out_of_range(tmp_path: Path, capsys, port: str) -> None:
    args = ["--db", str(tmp_path / "db.sqlite3"), "site", "serve", "--port", port]
    assert main(args) == 2
    one_error(capsys, "--port", "0<=x<=65535")


def test_site_build_on_a_file_that_is_not_a_database(tmp_path: Path, capsys) -> None:
    db = tmp_path / "db.sqlite3"
    db.write_bytes(b"PK\x03\x04 a zip, not SQLite" * 100)
    assert main(["--db", str(db), "site", "build", "--out", str(tmp_path / "site")]) == 1
    one_error(capsys, "--db")


def test_site_build_on_a_database_with_damaged_pages(tmp_path: Path, capsys) -> None:
    db = tmp_path / "db.sqlite3"
    store = open_store(str(db))
    for day in ("2026-03-12", "2026-03-13", "2026-03-14"):
        store.save_report(make_report(day=day))
    store.close()
    data = bytearray(db.read_bytes())
    size = 4096
    page = next(
        n for n in range(len(data) // size) if b'"summary"' in data[n * size : (n + 1) * size]
    )
    for at in range(page * size + 100, (page + 1) * size, 3):  # the reports' page, not the schema
        data[at] = 0xAB
    db.write_bytes(bytes(data))
    assert main(["--db", str(db), "site", "build", "--out", str(tmp_path / "site")]) == 1
    one_error(capsys, "malformed", "--db")


def test_site_build_skips_a_stored_report_with_broken_json(tmp_path: Path, capsys) -> None:
    db = str(tmp_path / "db.sqlite3")
    store = open_store(db)
    store.save_report(make_report(day="2026-03-12"))
    store.save_report(make_report(day="2026-03-13"))
    with store.engine.begin() as conn:
        conn.execute(
            sa.text("UPDATE reports SET report = '{\"repo\": ' WHERE local_date = '2026-03-13'")
        )
    store.close()
    out = tmp_path / "site"
    assert main(["--db", db, "site", "build", "--out", str(out)]) == 0
    printed = capsys.readouterr()
    assert "skipped 1 unreadable stored report" in printed.out
    assert (out / "vllm-project/vllm/2026-03-12.html").is_file()
    assert not (out / "vllm-project/vllm/2026-03-13.html").exists()


def test_ctrl_c_during_start_up_is_one_line(tmp_path: Path) -> None:
    """Ctrl-C arriving while the command's modules load (here: when SQLAlchemy is imported)."""
    script = textwrap.dedent(
        """
        import sys

        class CtrlC:
            def find_spec(self, name, path=None, target=None):
                if name == "sqlalchemy":
                    raise KeyboardInterrupt
                return None

        sys.meta_path.insert(0, CtrlC())
        sys.argv = ["devdigest", "site", "build"]
        from devdigest.__main__ import main
        sys.exit(main())
        """
    )
    env = {"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert done.returncode == 130, done.stderr
    assert done.stderr.startswith("interrupted") and done.stderr.count("\n") == 1, done.stderr


def test_errors_reach_the_terminal_without_control_characters(tmp_path: Path, capsys) -> None:
    sneaky = str(tmp_path / "x\x1b]0;pwned\x07\r\u202eevil\nsecond line.toml")
    assert main(["--config", sneaky, "config", "show"]) == 1
    err = one_error(capsys, "not found", "--config")
    for char in ("\x1b", "\x07", "\r", "\u202e"):
        assert char not in err
