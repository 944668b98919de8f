"""The command line: the one place where errors become messages and exit codes."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

import click

from devdigest import __version__
from devdigest.config import Config, load_config
from devdigest.errors import DevdigestError


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
    from devdigest.cli import config_cmd, distributed, init_cmd, report, run, site, sync

    for module in (sync, report, run, site, config_cmd, init_cmd, distributed):
        module.register(cli)


def main(argv: list[str] | None = None) -> int:
    """Entry point: runs a command, turning known errors into one line on stderr."""
    _register()
    try:
        cli.main(args=argv, prog_name="devdigest", standalone_mode=False)
    except DevdigestError as exc:
        click.echo(f"error: {exc}", err=True)
        return 1
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("interrupted: everything already fetched is kept; rerun to continue", err=True)
        return 130
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
