"""``devdigest run`` and ``devdigest backfill``: every due report, then the site."""

from __future__ import annotations

from datetime import date, datetime

import click
from rich.console import Console
from rich.table import Table

from devdigest.cli import AppContext
from devdigest.cli.report import LANG_CHOICES
from devdigest.cli.sync import anonymous_note
from devdigest.errors import ConfigError, DevdigestError
from devdigest.github.sync import current_time
from devdigest.report import languages
from devdigest.run.runner import RunResult, backfill, run_due
from devdigest.store import open_store
from devdigest.window import parse_instant

STATUS_STYLE = {"ok": "green", "up to date": "dim", "failed": "bold red"}


def _lang_option(command):
    return click.option(
        "--lang", type=LANG_CHOICES, help="Languages to write [default: each project's schedule]."
    )(command)


def _wait_option(command):
    return click.option(
        "--wait-lock",
        type=click.FloatRange(min=0),
        default=0,
        show_default=True,
        metavar="SECONDS",
        help="Wait this long for another run on the same store to finish.",
    )(command)


def _as_of_option(command):
    return click.option(
        "--as-of",
        metavar="ISO",
        hidden=True,
        help="Plan as if it were this time (reproduces a past schedule).",
    )(command)


def _now(as_of: str | None) -> datetime:
    return parse_instant(as_of) if as_of else current_time()


@click.command("run")
@click.argument("repos", nargs=-1, metavar="[OWNER/REPO]...")
@_lang_option
@_wait_option
@_as_of_option
@click.option(
    "--executor",
    type=click.Choice(["local", "celery"]),
    default="local",
    show_default=True,
    help="local: in this process; celery: enqueue for `devdigest worker`s and return.",
)
@click.option("--wait", is_flag=True, help="With --executor celery: follow the run to its end.")
@click.pass_obj
def run_cmd(
    app: AppContext,
    repos: tuple[str, ...],
    lang: str | None,
    wait_lock: float,
    as_of: str | None,
    executor: str,
    wait: bool,
) -> None:
    """Write every due report of each project (catching up missed ones), then the site."""
    config = app.config
    if executor == "celery":
        from devdigest.cli.distributed import run_celery

        langs = languages(lang) if lang else None
        run_celery(config, list(repos) or None, _now(as_of), langs, wait)
        return
    anonymous_note(config)
    with open_store(config.db) as store:
        result = run_due(
            config,
            store,
            list(repos) or None,
            now=_now(as_of),
            langs=languages(lang) if lang else None,
            wait_lock=wait_lock,
        )
    _finish(result)


@click.command("backfill")
@click.argument("repo", metavar="OWNER/REPO")
@click.option("--since", "since", required=True, metavar="YYYY-MM-DD", help="First local date.")
@click.option("--until", "until", metavar="YYYY-MM-DD", help="Last local date [default: latest].")
@_lang_option
@_wait_option
@_as_of_option
@click.pass_obj
def backfill_cmd(
    app: AppContext,
    repo: str,
    since: str,
    until: str | None,
    lang: str | None,
    wait_lock: float,
    as_of: str | None,
) -> None:
    """Write every missing daily report of OWNER/REPO from --since to --until (one sync)."""
    config = app.config
    anonymous_note(config)
    with open_store(config.db) as store:
        result = backfill(
            config,
            store,
            repo,
            _date("--since", since),
            _date("--until", until) if until else None,
            now=_now(as_of),
            langs=languages(lang) if lang else None,
            wait_lock=wait_lock,
        )
    _finish(result)


def _date(flag: str, text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ConfigError(f"bad {flag} {text!r}: use YYYY-MM-DD, e.g. 2026-01-01") from None


def _finish(result: RunResult) -> None:
    """Print the summary table; a failure anywhere makes the exit code 1."""
    Console(soft_wrap=False).print(summary_table(result))
    for outcome in result.outcomes:
        if outcome.error:
            click.echo(f"{outcome.repo}: {outcome.error}", err=True)
    if result.site is not None:
        click.echo(f"site: {result.site.summary()}")
    if result.site_error:
        click.echo(f"site: not built: {result.site_error}", err=True)
    sent = len(result.deliveries) - len(result.undelivered)
    if result.deliveries:
        click.echo(f"messages: {sent} sent, {len(result.undelivered)} failed")
    for d in result.undelivered:
        click.echo(f"message {d.repo} → {d.target} ({d.lang}): {d.error}", err=True)
    if result.failed:
        failed = sum(o.status == "failed" for o in result.outcomes)
        what = (
            f"{failed} project(s) failed"
            if failed
            else "the site build failed"
            if result.site_error
            else f"{len(result.undelivered)} message(s) not delivered (retried on the next run)"
        )
        raise DevdigestError(
            f"{what} (see the table): fix the cause and run again; completed work is kept"
        )


def summary_table(result: RunResult) -> Table:
    table = Table(title="devdigest run", title_justify="left")
    for name, justify in (
        ("project", "left"),
        ("status", "left"),
        ("windows", "left"),
        ("reports", "right"),
        ("GitHub requests", "right"),
        ("seconds", "right"),
    ):
        table.add_column(name, justify=justify, overflow="fold")
    for o in result.outcomes:
        span = _span(o.dates)
        style = STATUS_STYLE.get(o.status, "")
        table.add_row(
            o.repo,
            f"[{style}]{o.status}[/]" if style else o.status,
            span,
            str(o.reports),
            str(o.requests),
            f"{o.seconds:.1f}",
        )
    return table


def _span(dates: list[str]) -> str:
    if not dates:
        return "-"
    return dates[0] if len(dates) == 1 else f"{dates[0]} … {dates[-1]} ({len(dates)})"


def register(cli: click.Group) -> None:
    cli.add_command(run_cmd)
    cli.add_command(backfill_cmd)
