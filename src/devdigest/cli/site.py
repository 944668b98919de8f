"""``devdigest site build`` and ``devdigest site serve``."""

from __future__ import annotations

from pathlib import Path

import click

from devdigest.cli.common import default_note
from devdigest.errors import SiteError
from devdigest.site.build import FORMATS, build_site
from devdigest.store import open_store


@click.group("site")
def site_group() -> None:
    """Publish stored reports as a static site."""


@site_group.command("build")
@click.option("--out", metavar="DIR", help=f"Output folder {default_note('site_out')}.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="html",
    show_default=True,
    help="html: a complete site; jekyll: Markdown + front matter for a Jekyll site.",
)
@click.option(
    "--base-url",
    metavar="URL",
    help="Public URL of the site, for absolute feed links [default: site_url].",
)
@click.pass_obj
def build_cmd(app, out: str | None, fmt: str, base_url: str | None) -> None:
    """Build every report in the store, all projects (atomic, incremental)."""
    config = app.config
    with open_store(config.db) as store:
        report = build_site(store, config, out or config.site_out, fmt=fmt, base_url=base_url)
    click.echo(f"built {report.summary()}")


@site_group.command("serve")
@click.option("--out", metavar="DIR", help=f"Folder to build into {default_note('site_out')}.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    help="Port on 127.0.0.1 (0: any free port).",
)
@click.pass_obj
def serve_cmd(app, out: str | None, port: int) -> None:
    """Preview the site locally; pages are rebuilt when the store changes."""
    from devdigest.site.serve import SiteServer, make_server

    config = app.config
    with open_store(config.db) as store:
        site = SiteServer(store, config, Path(out or config.site_out), log=click.echo)
        try:
            server = make_server(site, port)
        except OSError as exc:
            raise SiteError(
                f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}; choose another --port"
            ) from exc
        host, bound = server.server_address[:2]
        click.echo(f"serving {site.out} on http://{host}:{bound}/ (Ctrl-C to stop)")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            click.echo("stopped")
        finally:
            server.server_close()


def register(cli: click.Group) -> None:
    cli.add_command(site_group)
