"""Options and helpers shared by commands."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import click

from devdigest.window import Window, build_window


def window_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--date/--week/--month/--since/--until/--last/--tz``: the window of a command."""
    options = [
        click.option("--date", "on_date", metavar="YYYY-MM-DD", help="A calendar day in --tz."),
        click.option("--week", metavar="YYYY-Www", help="An ISO week in --tz, e.g. 2026-W11."),
        click.option("--month", metavar="YYYY-MM", help="A calendar month in --tz, e.g. 2026-03."),
        click.option(
            "--since", metavar="ISO", help="Window start (ISO 8601; without an offset: in --tz)."
        ),
        click.option("--until", metavar="ISO", help="Window end, exclusive (default: now)."),
        click.option("--last", metavar="DURATION", help="Window ending now, e.g. 24h (default)."),
        click.option(
            "--tz",
            metavar="ZONE",
            help="Time zone of --date, of times without an offset and of the labels: an IANA "
            "name (Asia/Shanghai) or a fixed offset (UTC+8) [default: the project's, else UTC].",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def default_note(setting: str, env: str | None = None) -> str:
    """``[default: reports; setting out, env DEVDIGEST_OUT]``: the built-in value, and where to
    change it."""
    from devdigest.config import Config

    where = f"setting {setting}" + (f", env {env}" if env else "")
    return f"[default: {Config.model_fields[setting].default}; {where}]"


def window_from_options(
    default_tz: str,
    on_date: str | None,
    since: str | None,
    until: str | None,
    last: str | None,
    tz: str | None,
    now: datetime | None = None,
    week: str | None = None,
    month: str | None = None,
) -> Window:
    return build_window(
        week=week,
        month=month,
        now=now or datetime.now(UTC),
        tz=tz or default_tz,
        on_date=on_date,
        since=since,
        until=until,
        last=last,
        note=echo_note,
    )


def echo_note(message: str) -> None:
    """One ``note:`` line on stderr."""
    from devdigest.cli import one_line

    click.echo(f"note: {one_line(message)}", err=True)
