"""The Celery application: ``celery -A devdigest.distributed.app inspect ping`` works on it.

The broker comes from the configuration (``DEVDIGEST_BROKER_URL`` or ``broker_url`` in
devdigest.toml): Redis by default, ``amqp://`` (RabbitMQ) by configuration. Runs keep their
progress in the store, so no result backend is needed; one can be set for other tools
(``DEVDIGEST_RESULT_BACKEND``), and task results are not stored in it.
"""

from __future__ import annotations

import os

from celery import Celery
from kombu import Exchange, Queue

from devdigest.config import Config, load_config

SMALL_QUEUE = "devdigest.small"  # syncs of small repositories
LARGE_QUEUE = "devdigest.large"  # syncs of large ones
STEPS_QUEUE = "devdigest.steps"  # what follows a sync: reports, finish, site
QUEUES = (SMALL_QUEUE, LARGE_QUEUE, STEPS_QUEUE)

PUBLISH_RETRY = {"max_retries": 60, "interval_start": 0, "interval_step": 1, "interval_max": 5}

_config: Config | None = None


def current_config() -> Config:
    """The configuration tasks run with: set by ``devdigest worker``, else read once."""
    global _config
    if _config is None:
        _config = load_config(os.environ.get("DEVDIGEST_CONFIG"))
    return _config


def use_config(config: Config) -> None:
    """Run the tasks of this process with ``config`` and configure the app from it."""
    global _config
    _config = config
    configure(app, config)


def queue_name(name: str) -> str:
    """``name`` with the optional ``DEVDIGEST_QUEUE_PREFIX`` (isolates tests and tenants)."""
    prefix = os.environ.get("DEVDIGEST_QUEUE_PREFIX", "")
    return f"{prefix}{name}"


def _queue(name: str) -> Queue:
    return Queue(name, Exchange(name, type="direct"), routing_key=name)


def configure(celery: Celery, config: Config) -> None:
    visibility = float(os.environ.get("DEVDIGEST_VISIBILITY_TIMEOUT", 3600))
    celery.conf.update(
        broker_url=config.broker_url,
        result_backend=config.result_backend,
        task_ignore_result=True,  # a run's progress is in the store (runs, run_repos, tasks)
        task_acks_late=True,  # a task is acknowledged when done: a dead worker's task comes back
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,  # a worker reserves only what it runs
        task_time_limit=3600,
        task_soft_time_limit=3300,
        task_default_queue=queue_name(SMALL_QUEUE),
        task_queues=[_queue(queue_name(name)) for name in QUEUES],
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        result_expires=7 * 24 * 3600,
        broker_connection_retry_on_startup=True,
        # A retry or the next step of a chain published while the broker restarts waits for it
        # (about five minutes) instead of failing the task and ending its repository's chain.
        task_publish_retry_policy=PUBLISH_RETRY,
        # A countdown a worker holds in memory is dropped when its broker connection is lost;
        # the message stays unacknowledged in Redis and is restored after the visibility
        # timeout: scan for it every 10 s rather than kombu's default of every 100 s.
        broker_transport_options={"visibility_timeout": visibility, "unacked_restore_throttle": 1},
        worker_hijack_root_logger=False,
    )


app = Celery("devdigest", include=["devdigest.distributed.tasks"])
configure(app, current_config())
