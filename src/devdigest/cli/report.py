"""``devdigest report`` and ``devdigest demo``."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from devdigest.cli.common import default_note, echo_note, window_from_options, window_options
from devdigest.cli.sync import (
    anonymous_note,
    echo_notes,
    graphql_option,
    no_wait_option,
    summary_line,
    sync_progress,
    with_graphql,
)
from devdigest.github.sync import reference_time
from devdigest.report import (
    DEMO_TZ,
    SAMPLE_REPO,
    SAMPLE_WEB,
    ReportRun,
    check_demo_file,
    check_demo_store,
    generate_period_reports,
    generate_reports,
    languages,
    sample_config,
    sample_window,
    upsert_sample,
    write_files,
    write_period_files,
)
from devdigest.site.build import build_site
from devdigest.store import open_store
from devdigest.writers import WRITERS, fallback_note

LANG_CHOICES = click.Choice(["zh", "en", "both"])
OUT_DEFAULT = default_note("out", "DEVDIGEST_OUT")
DEMO_OUT = "devdigest-demo"


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
@click.option("--out", metavar="DIR", help=f"Output folder {OUT_DEFAULT}.")
@click.option("--no-sync", is_flag=True, help="Use the stored data only (no GitHub requests).")
@no_wait_option
@click.option(
    "--no-history",
    is_flag=True,
    help="Sync only the window, not the listings of the 7 days before it that trends compare with.",
)
@graphql_option
@click.pass_obj
def report_cmd(
    app,
    repo: str,
    on_date: str | None,
    week: str | None,
    month: str | None,
    since: str | None,
    until: str | None,
    last: str | None,
    tz: str | None,
    lang: str,
    writer: str,
    out: str | None,
    no_sync: bool,
    no_wait: bool,
    no_history: bool,
    graphql: bool | None,
) -> None:
    """Write the daily report of OWNER/REPO as Markdown and JSON.

    A window longer than a day (--week, --month, a long --since/--until) gets the period
    report: counts per day with a chart, comparisons, topics and contributors, written offline.
    """
    config = with_graphql(app.config, graphql)
    if repo.lower() == SAMPLE_REPO:  # the demo's store: its project settings name its files
        config = sample_config(config)
    project = config.project(repo)
    now = reference_time(config, offline=no_sync)
    window = window_from_options(
        project.tz, on_date, since, until, last, tz, now=now, week=week, month=month
    )
    if window.is_period:
        if writer == "llm":
            click.echo(
                "note: period reports are written offline; --writer llm is ignored", err=True
            )
        return _period_report(config, project.repo, window, languages(lang), out, no_sync)
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
                wait=not no_wait,
                progress=progress,
                history=not no_history,
            )
        for note in run.notes:
            echo_note(note)
        if run.sync is not None:
            anonymous_note(config)
            echo_notes(run.sync)
            click.echo(summary_line(project.repo, run.sync), err=True)
        for report in run.reports:
            for path in write_files(report, out or config.out, config):
                click.echo(str(path))
        echo_writer_notes(run)


def _period_report(config, repo: str, window, langs: list[str], out, no_sync: bool) -> None:
    with open_store(config.db) as store, sync_progress() as progress:
        run = generate_period_reports(
            config, store, repo, window, langs, no_sync=no_sync, progress=progress
        )
    if run.sync is not None:
        anonymous_note(config)
        echo_notes(run.sync)
        click.echo(summary_line(repo, run.sync), err=True)
    for report in run.reports:
        for path in write_period_files(report, out or config.out):
            click.echo(str(path))


@click.command("demo")
@click.option("--lang", type=LANG_CHOICES, default="both", show_default=True, help="Language.")
@click.option(
    "--out",
    metavar="DIR",
    default=DEMO_OUT,
    show_default=True,
    help="Folder for the sample reports and the sample site (DIR/site).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Sample day to generate.")
@click.option("--writer", type=click.Choice(WRITERS), default="offline", show_default=True)
@click.pass_obj
def demo_cmd(app, lang: str, out: str, seed: int, writer: str) -> None:
    """Reports and a site for a generated sample day: no network, no token needed.

    The sample uses its own database (a temporary one, or a new file given with --db) and a
    fictional repository; it never writes into a store holding other data.
    """
    config = sample_config(app.config)
    with tempfile.TemporaryDirectory(prefix="devdigest-demo-") as tmp:
        db = app.flags.get("db") or str(Path(tmp) / "demo.sqlite3")
        check_demo_file(db)
        with open_store(db) as store:
            check_demo_store(store, db)
            run = _demo_reports(config, store, seed, languages(lang), writer)
            for report in run.reports:
                for path in write_files(report, out, config):
                    click.echo(str(path))
            echo_writer_notes(run)
            site = build_site(store, config, Path(out) / "site")
    click.echo(f"open {site.out / 'index.html'}")


def _demo_reports(config, store, seed: int, langs: list[str], writer: str):
    from devdigest.sample.dataset import generate_day

    dataset = generate_day(seed=seed, repo=SAMPLE_REPO)
    dataset.web = SAMPLE_WEB
    upsert_sample(store, dataset)
    window = sample_window(dataset.end, DEMO_TZ)
    return generate_reports(
        config,
        store,
        dataset.repo,
        window,
        langs,
        writer=writer,
        no_sync=True,
        now=dataset.end,
    )


def echo_writer_notes(run: ReportRun) -> None:
    """The LLM's output mode (or why the run wrote offline), then any report that is mostly
    offline text although an LLM wrote it: one line each, on stderr."""
    notes = [run.writer_note, *map(fallback_note, run.reports)]
    for note in filter(None, notes):
        click.echo(f"note: {note}", err=True)


def register(cli: click.Group) -> None:
    cli.add_command(report_cmd)
    cli.add_command(demo_cmd)
