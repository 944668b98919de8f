"""Delivery to every platform over real HTTP: at most once, retried on the next call,
Retry-After honoured, secrets kept out of the store and the results."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import sqlalchemy as sa

from devdigest.config import Config, NotifyTarget
from devdigest.notify import deliver_pending
from devdigest.notify.digest import digest_from_report
from devdigest.store import open_store
from devdigest.store import schema as t
from devdigest.store.deliveries import DeliveryKey, DeliveryLedger
from tests.fakes.notify_server import FakeReceivers, Fault
from tests.notify_case import (
    NOW,
    REPO,
    InstantTransport,
    environment,
    make_config,
)
from tests.site_reports import make_report

PLATFORMS = ("slack", "discord", "feishu", "dingtalk", "wecom", "telegram", "hook")


def _deliver(fake, db_store, tmp_path: Path, reports, transport=None):
    config = make_config(fake, tmp_path / "store.sqlite3")
    return deliver_pending(
        config,
        db_store,
        REPO,
        reports,
        now=NOW,
        transport=transport or InstantTransport(),
        env=environment(fake),
    )


def test_every_platform_gets_one_valid_card(receivers: FakeReceivers, store, tmp_path):
    report = make_report()
    results = _deliver(receivers, store, tmp_path, [report])
    assert sorted(r.status for r in results) == ["sent"] * 7
    for platform in PLATFORMS:
        got = receivers.received(platform)
        assert len(got) == 1, platform
        assert got[0].problems == [] and got[0].status == 200, (platform, got[0].problems)
    hook = receivers.received("hook")[0].body["digest"]
    assert dict(map(tuple, hook["counts"])) == {
        "新 Issue": 3,
        "关闭 Issue": 2,
        "新 PR": 5,
        "合并 PR": 4,
        "关闭未合并 PR": 1,
    }
    assert hook["link"] == "https://digest.example.org/vllm-project/vllm/2026-03-12.html"
    telegram = receivers.received("telegram")[0].body["text"]
    assert "新 Issue 3 · 关闭 Issue 2 · 新 PR 5 · 合并 PR 4 · 关闭未合并 PR 1" in telegram
    assert '<a href="https://digest.example.org/vllm-project/vllm/2026-03-12.html">' in telegram


def test_second_call_sends_nothing(receivers: FakeReceivers, store, tmp_path):
    report = make_report()
    _deliver(receivers, store, tmp_path, [report])
    before = len(receivers.log)
    assert _deliver(receivers, store, tmp_path, [report]) == []
    assert len(receivers.log) == before
    rows = DeliveryLedger(store).rows(REPO)
    assert [r.status for r in rows] == ["sent"] * 7 and {r.attempts for r in rows} == {1}


def test_failed_target_is_retried_on_the_next_call_only(receivers, store, tmp_path):
    receivers.fail("slack", Fault(status=500, retry_after=None, times=4))
    report = make_report()
    first = {r.target: r for r in _deliver(receivers, store, tmp_path, [report])}
    assert first["slack-team"].status == "failed" and "HTTP 500" in first["slack-team"].error
    assert all(r.status == "sent" for name, r in first.items() if name != "slack-team")
    assert len(receivers.received("slack")) == 4  # max_tries
    second = _deliver(receivers, store, tmp_path, [])
    assert [(r.target, r.status, r.attempts) for r in second] == [("slack-team", "sent", 2)]
    assert receivers.received("slack", ok=True)[0].body["blocks"][0]["text"]["text"] == (
        "vLLM 开发动态报告 - 2026-03-12"
    )
    assert _deliver(receivers, store, tmp_path, [report]) == []
    assert len(receivers.received("slack", ok=True)) == 1


def test_retry_after_is_honoured(receivers: FakeReceivers, store, tmp_path):
    receivers.fail("slack", Fault(status=429, retry_after="7"))
    receivers.fail("discord", Fault(status=429, retry_after=None, body={"retry_after": 2.5}))
    receivers.fail(
        "telegram",
        Fault(status=429, retry_after=None, body={"ok": False, "parameters": {"retry_after": 3}}),
    )
    transport = InstantTransport()
    results = _deliver(receivers, store, tmp_path, [make_report()], transport)
    assert all(r.status == "sent" for r in results)
    assert {7.0, 2.5, 3.0} <= set(transport.slept)


def test_a_wait_longer_than_allowed_fails_for_the_next_run(receivers, store, tmp_path):
    receivers.fail("dingtalk", Fault(status=429, retry_after="600"))  # DingTalk's 10-minute ban
    results = {r.target: r for r in _deliver(receivers, store, tmp_path, [make_report()])}
    assert results["dingtalk-team"].status == "failed"
    assert "asked to wait 600 s" in results["dingtalk-team"].error
    assert len(receivers.received("dingtalk")) == 1


def test_successive_messages_to_one_target_are_paced(receivers, store, tmp_path):
    transport = InstantTransport()
    days = [make_report(day=f"2026-03-{d:02d}") for d in (10, 11, 12)]
    results = _deliver(receivers, store, tmp_path, days, transport)
    assert len(results) == 21 and all(r.status == "sent" for r in results)
    # with a frozen clock every second message to a target waits its full interval
    assert transport.slept.count(3.0) == 3 * 2  # wecom, dingtalk, telegram: 20 a minute
    assert transport.slept.count(1.0) == 2  # slack: one a second


def test_languages_and_kinds_a_target_asks_for(receivers, store, tmp_path):
    config = make_config(receivers, tmp_path / "store.sqlite3")
    for target in config.targets:
        target.langs = ["en"] if target.name == "slack-team" else None
    reports = [make_report(lang="zh"), make_report(lang="en")]
    env = environment(receivers)
    results = deliver_pending(
        config, store, REPO, reports, now=NOW, transport=InstantTransport(), env=env
    )
    assert [r.lang for r in results if r.target == "slack-team"] == ["en"]
    assert sorted(r.lang for r in results if r.target == "wecom-team") == ["en", "zh"]


def test_secrets_stay_out_of_the_store_and_the_results(receivers, store, tmp_path):
    env = environment(receivers)
    receivers.fail(
        "wecom", Fault(status=500, retry_after=None, times=9, body={"e": env["WECOM_URL"]})
    )
    receivers.fail("hook", Fault(status=403, body={"echo": env["HOOK_S"]}))
    results = _deliver(receivers, store, tmp_path, [make_report()])
    failed = [r for r in results if r.status == "failed"]
    assert {r.target for r in failed} == {"wecom-team", "webhook-team"}
    secrets = [v for k, v in env.items() if k != "TG_TOKEN"] + ["T0KEN-telegram", "T0KEN-wecom"]
    text = json.dumps([r.error for r in results]) + _dump(tmp_path / "store.sqlite3")
    for secret in secrets:
        assert secret not in text, secret
    assert "***" in " ".join(r.error for r in failed)


def test_missing_secret_fails_clearly_without_a_request(receivers, store, tmp_path):
    env = environment(receivers)
    del env["TG_TOKEN"]
    config = make_config(receivers, tmp_path / "store.sqlite3")
    results = deliver_pending(
        config, store, REPO, [make_report()], now=NOW, transport=InstantTransport(), env=env
    )
    telegram = next(r for r in results if r.target == "telegram-team")
    assert telegram.status == "failed"
    assert telegram.error == (
        "telegram-team: environment variable TG_TOKEN (token_env) is not set; "
        "export it where devdigest runs"
    )
    assert receivers.received("telegram") == []


def test_a_claim_is_taken_once(store):
    digest = digest_from_report(make_report(), Config())
    key = DeliveryKey(REPO, "daily", digest.window_start, digest.window_end, "zh", "slack-team")
    first, second = DeliveryLedger(store), DeliveryLedger(store)
    assert first.claim(key, digest.model_dump_json()) is True
    assert second.claim(key, digest.model_dump_json()) is False
    first.finish(key, "boom")
    assert second.reclaim_failed(key) is True
    assert first.reclaim_failed(key) is False


def _dump(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        return "\n".join(conn.iterdump())


def test_a_delivery_failing_five_times_is_left_failed(receivers, store, tmp_path):
    receivers.fail("slack", Fault(status=500, retry_after=None, times=99))
    _deliver(receivers, store, tmp_path, [make_report()], InstantTransport(max_tries=1))
    for _ in range(5):
        _deliver(receivers, store, tmp_path, [], InstantTransport(max_tries=1))
    assert len(receivers.received("slack")) == 5
    (row,) = DeliveryLedger(store).rows(REPO, status="failed")
    assert (row.key.target, row.attempts) == ("slack-team", 5) and "HTTP 500" in row.error


def test_apprise_target_for_other_services(receivers, store, tmp_path):
    config = make_config(receivers, tmp_path / "store.sqlite3")
    config.targets = [NotifyTarget(name="other", type="apprise", url_env="APPRISE_URL")]
    config.projects[0].notify = ["other"]
    env = {"APPRISE_URL": receivers.url.replace("http://", "json://") + "/apprise/T0KEN-ap"}
    report = make_report(lang="en")
    report.summary[0].text = "Thanks @alice for the fix."
    (result,) = deliver_pending(config, store, REPO, [report], now=NOW, env=env)
    assert result.status == "sent", result.error
    (got,) = receivers.received("apprise", ok=True)
    assert got.body["title"] == "vLLM development report - 2026-03-12"
    assert (
        "New issues 3" in got.body["message"] and "Thanks alice for the fix." in got.body["message"]
    )
    receivers.fail("apprise", Fault(status=500, retry_after=None, times=9))
    (again,) = deliver_pending(config, store, REPO, [make_report()], now=NOW, env=env)
    assert again.status == "failed" and "T0KEN-ap" not in again.error


def test_an_unreadable_answer_is_a_failure_for_the_next_run(receivers, store, tmp_path):
    receivers.fail("telegram", Fault(status=200, retry_after=None, body="<html>proxy</html>"))
    results = {r.target: r for r in _deliver(receivers, store, tmp_path, [make_report()])}
    assert results["telegram-team"].status == "failed"
    assert results["telegram-team"].error == "telegram-team: unreadable answer (JSONDecodeError)"
    (retried,) = _deliver(receivers, store, tmp_path, [])
    assert (retried.target, retried.status) == ("telegram-team", "sent")


def test_an_existing_store_gains_the_ledger_in_place(tmp_path):
    db = tmp_path / "old.sqlite3"
    engine = sa.create_engine(f"sqlite:///{db}")
    with engine.begin() as conn:  # a store as the first two migrations left it
        t.metadata.create_all(
            conn, tables=[x for x in t.metadata.sorted_tables if x.name != "deliveries"]
        )
        for name in ("0001_initial", "0002_lookup_indexes"):
            conn.execute(t.schema_migrations.insert().values(name=name, applied_at=NOW))
        conn.execute(t.repos.insert().values(full_name=REPO, created_at=NOW))
    engine.dispose()
    with open_store(str(db)) as upgraded:
        assert DeliveryLedger(upgraded).rows(REPO) == []
        with upgraded.engine.connect() as conn:
            names = [r[0] for r in conn.exec_driver_sql("SELECT name FROM schema_migrations")]
            repos = [r[0] for r in conn.exec_driver_sql("SELECT full_name FROM repos")]
    assert "0006_deliveries" in names and names[-1] == t.MIGRATIONS[-1][0] and repos == [REPO]
