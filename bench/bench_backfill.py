"""``devdigest backfill`` of 100 vLLM-sized days, and an idle ``devdigest run`` over 3 projects,
against the fake GitHub server (no network).

The commands run as real subprocesses (``devdigest`` from this checkout), the fake server in
this process: requests are counted from its log, wall time around each command, peak memory is
the command's maximum resident set size. Reviews come over GraphQL (``github_graphql = true``,
what a backfill should use); ``--rest`` measures REST reviews instead (one request per PR).

Run: ``python bench/bench_backfill.py`` (``--days 100``, ``--rest``).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakes.github_server import FakeClock, FakeGitHub

from devdigest.config import load_config
from devdigest.run.runner import run_due
from devdigest.sample.dataset import generate_day, generate_history
from devdigest.store import open_store

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "bench-token"
ENTRY = "import sys; from devdigest.cli import main; sys.exit(main(sys.argv[1:]))"
PROJECTS = ("vllm-project/vllm", "sgl-project/sglang", "pytorch/pytorch")


def write_config(tmp: Path, repos: list[str], graphql: bool) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    lines = [
        f'out = "{tmp / "reports"}"',
        f'site_out = "{tmp / "site"}"',
        f"github_graphql = {'true' if graphql else 'false'}",
        "[schedule]",
        'langs = ["zh"]',
        'writer = "offline"',
    ]
    for repo in repos:
        lines += ["[[projects]]", f'repo = "{repo}"', 'tz = "UTC"']
        lines += ["[projects.schedule]", 'cutoff = "03:24"']
    path = tmp / "devdigest.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def devdigest(config: Path, db: Path, api: str, *args: str) -> tuple[float, int, float]:
    """Run one command; returns (wall seconds, peak RSS in MiB, CPU seconds) of that child."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEVDIGEST_", "GITHUB_"))}
    env |= {"PYTHONPATH": str(ROOT / "src"), "DEVDIGEST_GITHUB_TOKEN": TOKEN}
    argv = ["--config", str(config), "--db", str(db), "--github-api-url", api, *args]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, *argv], env=env, capture_output=True, text=True
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"devdigest {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return seconds, after.ru_maxrss // 1024, cpu


def backfill_rows(days: int, graphql: bool, tmp: Path) -> list[tuple[str, str]]:
    history = generate_history(days + 1, seed=0)
    first = (history.end - timedelta(days=days)).date()
    last = (history.end - timedelta(days=1)).date()
    config = write_config(tmp, [history.repo], graphql)
    with FakeGitHub(history, clock=FakeClock(history.end), tokens={TOKEN}) as gh:
        args = ("backfill", history.repo, "--since", str(first), "--until", str(last))
        seconds, peak, cpu = devdigest(
            config, tmp / "backfill.db", gh.url, *args, "--as-of", _iso(history.end)
        )
        requests = len(gh.requests)
        listings = sum(r.path.endswith(("/issues", "/comments")) for r in gh.requests)
        graphql_queries = sum(r.method == "POST" for r in gh.requests)
        reviews_rest = sum(r.path.endswith("/reviews") for r in gh.requests)
    reports = len(list((tmp / "reports").rglob("*.json")))
    kind = "GraphQL" if graphql else "REST"
    return [
        (f"backfill {days} days ({first} … {last}), reviews over {kind}", ""),
        ("  reports written", str(reports)),
        ("  GitHub requests", str(requests)),
        ("    listing pages (issues, comments, review comments)", str(listings)),
        (
            "    GraphQL review queries / REST review requests",
            f"{graphql_queries} / {reviews_rest}",
        ),
        (f"  wall time (one sync, {reports} reports, the site)", f"{seconds:.1f} s"),
        ("  CPU time of the command", f"{cpu:.1f} s"),
        ("  peak memory (RSS)", f"{peak} MiB"),
    ]


def idle_rows(tmp: Path) -> list[tuple[str, str]]:
    sets = [generate_day(seed=k, repo=repo) for k, repo in enumerate(PROJECTS)]
    end = sets[0].end
    config = write_config(tmp, list(PROJECTS), graphql=True)
    db = tmp / "idle.db"
    with FakeGitHub(sets, clock=FakeClock(end), tokens={TOKEN}) as gh:
        first, _, _ = devdigest(config, db, gh.url, "run", "--as-of", _iso(end))
        cold = len(gh.requests)
        gh.reset_log()
        idle, _, idle_cpu = devdigest(config, db, gh.url, "run", "--as-of", _iso(end))
        idle_requests = len(gh.requests)
        in_process = idle_in_process(config, db, gh.url, end)
        idle_requests += len(gh.requests)
    return [
        ("first run, 3 vLLM-sized projects (one day each)", f"{cold} requests, {first:.1f} s"),
        ("idle run right after: GitHub requests", str(idle_requests)),
        ("idle run: whole command, wall / CPU", f"{idle:.2f} s / {idle_cpu:.2f} s"),
        ("idle run: wall time of run_due in process (lock, plan, bookkeeping)", in_process),
    ]


def idle_in_process(config: Path, db: Path, api: str, end, repeat: int = 5) -> str:
    """Median seconds of ``run_due`` when nothing is due, without Python's start-up."""
    flags = {"db": str(db), "github_api_url": api}
    settings = load_config(str(config), flags, env={"DEVDIGEST_GITHUB_TOKEN": TOKEN})
    times = []
    with open_store(settings.db) as store:
        for _ in range(repeat):
            started = time.perf_counter()
            result = run_due(settings, store, now=end)
            times.append(time.perf_counter() - started)
            assert all(o.status == "up to date" for o in result.outcomes)
    return f"{statistics.median(times) * 1000:.0f} ms (median of {repeat})"


def _iso(moment) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=100)
    parser.add_argument("--rest", action="store_true", help="reviews over REST, not GraphQL")
    parser.add_argument("--idle-only", action="store_true", help="only the idle run")
    args = parser.parse_args()
    rows = []
    if not args.idle_only:
        with tempfile.TemporaryDirectory() as tmp:
            rows += backfill_rows(args.days, not args.rest, Path(tmp) / "backfill")
    with tempfile.TemporaryDirectory() as tmp:
        rows += idle_rows(Path(tmp))
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")


if __name__ == "__main__":
    main()
