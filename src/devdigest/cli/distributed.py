"""``devdigest worker``, ``devdigest status`` and the Celery side of ``devdigest run``."""

from __future__ import annotations

from datetime import datetime

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from devdigest.cli import AppContext
from devdigest.config import Config
from devdigest.errors import ConfigError, DevdigestError
from devdigest.store import open_store


def _celery(config: Config):
    """The distributed package, configured for ``config`` (a clear error if not installed)."""
    try:
        from devdigest.distributed import app as celery_app
    except ImportError as exc:
        raise ConfigError(
            f"the Celery executor needs the distributed extra ({exc.name} is missing): "
            "pip install 'devdigest[distributed]'"
        ) from None
    celery_app.use_config(config)
    return celery_app


@click.command("worker")
@click.option("--concurrency", "-c", type=click.IntRange(min=1), default=2, show_default=True)
@click.option("--queues", "-Q", help="Comma-separated queues [default: all of devdigest's].")
@click.option("--loglevel", default="INFO", show_default=True)
@click.pass_obj
def worker_cmd(app: AppContext, concurrency: int, queues: str | None, loglevel: str) -> None:
    """Run a Celery worker for the shared store (start any number, on any machines)."""
    config = app.config
    celery_app = _celery(config)
    from devdigest.distributed.ledger import require_shared_store

    with open_store(config.db) as store:  # migrate once, before the pool forks
        require_shared_store(store)
    names = queues or ",".join(celery_app.queue_name(q) for q in celery_app.QUEUES)
    celery_app.app.worker_main(
        ["worker", f"--concurrency={concurrency}", f"--queues={names}", f"--loglevel={loglevel}"]
    )


def run_celery(config: Config, repos: list[str] | None, now: datetime, langs, wait: bool) -> None:
    """Enqueue the run; with ``wait``, follow it to the end with a progress bar."""
    _celery(config)
    from devdigest.distributed.dispatch import enqueue_run, wait_for
    from devdigest.distributed.ledger import task_rows

    with open_store(config.db) as store:
        queued = enqueue_run(config, store, repos, now=now, langs=langs)
        click.echo(
            f"run {queued.run_id}: {queued.tasks} tasks enqueued for "
            f"{len(queued.plans)} project(s) with due reports"
        )
        if not wait:
            return
        with Progress(
            TextColumn("run {task.fields[run]}: repositories done"),
            BarColumn(),
            MofNCompleteColumn(),
        ) as bar:
            task = bar.add_task("repositories", total=len(queued.plans), run=queued.run_id)

            def show(state: dict) -> None:
                bar.update(task, completed=state["repos_done"])

            state = wait_for(store, queued.run_id, show)
        failed = [row for row in task_rows(store, queued.run_id) if row["status"] == "failed"]
    for row in failed:
        click.echo(f"{row['repo'] or 'site'} {row['name']}: {row['error']}", err=True)
    if state["status"] == "failed":
        raise DevdigestError(
            f"run {queued.run_id} failed (see devdigest status): fix the cause and run again; "
            "completed work is kept"
        )


@click.command("status")
@click.pass_obj
def status_cmd(app: AppContext) -> None:
    """Queues, the latest run's tasks and failures, and each token's GitHub budget."""
    config = app.config
    _celery(config)
    from devdigest.distributed.dispatch import status

    with open_store(config.db) as store:
        state = status(store)
    console = Console(soft_wrap=False)
    for name, depth in state["queues"].items():
        console.print(f"queue {name}: {'unreachable' if depth is None else depth} waiting")
    run = state["run"]
    if run:
        console.print(
            f"run {run['id']} ({run['command']}, {run['status']}, started "
            f"{run['started_at']:%Y-%m-%d %H:%M} UTC): {state['done']} tasks done, "
            f"{len(state['running'])} running or retrying, {len(state['failed'])} failed"
        )
    console.print(_table("failed", ("task", "repo", "window", "reason"), state["failed"]))
    console.print(_tokens(state["tokens"], state["tokens_in_use"]))


def _table(title: str, columns: tuple[str, ...], rows: list[dict]) -> Table:
    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(row["name"], row["repo"] or "-", row["window"] or "-", row["error"] or "")
    return table


def _tokens(rows: list[dict], in_use: set[str]) -> Table:
    table = Table(title="GitHub tokens", title_justify="left")
    for column in ("token", "remaining", "limit", "resets", "in use"):
        table.add_column(column)
    for row in rows:
        reset = row["reset_at"]
        table.add_row(
            row["fingerprint"],
            "?" if row["remaining"] is None else str(row["remaining"]),
            "?" if row["limit"] is None else str(row["limit"]),
            "-" if reset is None else f"{reset:%H:%M:%S} UTC",
            "yes" if row["fingerprint"] in in_use else "no",
        )
    return table


def register(cli: click.Group) -> None:
    cli.add_command(worker_cmd)
    cli.add_command(status_cmd)
