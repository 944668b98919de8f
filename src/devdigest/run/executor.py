"""Planning and executing a run: which windows each project needs, then the work itself.

``plan_project`` is pure apart from reading the store; an ``Executor`` carries out the plans.
``LocalExecutor`` works in this process, one project after another; each project's failure is
caught and reported so the others still run. Another executor (e.g. a task queue) only has to
call the same per-repository functions of ``devdigest.run.jobs``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from devdigest.config import Config, Project
from devdigest.errors import DevdigestError
from devdigest.models import DailyReport
from devdigest.period_models import PeriodReport
from devdigest.run.jobs import finished_windows, sync_repository, write_window_reports
from devdigest.run.periods import DuePeriod, plan_due_periods, write_due_period
from devdigest.run.windows import DueWindow, plan_due_windows
from devdigest.store import Store

Progress = Callable[[str, str], None]  # (repo, what is happening)


@dataclass
class ProjectPlan:
    """What one project needs: its windows (oldest first), each with its missing languages."""

    repo: str
    name: str
    windows: list[DueWindow]
    writer: str
    periods: list[DuePeriod] = field(default_factory=list)

    @property
    def since(self) -> datetime | None:
        starts = [due.window.start for due in self.windows + self.periods]
        return min(starts, default=None)


@dataclass
class ProjectOutcome:
    """What happened to one project."""

    repo: str
    name: str
    status: str  # "up to date" | "ok" | "failed"
    dates: list[str] = field(default_factory=list)  # windows written: local date, week, month
    reports: int = 0
    requests: int = 0
    seconds: float = 0.0
    error: str | None = None
    written: list[DailyReport] = field(default_factory=list, repr=False)
    written_periods: list[PeriodReport] = field(default_factory=list, repr=False)

    def to_json(self) -> dict:
        return {
            "repo": self.repo,
            "status": self.status,
            "dates": self.dates,
            "reports": self.reports,
            "requests": self.requests,
            "error": self.error,
        }


def plan_project(
    config: Config,
    store: Store,
    project: Project,
    now: datetime,
    *,
    langs: list[str] | None = None,
    since: datetime | None = None,
    periods: bool = True,
) -> ProjectPlan:
    """The windows ``project`` needs at ``now`` (``langs`` overrides the schedule's), and the
    weeks and months its schedule asks for (unless ``periods`` is False)."""
    schedule = config.schedule_for(project)
    wanted = langs or schedule.langs
    done = finished_windows(config, store, project.repo)
    due = plan_due_windows(
        schedule.window, project.tz, schedule.cutoff, wanted, now, done, since=since
    )
    kinds = schedule.periods if periods else []
    due_periods = plan_due_periods(store, project.repo, kinds, project.tz, wanted, now)
    return ProjectPlan(project.repo, project.display_name, due, schedule.writer, due_periods)


class Executor(Protocol):
    def execute(
        self, config: Config, store: Store, plans: list[ProjectPlan], *, now: datetime
    ) -> list[ProjectOutcome]: ...


@dataclass
class LocalExecutor:
    """Runs every plan in this process, in order; a failing project does not stop the others."""

    progress: Progress | None = None

    def execute(
        self, config: Config, store: Store, plans: list[ProjectPlan], *, now: datetime
    ) -> list[ProjectOutcome]:
        return [self._one(config, store, plan, now) for plan in plans]

    def _one(self, config: Config, store: Store, plan: ProjectPlan, now: datetime):
        outcome = ProjectOutcome(plan.repo, plan.name, "up to date")
        if not plan.windows and not plan.periods:
            return outcome
        started = time.perf_counter()
        try:
            run_project(config, store, plan, now, outcome, self.progress)
            outcome.status = "ok"
        except Exception as exc:  # one project's failure must not stop the others
            outcome.status = "failed"
            outcome.error = one_line(exc)
        outcome.seconds = time.perf_counter() - started
        return outcome


def run_project(
    config: Config,
    store: Store,
    plan: ProjectPlan,
    now: datetime,
    outcome: ProjectOutcome,
    progress: Progress | None = None,
) -> None:
    """Sync once for all of the plan's windows, then write each window's reports in order."""
    say = progress or (lambda repo, what: None)
    say(plan.repo, f"syncing since {plan.since:%Y-%m-%d %H:%M} UTC")
    stats = sync_repository(config, store, plan.repo, plan.since)
    outcome.requests = stats.requests if stats else 0
    for due in plan.windows:
        say(plan.repo, f"writing {due.window.label}")
        outcome.written += write_window_reports(
            config,
            store,
            plan.repo,
            due.window.start,
            due.window.end,
            due.window.tz,
            list(due.langs),
            writer=plan.writer,
            now=now,
        )
        outcome.dates.append(due.window.local_date.isoformat())
        outcome.reports = len(outcome.written)
    for period in plan.periods:
        say(plan.repo, f"writing the {period.kind} {period.window.label}")
        written = write_due_period(config, store, plan.repo, period, now=now)
        outcome.written_periods += written
        outcome.dates.append(written[0].period)
        outcome.reports += len(written)
    # NOTIFY STEP: this project's new reports (outcome.written) are complete here; the
    # notification package delivers its pending messages at this point of the run.


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    message = text[0] if text else ""
    if isinstance(exc, DevdigestError):
        return message or exc.__class__.__name__
    return f"{exc.__class__.__name__}: {message}" if message else exc.__class__.__name__
