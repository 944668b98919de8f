"""CLI commands (being written)."""

import click


def register(cli: click.Group) -> None:
    pass
