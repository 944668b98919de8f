"""End to end on real services: two Celery worker processes, Redis, PostgreSQL and the fake
GitHub server holding many repositories. Every due report is written exactly once, whatever
happens to the workers or their connections."""

from __future__ import annotations

import collections
import os
import subprocess
import uuid
from contextlib import contextmanager

import kombu
import pytest
import sqlalchemy as sa

from devdigest.store import schema as t
from tests.db import pg_schema, require_postgres
from tests.distributed_case import (
    TOKENS,
    cluster,
    failures,
    free_port,
    many_repositories,
    private_redis,
    report_keys,
    require_redis,
    rows,
    run_ended,
    run_id_of,
    run_status,
    wait_until,
)
from tests.fakes.github_server import FakeClock, FakeGitHub
from tests.run_case import END

REPOS = 200  # on the fake server; the fault tests watch the first FAULT_REPOS of them
FAULT_REPOS = 24
DAY = "2026-03-12"  # the local date of the window due at END (03:24 UTC cutoff)


@pytest.fixture(scope="module")
def datasets():
    return many_repositories(REPOS)


@contextmanager
def environment(datasets, tmp_path, broker: str, watched: int = REPOS):
    """The fake GitHub server holding every repository, a PostgreSQL schema and a worker
    cluster on ``broker`` for a configuration watching the first ``watched`` of them."""
    require_postgres()
    with (
        FakeGitHub(datasets, clock=FakeClock(END), tokens=set(TOKENS), latency=0.005) as gh,
        pg_schema() as schema_url,
    ):
        name = f"devdigest_{uuid.uuid4().hex[:12]}"  # lets a test find the workers' connections
        url = sa.engine.make_url(schema_url).update_query_dict({"application_name": name})
        db = url.render_as_string(hide_password=False)
        repos = [ds.repo for ds in datasets[:watched]]
        with cluster(tmp_path, db, gh.url, repos, broker) as nodes:
            yield gh, nodes


@pytest.fixture
def services(datasets, tmp_path):
    with environment(datasets, tmp_path, require_redis() + "/0") as found:
        yield found


@pytest.fixture
def few(datasets, tmp_path):
    """``services`` watching FAULT_REPOS repositories: enough to have runs in flight."""
    with environment(datasets, tmp_path, require_redis() + "/0", FAULT_REPOS) as found:
        yield found


def expected(nodes) -> list[tuple]:
    """One report per watched repository: the day due at END, in English."""
    return sorted((repo, DAY, "en") for repo in nodes.repos)


def syncs_per_repo(db: str) -> collections.Counter:
    query = sa.select(t.repos.c.full_name).join(t.sync_runs).where(t.sync_runs.c.status == "ok")
    return collections.Counter(row[0] for row in rows(db, query))


def test_two_runs_at_once_on_two_workers_write_every_report_once(services, datasets):
    gh, nodes = services
    first, second = nodes.enqueue(), nodes.enqueue()  # enqueued before any worker runs
    runs = [run_id_of(first), run_id_of(second)]
    nodes.start_worker()
    nodes.start_worker()
    for run in runs:
        wait_until(lambda run=run: run_ended(nodes.db, run), 240, f"run {run}", nodes)
        assert run_status(nodes.db, run) == "ok", failures(nodes.db)
    assert report_keys(nodes.db) == expected(nodes)
    assert set(syncs_per_repo(nodes.db).values()) == {1}  # the second run's syncs were skipped
    failed = rows(nodes.db, sa.select(t.tasks.c.error).where(t.tasks.c.status == "failed"))
    assert failed == []
    budget = rows(nodes.db, sa.select(t.github_tokens.c.remaining))
    assert len(budget) == len(TOKENS)
    assert sum(gh.limit - remaining for (remaining,) in budget) == gh.charged
    assert not any(r.status in (403, 429) for r in gh.requests)
    again = run_id_of(nodes.enqueue())  # nothing is due any more
    wait_until(lambda: run_ended(nodes.db, again), 60, "the idle run", nodes)
    assert report_keys(nodes.db) == expected(nodes)


def test_a_worker_killed_mid_sync_loses_and_duplicates_nothing(few, datasets):
    gh, nodes = few
    gh.slow(1500, times=FAULT_REPOS, path=r"/issues\?")  # every sync is still running when killed
    nodes.visibility = 8  # the killed worker's task comes back after 8 s
    doomed = nodes.start_worker()
    run = run_id_of(nodes.enqueue())
    running = sa.select(t.tasks.c.id).where(t.tasks.c.name == "sync", t.tasks.c.status == "running")
    wait_until(lambda: rows(nodes.db, running), 120, "a sync to start", nodes)
    nodes.kill(doomed)
    nodes.start_worker()
    nodes.start_worker()
    wait_until(lambda: run_ended(nodes.db, run), 300, "the run", nodes)
    assert run_status(nodes.db, run) == "ok", failures(nodes.db)
    assert report_keys(nodes.db) == expected(nodes)


def test_a_dropped_database_connection_is_retried(few, datasets):
    gh, nodes = few
    gh.slow(1000, times=4, path=r"/issues\?")
    run = run_id_of(nodes.enqueue())
    nodes.start_worker()
    nodes.start_worker()
    running = sa.select(t.tasks.c.id).where(t.tasks.c.name == "sync", t.tasks.c.status == "running")
    wait_until(lambda: rows(nodes.db, running), 120, "a sync to start", nodes)
    killed = terminate_worker_connections(nodes.db)
    assert killed > 0
    wait_until(lambda: run_ended(nodes.db, run), 300, "the run", nodes)
    assert run_status(nodes.db, run) == "ok", failures(nodes.db)
    assert report_keys(nodes.db) == expected(nodes)


def terminate_worker_connections(db: str) -> int:
    """``pg_terminate_backend`` of every worker connection (they carry this test's name)."""
    name = sa.engine.make_url(db).query["application_name"]
    engine = sa.create_engine(db.replace(name, "killer"))
    with engine.connect() as conn:
        query = sa.text(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = :n"
        )
        killed = len(conn.execute(query, {"n": name}).all())
    engine.dispose()
    return killed


def test_the_run_completes_across_a_broker_restart(datasets, tmp_path):
    require_redis()
    port = free_port()
    with private_redis(tmp_path, port) as server:
        broker = f"redis://127.0.0.1:{port}/0"
        with environment(datasets, tmp_path, broker, FAULT_REPOS) as (gh, nodes):
            gh.slow(700, times=6, path=r"/issues\?")
            run = run_id_of(nodes.enqueue())
            nodes.visibility = 10  # tasks reserved by a worker that exits come back after 10 s
            nodes.start_worker()
            nodes.start_worker()
            nodes.supervise()  # kombu's Redis transport can exit a worker that loses its broker
            done = sa.select(t.tasks.c.id).where(t.tasks.c.status == "ok")
            wait_until(lambda: rows(nodes.db, done), 120, "the first finished task", nodes)
            server.terminate()  # a clean shutdown: the queues are persisted
            server.wait(20)
            with private_redis(tmp_path, port):
                wait_until(lambda: run_ended(nodes.db, run), 300, "the run", nodes)
                assert run_status(nodes.db, run) == "ok", failures(nodes.db)
                assert report_keys(nodes.db) == expected(nodes)


def test_rabbitmq_works_as_the_broker_by_configuration(datasets, tmp_path):
    broker = "amqp://guest:guest@127.0.0.1:5672//"
    require_amqp(broker)  # and no result backend: a run's progress is kept in the store
    with environment(datasets, tmp_path, broker, 6) as (_gh, nodes):
        nodes.start_worker()
        run = run_id_of(nodes.enqueue("--wait"))  # follows the run to its close
        assert run_ended(nodes.db, run)
        assert run_status(nodes.db, run) == "ok", failures(nodes.db)
        assert report_keys(nodes.db) == expected(nodes)
        ping = nodes.celery("inspect", "ping", "--timeout", "5")
        assert ping.returncode == 0 and "pong" in ping.stdout, ping.stdout + ping.stderr
        status = subprocess.run(
            nodes.cli("status"), env=nodes.env(), capture_output=True, text=True, timeout=60
        )
        assert status.returncode == 0, status.stderr
        assert f"run {run} (celery, ok" in status.stdout and "0 failed" in status.stdout
        assert "GitHub tokens" in status.stdout


def require_amqp(url: str) -> None:
    try:
        with kombu.Connection(url, connect_timeout=3) as conn:
            conn.connect()
    except Exception as exc:
        message = f"RabbitMQ at {url} is unreachable ({exc}): start it"
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the RabbitMQ test: {message}", pytrace=False)
        pytest.skip(message)
