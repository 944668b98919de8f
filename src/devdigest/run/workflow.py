"""``devdigest init github-actions``: a workflow that runs daily and publishes to GitHub Pages."""

from __future__ import annotations

import json
import shlex
import sys
from datetime import UTC, date, datetime, timedelta

from jinja2 import Environment, PackageLoader, StrictUndefined

from devdigest.config import Config
from devdigest.run.windows import parse_cutoff
from devdigest.window import resolve_tz

DELAY = timedelta(minutes=15)  # after the cutoff: GitHub's listings settle, scheduled runs queue
DEFAULT_INSTALL = "devdigest"

_ENV = Environment(
    loader=PackageLoader("devdigest.run", "templates"),
    autoescape=False,  # YAML, not HTML: substituted values are JSON-quoted or computed
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
    undefined=StrictUndefined,
)


def daily_crons(config: Config, today: date | None = None) -> list[str]:
    """One UTC cron line per distinct cutoff of the configured projects (shifted by ``DELAY``).

    Cron runs in UTC, so a project in a zone with daylight saving time gets its cutoff as of
    ``today``; a run an hour late is still correct, because ``run`` writes whatever is due.
    """
    today = today or datetime.now(UTC).date()
    crons = set()
    for project in config.projects or [None]:
        schedule = config.schedule if project is None else config.schedule_for(project)
        tz = "UTC" if project is None else project.tz
        local = datetime.combine(today, parse_cutoff(schedule.cutoff), tzinfo=resolve_tz(tz))
        when = local.astimezone(UTC) + DELAY
        crons.add((when.hour, when.minute))
    return [f"{minute} {hour} * * *" for hour, minute in sorted(crons)]


def render_workflow(
    config: Config, *, install: str = DEFAULT_INSTALL, today: date | None = None
) -> str:
    """The workflow YAML for ``config``."""
    site = config.site_out
    return _ENV.get_template("github-actions.yml.j2").render(
        crons=daily_crons(config, today),
        install=json.dumps(f"python -m pip install {shlex.quote(install)}"),
        python=f"{sys.version_info.major}.{sys.version_info.minor}",
        site=json.dumps(site),
        secrets=notification_secrets(config),
    )


def notification_secrets(config: Config) -> list[str]:
    """The environment variables the notification targets read, passed from repository secrets."""
    fields = ("url_env", "secret_env", "token_env", "password_env")
    names = {getattr(target, name) for target in config.targets for name in fields}
    return sorted(name for name in names if name)
