"""What every platform sender gets: the transport, the environment holding the secrets, and
the time (for signatures)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from devdigest.config import NotifyTarget
from devdigest.errors import NotifyError
from devdigest.notify.transport import Transport

_SECRET_FIELDS = ("url_env", "secret_env", "token_env", "password_env")


@dataclass
class SendContext:
    transport: Transport
    env: Mapping[str, str]
    now: datetime
    used: set[str] = field(default_factory=set)  # secret values read, to redact from errors

    def secret(self, target: NotifyTarget, setting: str, required: bool = True) -> str | None:
        """The value of the environment variable that ``target.<setting>`` names."""
        var = getattr(target, setting)
        value = self.env.get(var) if var else None
        if not value:
            if required:
                raise NotifyError(
                    f"{target.name}: environment variable {var} ({setting}) is not set; "
                    "export it where devdigest runs"
                )
            return None
        self.used.add(value)
        return value

    def redact(self, text: str) -> str:
        """``text`` with every secret value read so far hidden."""
        for value in sorted(self.used, key=len, reverse=True):
            text = text.replace(value, "***")
        return text

    def all_secrets(self, target: NotifyTarget) -> None:
        """Register every secret of ``target`` for redaction, whether or not it gets used."""
        for setting in _SECRET_FIELDS:
            self.secret(target, setting, required=False)
