"""``devdigest config show``."""

from __future__ import annotations

import json

import click

from devdigest.cli import AppContext


@click.group("config")
def config_group() -> None:
    """Inspect the configuration."""


@config_group.command("show")
@click.pass_obj
def show(app: AppContext) -> None:
    """Print the effective configuration (secrets redacted) as JSON."""
    click.echo(json.dumps(app.config.redacted(), indent=2, ensure_ascii=False))


def register(cli: click.Group) -> None:
    cli.add_command(config_group)
