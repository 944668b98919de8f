"""Shared by the distributed tests: many repositories on the fake GitHub server, Celery worker
subprocesses on a private queue prefix and PostgreSQL schema, and what to check afterwards."""

from __future__ import annotations

import contextlib
import copy
import functools
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import kombu
import pytest
import redis
import sqlalchemy as sa

from devdigest.distributed.app import QUEUES
from devdigest.sample.dataset import generate_day
from devdigest.sample.model import Dataset
from devdigest.store import open_store
from devdigest.store import schema as t
from tests.run_case import END, thin, write_config

REDIS_URL = os.environ.get("DEVDIGEST_TEST_REDIS_URL", "redis://127.0.0.1:6379")
TOKENS = ("tok-a", "tok-b", "tok-c")
MAIN = "import sys; from devdigest.cli import main; sys.exit(main())"


def require_redis(url: str = REDIS_URL) -> str:
    try:
        redis.Redis.from_url(url, socket_connect_timeout=3).ping()
    except redis.RedisError as exc:
        message = f"Redis at {url} is unreachable ({exc}): start it or set DEVDIGEST_TEST_REDIS_URL"
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the distributed tests: {message}", pytrace=False)
        pytest.skip(message)
    return url


@functools.cache
def base_day() -> Dataset:
    return generate_day(seed=11, repo="acme/base", history_days=1)


def many_repositories(count: int) -> list[Dataset]:
    """``count`` repositories of varied sizes, as in an organisation: one in fifty busy
    (a quarter of a vLLM-sized day), one in ten medium, the rest small (20 items or fewer)."""
    sets = []
    for k in range(count):
        ds = thin(copy.copy(base_day()), 4 if k % 50 == 0 else 20 if k % 10 == 0 else 85 + k % 250)
        ds = copy.deepcopy(ds)  # thinned first: copying only what is kept is fast
        ds.repo = f"acme/r{k:03d}"
        sets.append(ds)
    return sets


@dataclass
class Cluster:
    """Worker subprocesses for one test: own queue prefix, own schema, own output folder."""

    tmp: Path
    db: str
    api: str
    repos: list[str]
    broker: str
    prefix: str = field(default_factory=lambda: f"t{uuid.uuid4().hex[:10]}.")
    tokens: tuple[str, ...] = TOKENS
    # Redis redelivers a task unacknowledged this long (a dead worker's, or a slow live one's)
    visibility: int = 60
    workers: list[subprocess.Popen] = field(default_factory=list)
    killed: set[int] = field(default_factory=set)  # pids stopped on purpose: not restarted
    stopping: threading.Event = field(default_factory=threading.Event)
    watcher: threading.Thread | None = None

    @property
    def config(self) -> Path:
        path = self.tmp / "devdigest.toml"
        if not path.exists():
            write_config(path, self.tmp, self.repos)
        return path

    def env(self) -> dict[str, str]:
        src = str(Path(__file__).resolve().parents[1] / "src")
        return os.environ | {
            "PYTHONPATH": src,
            "DEVDIGEST_BROKER_URL": self.broker,
            "DEVDIGEST_QUEUE_PREFIX": self.prefix,
            "DEVDIGEST_VISIBILITY_TIMEOUT": str(self.visibility),
            "DEVDIGEST_GITHUB_TOKENS": ",".join(self.tokens),
        }

    def cli(self, *args: str) -> list[str]:
        base = [sys.executable, "-c", MAIN, "--config", str(self.config), "--db", self.db]
        return [*base, "--github-api-url", self.api, *args]

    def start_worker(self, concurrency: int = 2) -> subprocess.Popen:
        log = open(self.tmp / f"worker{len(self.workers)}.log", "w")  # noqa: SIM115
        proc = subprocess.Popen(
            self.cli("worker", "--concurrency", str(concurrency), "--loglevel", "WARNING"),
            env=self.env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.workers.append(proc)
        return proc

    def enqueue(self, *extra: str) -> subprocess.CompletedProcess:
        args = self.cli("run", "--executor", "celery", "--as-of", END.isoformat(), *extra)
        return subprocess.run(args, env=self.env(), capture_output=True, text=True, timeout=300)

    def celery(self, *args: str) -> subprocess.CompletedProcess:
        """Celery's own command line on our app."""
        command = [sys.executable, "-m", "celery", "-A", "devdigest.distributed.app", *args]
        env = self.env() | {"DEVDIGEST_CONFIG": str(self.config), "DEVDIGEST_DB": self.db}
        return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)

    def kill(self, proc: subprocess.Popen) -> None:
        """``kill -9`` of the worker and its pool processes."""
        self.killed.add(proc.pid)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)

    def supervise(self) -> None:
        """Restart a worker that exits by itself, as the documented systemd unit does
        (``Restart=always``)."""

        def watch() -> None:
            while not self.stopping.wait(0.5):
                for proc in list(self.workers):
                    if proc.poll() is not None and proc.pid not in self.killed:
                        self.killed.add(proc.pid)
                        self.start_worker()

        self.watcher = threading.Thread(target=watch, daemon=True)
        self.watcher.start()

    def stop(self) -> None:
        self.stopping.set()
        if self.watcher:
            self.watcher.join(10)
        for proc in self.workers:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.workers:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)

    def logs(self) -> str:
        return "\n".join(p.read_text() for p in sorted(self.tmp.glob("worker*.log")))


@contextmanager
def cluster(tmp: Path, db: str, api: str, repos: list[str], broker: str) -> Iterator[Cluster]:
    nodes = Cluster(tmp, db, api, repos, broker)
    try:
        yield nodes
    finally:
        nodes.stop()
        drop_queues(broker, nodes.prefix)


def drop_queues(broker: str, prefix: str) -> None:
    """Remove this test's queues from the broker."""
    if broker.startswith("redis"):
        client = redis.Redis.from_url(broker)
        with contextlib.suppress(redis.ConnectionError):  # a private server already stopped
            for key in client.scan_iter(f"{prefix}*"):
                client.delete(key)
        return
    with kombu.Connection(broker) as conn:
        for name in QUEUES:
            conn.default_channel.queue_delete(prefix + name)


@contextmanager
def private_redis(tmp: Path, port: int) -> Iterator[subprocess.Popen]:
    """A redis-server of the test's own, persisting to ``tmp`` (its data survive a restart)."""
    args = ["redis-server", "--port", str(port), "--dir", str(tmp), "--appendonly", "yes"]
    proc = subprocess.Popen([*args, "--save", ""], stdout=subprocess.DEVNULL)
    try:
        wait_until(lambda: _pings(port), 20, "the private redis-server")
        yield proc
    finally:
        proc.terminate()
        proc.wait(20)


def _pings(port: int) -> bool:
    try:
        return bool(redis.Redis(port=port, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until(check, timeout: float, what: str, cluster: Cluster | None = None):
    """Poll ``check()`` until it returns something true (not a timing assertion: a deadlock
    guard, generous on a loaded machine)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.5)
    logs = cluster.logs()[-3000:] if cluster else ""
    raise AssertionError(f"gave up waiting for {what}\n{logs}")


def rows(db: str, query: sa.Select) -> list[sa.Row]:
    with open_store(db) as store, store.engine.connect() as conn:
        return list(conn.execute(query))


def run_status(db: str, run_id: int) -> str:
    return rows(db, sa.select(t.runs.c.status).where(t.runs.c.id == run_id))[0][0]


def run_ended(db: str, run_id: int) -> bool:
    """Whether the run is closed (its site built and its notifications sent)."""
    return run_status(db, run_id) in ("ok", "failed")


def failures(db: str) -> list[tuple]:
    """What failed, for assertion messages."""
    c = t.tasks.c
    query = sa.select(c.name, c.repo, c.error).where(c.status == "failed")
    return [tuple(row) for row in rows(db, query)] + rows(db, sa.select(t.runs.c.summary))


def report_keys(db: str) -> list[tuple]:
    r = t.reports.c
    query = sa.select(t.repos.c.full_name, r.local_date, r.lang).join(t.repos)
    return sorted(tuple(row) for row in rows(db, query))


def run_id_of(result: subprocess.CompletedProcess) -> int:
    assert result.returncode == 0, result.stderr
    return int(result.stdout.split()[1].rstrip(":"))
