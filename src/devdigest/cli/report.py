"""``devdigest report`` and ``devdigest demo``."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from devdigest.cli.common import window_from_options, window_options
from devdigest.cli.sync import (
    anonymous_note,
    echo_notes,
    graphql_option,
    summary_line,
    sync_progress,
    with_graphql,
)
from devdigest.github.sync import current_time
from devdigest.report import (
    DEMO_TZ,
    ReportRun,
    generate_reports,
    languages,
    sample_window,
    upsert_sample,
    write_files,
)
from devdigest.store import open_store
from devdigest.writers import WRITERS, fallback_note

LANG_CHOICES = click.Choice(["zh", "en", "both"])


@click.command("report")
@click.argument("repo", metavar="OWNER/REPO")
@window_options
@click.option("--lang", type=LANG_CHOICES, default="zh", show_default=True, help="Report language.")
@click.option(
    "--writer",
    type=click.Choice(WRITERS),
    default="auto",
    show_default=True,
    help="auto: the LLM when configured, else offline.",
)
@click.option("--out", metavar="DIR", help="Output folder [default: config out, 'reports'].")
@click.option("--no-sync", is_flag=True, help="Use the stored data only (no GitHub requests).")
@graphql_option
@click.pass_obj
def report_cmd(
    app,
    repo: str,
    on_date: str | None,
    since: str | None,
    until: str | None,
    last: str | None,
    tz: str | None,
    lang: str,
    writer: str,
    out: str | None,
    no_sync: bool,
    graphql: bool | None,
) -> None:
    """Write the daily report of OWNER/REPO as Markdown and JSON."""
    config = with_graphql(app.config, graphql)
    project = config.project(repo)
    window = window_from_options(project.tz, on_date, since, until, last, tz, now=current_time())
    with open_store(config.db) as store:
        with sync_progress() as progress:
            run = generate_reports(
                config,
                store,
                project.repo,
                window,
                languages(lang),
                writer=writer,
                no_sync=no_sync,
                progress=progress,
            )
        if run.sync is not None:
            anonymous_note(config)
            echo_notes(run.sync)
            click.echo(summary_line(project.repo, run.sync), err=True)
        for report in run.reports:
            for path in write_files(report, out or config.out):
                click.echo(str(path))
        echo_writer_notes(run)


@click.command("demo")
@click.option("--lang", type=LANG_CHOICES, default="both", show_default=True, help="Language.")
@click.option("--out", metavar="DIR", help="Output folder [default: config out, 'reports'].")
@click.option("--seed", type=int, default=0, show_default=True, help="Sample day to generate.")
@click.option("--writer", type=click.Choice(WRITERS), default="offline", show_default=True)
@click.pass_obj
def demo_cmd(app, lang: str, out: str | None, seed: int, writer: str) -> None:
    """A report of the bundled sample day: no network, no token needed."""
    from devdigest.sample.dataset import generate_day

    config = app.config
    dataset = generate_day(seed=seed)
    with tempfile.TemporaryDirectory(prefix="devdigest-demo-") as tmp:
        db = app.flags.get("db") or str(Path(tmp) / "demo.sqlite3")
        with open_store(db) as store:
            upsert_sample(store, dataset)
            window = sample_window(dataset.end, DEMO_TZ)
            run = generate_reports(
                config,
                store,
                dataset.repo,
                window,
                languages(lang),
                writer=writer,
                no_sync=True,
                now=dataset.end,
            )
            for report in run.reports:
                for path in write_files(report, out or config.out):
                    click.echo(str(path))
            echo_writer_notes(run)


def echo_writer_notes(run: ReportRun) -> None:
    """The LLM's output mode (or why the run wrote offline), then any report that is mostly
    offline text although an LLM wrote it: one line each, on stderr."""
    notes = [run.writer_note, *map(fallback_note, run.reports)]
    for note in filter(None, notes):
        click.echo(f"note: {note}", err=True)


def register(cli: click.Group) -> None:
    cli.add_command(report_cmd)
    cli.add_command(demo_cmd)
