"""``devdigest sync`` and ``devdigest stats``."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import click
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from devdigest.cli import AppContext
from devdigest.cli.common import echo_note, window_from_options, window_options
from devdigest.config import Config
from devdigest.errors import ConfigError
from devdigest.github import sync as gh
from devdigest.models import COUNT_KEYS, SyncStats
from devdigest.report import check_coverage
from devdigest.store import open_store
from devdigest.window import Window, parse_instant, resolve_tz

LABELS = {
    "new_issues": "new issues",
    "closed_issues": "closed issues",
    "new_prs": "new PRs",
    "merged_prs": "merged PRs",
    "closed_unmerged_prs": "PRs closed without merge",
}
RESOURCE_LABELS = {
    "issues": "issues and PRs",
    "issue_comments": "issue comments",
    "review_comments": "review comments",
    "issue_events": "state events",
}


@contextmanager
def sync_progress() -> Iterator[gh.Progress]:
    """A rich progress display on stderr, silent when stderr is not a terminal."""
    console = Console(stderr=True)
    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=console, disable=not console.is_terminal) as bar:
        tasks: dict[str, int] = {}

        def update(resource: str, rows: int) -> None:
            label = RESOURCE_LABELS.get(resource, resource)
            if resource not in tasks:
                tasks[resource] = bar.add_task(label, total=None)
            bar.update(tasks[resource], description=f"{label}: {rows}")

        yield update


def summary_line(repo: str, stats: SyncStats) -> str:
    return (
        f"synced {repo}: {stats.items} items, {stats.comments} comments, "
        f"{stats.reviews} reviews, {stats.events} state events; {stats.requests} requests, "
        f"{stats.not_modified} not modified (304), {stats.retried} retried, "
        f"{stats.slept_seconds:.0f}s waited"
    )


def echo_notes(stats: SyncStats) -> None:
    """What the run noted (e.g. a fallback from GraphQL to REST), on stderr."""
    for note in stats.notes:
        echo_note(note)


def graphql_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--graphql/--no-graphql``: batch PR reviews over GraphQL (default: the setting)."""
    return click.option(
        "--graphql/--no-graphql",
        default=None,
        help="Batch PR reviews in GraphQL queries [env DEVDIGEST_GITHUB_GRAPHQL].",
    )(command)


def no_wait_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--no-wait``: stop with a resumable error instead of waiting for a rate limit reset."""
    return click.option(
        "--no-wait", is_flag=True, help="Stop instead of waiting for a rate limit reset."
    )(command)


def with_graphql(config: Config, graphql: bool | None) -> Config:
    """``config`` with the ``--graphql/--no-graphql`` flag applied, when given."""
    if graphql is None:
        return config
    return config.model_copy(update={"github_graphql": graphql})


def anonymous_note(config: Config) -> None:
    """Say once, on stderr, that an unauthenticated run is limited to 60 requests an hour."""
    if config.github_token is None:
        click.echo(
            "note: no DEVDIGEST_GITHUB_TOKEN set: working within GitHub's anonymous limit of 60 "
            "requests/hour (waiting for resets when it runs low); set DEVDIGEST_GITHUB_TOKEN for "
            "5000/hour",
            err=True,
        )


@click.command("sync")
@click.argument("repo", metavar="OWNER/REPO")
@click.option(
    "--since",
    metavar="ISO",
    help="Fetch changes since this time (ISO 8601; without an offset: in the project's zone).",
)
@click.option("--days", type=click.IntRange(min=1), help="Fetch changes of the last N days.")
@no_wait_option
@graphql_option
@click.pass_obj
def sync_command(
    app: AppContext,
    repo: str,
    since: str | None,
    days: int | None,
    no_wait: bool,
    graphql: bool | None,
) -> None:
    """Mirror OWNER/REPO incrementally: default since the last sync, or 2 days."""
    config = with_graphql(app.config, graphql)
    project = config.project(repo)  # validates OWNER/NAME
    if since and days:
        raise ConfigError("choose one of --since and --days")
    zone = resolve_tz(project.tz)
    start = parse_instant(since, zone, option="--since", note=echo_note) if since else None
    lookback = timedelta(days=days) if days else None  # from the server's Date, not ours
    anonymous_note(config)
    with (
        open_store(config.db) as store,
        gh.make_client(config, wait=not no_wait) as client,
        sync_progress() as progress,
    ):
        stats = gh.sync_repo(
            store,
            client,
            repo,
            start,
            lookback=lookback,
            progress=progress,
            graphql=config.github_graphql,
        )
    echo_notes(stats)
    click.echo(summary_line(repo, stats))


@click.command("stats")
@click.argument("repo", metavar="OWNER/REPO")
@window_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--no-sync", is_flag=True, help="Use the store as it is, without syncing.")
@no_wait_option
@graphql_option
@click.pass_obj
def stats_command(
    app: AppContext,
    repo: str,
    on_date: str | None,
    week: str | None,
    month: str | None,
    since: str | None,
    until: str | None,
    last: str | None,
    tz: str | None,
    as_json: bool,
    no_sync: bool,
    no_wait: bool,
    graphql: bool | None,
) -> None:
    """The five counts of a window of OWNER/REPO, syncing what it needs first."""
    config = with_graphql(app.config, graphql)
    project = config.project(repo)
    now = gh.reference_time(config, offline=no_sync)
    window = window_from_options(
        project.tz, on_date, since, until, last, tz, now=now, week=week, month=month
    )
    with open_store(config.db) as store:
        if not no_sync:
            anonymous_note(config)
            with sync_progress() as progress:
                stats = gh.ensure_synced(
                    config, store, repo, window.start, wait=not no_wait, progress=progress
                )
            if stats is not None:
                echo_notes(stats)
                click.echo(summary_line(repo, stats), err=True)
        elif note := check_coverage(store, repo, window):
            echo_note(note)
        numbers = store.window_numbers(repo, window.start, window.end)
    click.echo(render_stats(repo, window, numbers, as_json))


def render_stats(repo: str, window: Window, numbers: dict[str, list[int]], as_json: bool) -> str:
    """The counts as one JSON object, or as a small table under the window label."""
    if as_json:
        payload = {
            "repo": repo,
            "window": window.to_json(),
            "counts": {key: len(numbers[key]) for key in COUNT_KEYS},
            "items": {key: numbers[key] for key in COUNT_KEYS},
        }
        return json.dumps(payload, ensure_ascii=False)
    width = max(len(label) for label in LABELS.values())
    lines = [f"{repo}  {window.label}"]
    lines += [f"  {LABELS[key]:<{width}}  {len(numbers[key]):>5}" for key in COUNT_KEYS]
    return "\n".join(lines)


def register(cli: click.Group) -> None:
    cli.add_command(sync_command)
    cli.add_command(stats_command)
