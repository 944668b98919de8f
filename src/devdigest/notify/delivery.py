"""Sending digests to a project's targets, each (project, kind, window, language, target) at
most once, recorded in the store; failed deliveries are retried on the next call."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from devdigest.config import Config, NotifyTarget
from devdigest.errors import DevdigestError
from devdigest.models import DailyReport
from devdigest.notify import (
    apprise_target,
    dingtalk,
    discord,
    feishu,
    slack,
    smtp,
    telegram,
    webhook,
    wecom,
)
from devdigest.notify.base import SendContext
from devdigest.notify.digest import Digest, digest_from_report, probe_digest
from devdigest.notify.transport import Transport
from devdigest.store import Store
from devdigest.store.deliveries import DeliveryKey, DeliveryLedger

MAX_ATTEMPTS = 5  # a delivery that failed this often is left failed (and listed), not retried

Sender = Callable[[NotifyTarget, Digest, SendContext], None]
SENDERS: dict[str, Sender] = {
    "slack": slack.send,
    "discord": discord.send,
    "feishu": feishu.send,
    "dingtalk": dingtalk.send,
    "wecom": wecom.send,
    "telegram": telegram.send,
    "email": smtp.send,
    "webhook": webhook.send,
    "apprise": apprise_target.send,
}


@dataclass(frozen=True, slots=True)
class DeliveryResult:
    repo: str
    target: str
    kind: str
    lang: str
    window_start: datetime
    status: str  # "sent" or "failed"
    attempts: int
    error: str | None = None  # one line, secrets redacted


def deliver_pending(
    config: Config,
    store: Store,
    repo: str,
    reports: Sequence[DailyReport],
    *,
    now: datetime | None = None,
    transport: Transport | None = None,
    env: Mapping[str, str] | None = None,
) -> list[DeliveryResult]:
    """Deliver the new ``reports`` of ``repo`` to its targets and retry its failed deliveries.

    Call it on every run, with no reports too, so failed deliveries are retried. A delivery
    already recorded (sent, failed or in flight) is never claimed again as new; a target's
    failure is in its result, never raised. ``now`` is the time signatures carry (default: the
    clock); one ``transport`` shared across projects paces messages to a shared target; secrets
    are read from ``env`` (default: the process environment).
    """
    digests = [digest_from_report(report, config) for report in reports]
    return deliver_digests(config, store, repo, digests, now=now, transport=transport, env=env)


def deliver_digests(
    config: Config,
    store: Store,
    repo: str,
    digests: Iterable[Digest],
    *,
    now: datetime | None = None,
    transport: Transport | None = None,
    env: Mapping[str, str] | None = None,
) -> list[DeliveryResult]:
    """``deliver_pending`` for any report kind: weekly and monthly reports build a ``Digest``."""
    targets = {t.name: t for t in config.targets_for(config.project(repo))}
    if not targets:
        return []
    ledger = DeliveryLedger(store)
    own = transport is None
    transport = transport or Transport()
    ctx = SendContext(transport, os.environ if env is None else env, now or datetime.now(UTC))
    results = []
    try:
        for row in ledger.rows(repo, status="failed"):
            target = targets.get(row.key.target)
            if target and row.attempts < MAX_ATTEMPTS and ledger.reclaim_failed(row.key):
                digest = Digest.model_validate_json(row.digest)
                results.append(_send(ledger, ctx, target, row.key, digest, row.attempts + 1))
        for digest in digests:
            for target in targets.values():
                if not wants(target, digest):
                    continue
                key = _key(digest, target)
                if ledger.claim(key, digest.model_dump_json()):
                    results.append(_send(ledger, ctx, target, key, digest, 1))
    finally:
        if own:
            transport.close()
    return results


def wants(target: NotifyTarget, digest: Digest) -> bool:
    return digest.kind in target.kinds and (target.langs is None or digest.lang in target.langs)


def _key(digest: Digest, target: NotifyTarget) -> DeliveryKey:
    return DeliveryKey(
        digest.repo, digest.kind, digest.window_start, digest.window_end, digest.lang, target.name
    )


def _send(
    ledger: DeliveryLedger,
    ctx: SendContext,
    target: NotifyTarget,
    key: DeliveryKey,
    digest: Digest,
    attempts: int,
) -> DeliveryResult:
    error = send_one(ctx, target, digest)
    ledger.finish(key, error)
    status = "failed" if error else "sent"
    return DeliveryResult(
        key.repo, key.target, key.kind, key.lang, key.window_start, status, attempts, error
    )


def send_one(ctx: SendContext, target: NotifyTarget, digest: Digest) -> str | None:
    """Send one message; the error (secrets redacted) or None."""
    ctx.all_secrets(target)
    try:
        SENDERS[target.type](target, digest, ctx)
    except DevdigestError as exc:
        return ctx.redact(str(exc))
    except ValueError as exc:  # a non-JSON answer where the platform promises JSON
        return ctx.redact(f"{target.name}: unreadable answer ({exc.__class__.__name__})")
    except Exception as exc:  # recorded as its failure: one target must not stop the others
        return ctx.redact(f"{target.name}: unexpected {exc.__class__.__name__}: {exc}")
    return None


def send_test(
    config: Config,
    name: str,
    *,
    lang: str = "en",
    now: datetime | None = None,
    transport: Transport | None = None,
    env: Mapping[str, str] | None = None,
) -> str | None:
    """Send a test message to the target ``name``; the error (redacted) or None. Not recorded."""
    target = config.target(name)
    now = now or datetime.now(UTC)
    own = transport is None
    transport = transport or Transport()
    ctx = SendContext(transport, os.environ if env is None else env, now)
    try:
        return send_one(ctx, target, probe_digest(name, lang, now, config))
    finally:
        if own:
            transport.close()
