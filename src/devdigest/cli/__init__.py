"""The command line: the one place where errors become messages and exit codes."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

import click
import sqlalchemy.exc

from devdigest import __version__
from devdigest.config import Config, load_config
from devdigest.errors import DevdigestError
from devdigest.render.sanitize import strip_invisible


@dataclass
class AppContext:
    """Global flags, resolved into a Config on first use."""

    config_path: str | None = None
    flags: dict[str, Any] = field(default_factory=dict)
    _config: Config | None = None

    @property
    def config(self) -> Config:
        if self._config is None:
            self._config = load_config(self.config_path, self.flags)
        return self._config


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--config", "config_path", metavar="PATH", help="devdigest.toml to read.")
@click.option(
    "--db", metavar="PATH|URL", help="Database file or SQLAlchemy URL [env DEVDIGEST_DB]."
)
@click.option(
    "--github-api-url", metavar="URL", help="GitHub API base URL [env DEVDIGEST_GITHUB_API_URL]."
)
@click.version_option(__version__, prog_name="devdigest")
@click.pass_context
def cli(ctx: click.Context, config_path: str | None, db: str | None, github_api_url: str | None):
    """Daily development reports for busy GitHub repositories."""
    ctx.obj = AppContext(config_path, {"db": db, "github_api_url": github_api_url})


def _register() -> None:
    from devdigest.cli import config_cmd, distributed, init_cmd, notify, report, run, site, sync

    for module in (sync, report, run, site, config_cmd, init_cmd, notify, distributed):
        module.register(cli)


def one_line(text: str) -> str:
    """``text`` for the terminal: no control or invisible characters (a server's message could
    set the window title or rewrite the line), whitespace runs as one space."""
    return " ".join(strip_invisible(text).split())


def echo_error(message: str) -> None:
    click.echo(f"error: {one_line(message)}", err=True)


def main(argv: list[str] | None = None) -> int:
    """Entry point: runs a command, turning known errors into one line on stderr."""
    try:
        _register()
        cli.main(args=argv, prog_name="devdigest", standalone_mode=False)
    except DevdigestError as exc:
        echo_error(str(exc))
        return 1
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("interrupted: everything already fetched is kept; rerun to continue", err=True)
        return 130
    except sqlalchemy.exc.SQLAlchemyError as exc:  # e.g. a damaged file found mid-query
        reason = str(exc.orig if getattr(exc, "orig", None) else exc).splitlines()[0]
        echo_error(
            f"the database failed ({exc.__class__.__name__}: {reason}): check --db / "
            "DEVDIGEST_DB, or restore the file from a backup if it is damaged"
        )
        return 1
    except click.UsageError as exc:
        if exc.__class__.__name__ == "NoArgsIsHelpError":  # a bare group: its help
            exc.show()
            return exc.exit_code
        where = f" (see `{exc.ctx.command_path} --help`)" if exc.ctx else ""
        echo_error(f"{exc.format_message()}{where}")
        return exc.exit_code
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
