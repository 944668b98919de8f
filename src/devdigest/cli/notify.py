"""``devdigest notify test TARGET``: one test message to one configured target."""

from __future__ import annotations

import click

from devdigest.cli import AppContext
from devdigest.errors import NotifyError
from devdigest.notify import send_test


@click.group("notify")
def notify_group() -> None:
    """Notification targets ([[targets]] in devdigest.toml)."""


@notify_group.command("test")
@click.argument("target")
@click.option("--lang", type=click.Choice(["zh", "en"]), default="en", show_default=True)
@click.pass_obj
def test_cmd(app: AppContext, target: str, lang: str) -> None:
    """Send a test message to TARGET and print the result on one line."""
    error = send_test(app.config, target, lang=lang)
    if error:
        raise NotifyError(error)
    click.echo(f"sent a test message to {target} ({app.config.target(target).type})")


def register(cli: click.Group) -> None:
    cli.add_command(notify_group)
