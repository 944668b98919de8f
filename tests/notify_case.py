"""Shared set-up of the notification tests: a config with one target per platform, the
environment holding their secrets, and a transport whose waits are recorded, not slept."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from devdigest.config import Config, NotifyTarget, Project
from devdigest.notify.transport import Transport
from devdigest.store import Store, open_store
from tests.fakes.notify_server import FakeReceivers

REPO = "vllm-project/vllm"
NOW = datetime(2026, 3, 13, 3, 30, tzinfo=UTC)
SECRETS = {"feishu": "feishu-signing-S3CRET", "dingtalk": "SECding-S3CRET", "hook": "hook-S3CRET"}
HTTP_PLATFORMS = ("slack", "discord", "feishu", "dingtalk", "wecom", "telegram", "webhook")


def targets() -> list[NotifyTarget]:
    out = [
        NotifyTarget(name=f"{kind}-team", type=kind, url_env=f"{kind.upper()}_URL")
        for kind in ("slack", "discord", "wecom")
    ]
    out += [
        NotifyTarget(
            name="feishu-team", type="feishu", url_env="FEISHU_URL", secret_env="FEISHU_SECRET"
        ),
        NotifyTarget(
            name="dingtalk-team", type="dingtalk", url_env="DINGTALK_URL", secret_env="DING_SECRET"
        ),
        NotifyTarget(name="telegram-team", type="telegram", token_env="TG_TOKEN", chat_id="-1001"),
        NotifyTarget(name="webhook-team", type="webhook", url_env="HOOK_URL", secret_env="HOOK_S"),
    ]
    return out


def environment(fake: FakeReceivers) -> dict[str, str]:
    urls = fake.urls()
    return {
        "SLACK_URL": urls["slack"],
        "DISCORD_URL": urls["discord"],
        "WECOM_URL": urls["wecom"],
        "FEISHU_URL": urls["feishu"],
        "FEISHU_SECRET": SECRETS["feishu"],
        "DINGTALK_URL": urls["dingtalk"],
        "DING_SECRET": SECRETS["dingtalk"],
        "TG_TOKEN": "T0KEN-telegram",
        "HOOK_URL": urls["webhook"],
        "HOOK_S": SECRETS["hook"],
    }


def make_config(fake: FakeReceivers, db: Path, **extra: object) -> Config:
    found = targets()
    for target in found:
        if target.type == "telegram":
            target.api_url = fake.urls()["telegram"]
    return Config(
        db=str(db),
        site_url="https://digest.example.org/",
        targets=found,
        projects=[Project(repo=REPO, name="vLLM", notify=[t.name for t in found])],
        **extra,
    )


class InstantTransport(Transport):
    """The real transport with its waits recorded instead of slept (and a frozen clock)."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(sleep=lambda seconds: None, clock=lambda: 0.0, **kwargs)


@pytest.fixture
def receivers() -> Iterator[FakeReceivers]:
    with FakeReceivers(secrets=SECRETS) as fake:
        yield fake


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(str(tmp_path / "store.sqlite3")) as opened:
        yield opened
