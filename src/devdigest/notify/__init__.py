"""Notifications: a summary card of each new report sent to the project's chat and mail
targets, each at most once (see ``delivery``)."""

from devdigest.notify.delivery import (
    DeliveryResult,
    deliver_digests,
    deliver_pending,
    send_test,
)
from devdigest.notify.digest import Digest, Line, Section, digest_from_report

__all__ = [
    "DeliveryResult",
    "Digest",
    "Line",
    "Section",
    "deliver_digests",
    "deliver_pending",
    "digest_from_report",
    "send_test",
]
