"""``devdigest run`` and ``devdigest backfill`` as plain functions: lock, plan, execute, publish.

Every run holds the store's run lock (``devdigest.run.lock``) from planning to the site build and
is recorded in the ``runs`` table. The site is rebuilt when reports were written, when the
previous run did not finish cleanly (it may have died before its build), or when there is none.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from pathlib import Path

from devdigest.config import Config, Project
from devdigest.errors import ConfigError
from devdigest.notify import DeliveryResult
from devdigest.notify.delivery import deliver_digests
from devdigest.notify.digest import digest_from_report
from devdigest.notify.period_digest import digest_from_period
from devdigest.notify.transport import Transport
from devdigest.run.executor import (
    Executor,
    LocalExecutor,
    ProjectOutcome,
    ProjectPlan,
    one_line,
    plan_project,
)
from devdigest.run.jobs import publish_site
from devdigest.run.lock import run_lock
from devdigest.run.windows import parse_cutoff
from devdigest.site.build import MANIFEST, BuildReport
from devdigest.store import Store
from devdigest.store.runs import close_abandoned_runs, finish_run, last_run, start_run
from devdigest.window import resolve_tz

Planner = Callable[[Project], ProjectPlan]


@dataclass
class RunResult:
    outcomes: list[ProjectOutcome]
    site: BuildReport | None = None
    site_error: str | None = None
    deliveries: list[DeliveryResult] = field(default_factory=list)

    @property
    def undelivered(self) -> list[DeliveryResult]:
        return [d for d in self.deliveries if d.status != "sent"]

    @property
    def failed(self) -> bool:
        return (
            self.site_error is not None
            or bool(self.undelivered)
            or any(o.status == "failed" for o in self.outcomes)
        )

    def summary(self) -> dict:
        return {
            "projects": [o.to_json() for o in self.outcomes],
            "site": self.site.summary() if self.site else None,
            "site_error": self.site_error,
            "messages": {
                "sent": sum(d.status == "sent" for d in self.deliveries),
                "failed": [f"{d.repo} → {d.target}: {d.error}" for d in self.undelivered],
            },
        }


def select_projects(config: Config, repos: list[str] | None = None) -> list[Project]:
    """The named projects (configured, preset or bare), else every configured project."""
    if repos:
        return [config.project(repo) for repo in repos]
    if not config.projects:
        raise ConfigError(
            "no projects configured: add a [[projects]] table to devdigest.toml "
            "(see docs/configuration.md) or name one: devdigest run OWNER/REPO"
        )
    return list(config.projects)


def run_due(
    config: Config,
    store: Store,
    repos: list[str] | None = None,
    *,
    now: datetime,
    langs: list[str] | None = None,
    executor: Executor | None = None,
    wait_lock: float = 0.0,
) -> RunResult:
    """Write every due window of each project (catching up missed ones), then the site."""
    projects = select_projects(config, repos)

    def planner(project: Project) -> ProjectPlan:
        return plan_project(config, store, project, now, langs=langs)

    return execute(config, store, projects, planner, "run", now, executor, wait_lock)


def backfill(
    config: Config,
    store: Store,
    repo: str,
    since: date,
    until: date | None = None,
    *,
    now: datetime,
    langs: list[str] | None = None,
    executor: Executor | None = None,
    wait_lock: float = 0.0,
) -> RunResult:
    """Every window that starts on a local date in ``[since, until]`` (default: up to the latest
    due one) and lacks a report, with one sync for the whole range."""
    project = config.project(repo)
    if until is not None and until < since:
        raise ConfigError(f"--until {until} is before --since {since}: swap them")
    schedule = config.schedule_for(project)
    cutoff = parse_cutoff(schedule.cutoff)
    after = _local(since, cutoff, project.tz)  # windows ending after the first cutoff
    last = now if until is None else min(now, _local(until + timedelta(days=1), cutoff, project.tz))

    def planner(project: Project) -> ProjectPlan:
        return plan_project(config, store, project, last, langs=langs, since=after, periods=False)

    return execute(config, store, [project], planner, "backfill", now, executor, wait_lock)


def _local(day: date, cutoff: time, tz: str) -> datetime:
    return datetime.combine(day, cutoff, tzinfo=resolve_tz(tz))


def execute(
    config: Config,
    store: Store,
    projects: list[Project],
    planner: Planner,
    command: str,
    now: datetime,
    executor: Executor | None = None,
    wait_lock: float = 0.0,
) -> RunResult:
    """Under the run lock: plan each project, execute the plans, publish the site."""
    with run_lock(store, wait_lock):
        previous = last_run(store)
        close_abandoned_runs(store)
        run_id = start_run(store, command)
        result, status = RunResult([]), "interrupted"
        try:
            plans, failed = _plan_all(projects, planner)
            outcomes = (executor or LocalExecutor()).execute(config, store, plans, now=now)
            result.outcomes = _in_order(projects, outcomes + failed)
            _publish(config, store, result, clean=_finished_cleanly(previous))
            result.deliveries = _notify(config, store, projects, result.outcomes, now)
            status = "failed" if result.failed else "ok"
            return result
        finally:
            finish_run(store, run_id, status, result.summary())


def _plan_all(
    projects: list[Project], planner: Planner
) -> tuple[list[ProjectPlan], list[ProjectOutcome]]:
    plans, failed = [], []
    for project in projects:
        try:
            plans.append(planner(project))
        except Exception as exc:  # a project that cannot be planned must not stop the others
            failed.append(
                ProjectOutcome(project.repo, project.display_name, "failed", error=one_line(exc))
            )
    return plans, failed


def _in_order(projects: list[Project], outcomes: list[ProjectOutcome]) -> list[ProjectOutcome]:
    rank = {p.repo: k for k, p in enumerate(projects)}
    return sorted(outcomes, key=lambda o: rank.get(o.repo, len(rank)))


def _finished_cleanly(run: dict | None) -> bool:
    """Whether the previous run ended (not killed) with its site built (or nothing to build)."""
    if run is None or run["status"] not in ("ok", "failed"):
        return False
    return not (run["summary"] or {}).get("site_error")


def _publish(config: Config, store: Store, result: RunResult, *, clean: bool) -> None:
    written = any(o.reports for o in result.outcomes)
    has_site = (Path(config.site_out) / MANIFEST).is_file()
    if not (written or not clean or not has_site):
        return
    try:
        result.site = publish_site(config, store)
    except Exception as exc:  # the reports are stored; the next run builds the site again
        result.site_error = one_line(exc)


def _notify(
    config: Config,
    store: Store,
    projects: list[Project],
    outcomes: list[ProjectOutcome],
    now: datetime,
) -> list[DeliveryResult]:
    """After the site (so message links resolve): each project's new reports to its targets,
    and earlier failed deliveries again. A target's failure is in its result, never raised."""
    by_repo = {o.repo: o for o in outcomes}
    results: list[DeliveryResult] = []
    with Transport() as transport:  # shared, so a target of several projects is paced once
        for project in (p for p in projects if p.notify):
            outcome = by_repo.get(project.repo)
            digests = [digest_from_report(r, config) for r in outcome.written] if outcome else []
            if outcome:  # then its weeks and months
                digests += [digest_from_period(r, config) for r in outcome.written_periods]
            results += deliver_digests(config, store, project.repo, digests, transport=transport)
    return results
