"""``devdigest init github-actions``: write a scheduled workflow for GitHub Actions."""

from __future__ import annotations

from pathlib import Path

import click

from devdigest.cli import AppContext
from devdigest.errors import ConfigError
from devdigest.run.workflow import DEFAULT_INSTALL, render_workflow

WORKFLOW = Path(".github/workflows/devdigest.yml")


@click.group("init")
def init_group() -> None:
    """Write files that run devdigest on a schedule."""


@init_group.command("github-actions")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=WORKFLOW,
    show_default=True,
    help="Workflow file to write.",
)
@click.option(
    "--install",
    default=DEFAULT_INSTALL,
    show_default=True,
    metavar="PIP-SPEC",
    help="What the workflow installs, e.g. 'devdigest[postgres]' or a git URL.",
)
@click.option("--force", is_flag=True, help="Replace an existing workflow file.")
@click.pass_obj
def github_actions_cmd(app: AppContext, out: Path, install: str, force: bool) -> None:
    """A daily workflow: restore the store, `devdigest run`, deploy the site to GitHub Pages."""
    if out.exists() and not force:
        raise ConfigError(f"{out} exists: pass --force to replace it, or --out another path")
    text = render_workflow(app.config, install=install)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    click.echo(f"wrote {out}")
    click.echo(
        "next: commit it and devdigest.toml, set Settings → Pages → Source to 'GitHub Actions', "
        "add the DEVDIGEST_GITHUB_TOKEN secret (optional: LLM secrets), then run the workflow "
        "once by hand with allow_new_store"
    )


def register(cli: click.Group) -> None:
    cli.add_command(init_group)
