"""Alerts through real services: Kafka, the alerter process, a real Alertmanager with the
generated configuration, a real mail sink (aiosmtpd) and webhook receiver.

Times are seconds-scale (group_wait 1s, group_interval 2s, escalation 4s)."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.integration.alerting import OTHER, PM, SM, alert_rig, finding, rules_yaml, wait_for
from tests.integration.pipeline import new_deployment, simulated_floor, write_jsonl

pytestmark = pytest.mark.integration


def _trail_kinds(trail: list[dict[str, object]]) -> Counter[tuple[object, ...]]:
    return Counter((e["kind"], e["escalation"], e["receiver"]) for e in trail)


def test_wrong_payout_from_a_simulated_floor_reaches_the_pit_manager_by_mail_and_webhook(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    floor = simulated_floor(tmp_path, tables=2, rounds=60, seed=4)
    wrong = {(t, r) for t, r, c in floor.truth if c == "WRONG_PAYOUT"}
    assert wrong, "the simulated floor must hold a WRONG_PAYOUT"
    deployment = new_deployment(kafka_bootstrap, tmp_path, web_port=0)
    with alert_rig(kafka_bootstrap, tmp_path) as rig:
        rig.prefix = deployment.prefix  # the worker's topics
        rules = rig.write_rules(rules_yaml(rig.mail.port, rig.hook.url()))
        rig.start_alertmanager(rules)
        deployment.web_port = rig.port + 1 if rig.port < 65000 else rig.port - 1
        with deployment.worker(floor.config), rig.alerter(rules):
            deployment.ingest(write_jsonl(tmp_path / "floor.jsonl", floor.events))
            hooked = wait_for(
                "a WRONG_PAYOUT on the pit manager's webhook",
                lambda: [
                    a
                    for h in rig.hook.hooks
                    for a in h.body.get("alerts", ())
                    if a["labels"]["check"] == "WRONG_PAYOUT"
                ],
                timeout=240,  # the worker starts slowly on a loaded machine
            )
            mails = wait_for(
                "a WRONG_PAYOUT mail to the pit manager",
                lambda: [m for m in rig.mail.to(PM) if "WRONG_PAYOUT" in m.subject],
            )
    labels = hooked[0]["labels"]
    assert (labels["table_id"], hooked[0]["annotations"]["round_id"]) in wrong
    assert labels["severity"] == "critical"
    assert labels["pit"] == "Pit 1"
    assert labels["escalation"] == "0"
    assert labels["game"] in ("let_it_ride", "four_card_poker")
    mail = mails[0]
    assert mail.to == (PM,)
    assert "CRITICAL WRONG_PAYOUT" in mail.subject
    assert "round:    http://auditor.test/rounds/" in mail.body
    assert "money:    owed $" in mail.body


def test_two_findings_of_one_table_and_check_make_one_notification(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    with alert_rig(kafka_bootstrap, tmp_path) as rig:
        rules = rig.write_rules(rules_yaml(rig.mail.port, rig.hook.url()))
        rig.start_alertmanager(rules)
        with rig.alerter(rules):
            rig.produce(
                rig.topics.findings,
                [
                    finding("LIR-07", "WRONG_PAYOUT"),
                    finding("LIR-07", "WRONG_PAYOUT", round_id="R2"),
                ],
            )
            wait_for("two alerts raised", lambda: len(rig.alerts()) == 2)
            wait_for("a mail to the pit manager", lambda: rig.mail.to(PM))
            time.sleep(4)  # two group intervals: no second notification comes
            mails = rig.mail.to(PM)
            alerts = rig.alerts()
            notified = [
                e for a in alerts for e in rig.trail(a["alert_id"]) if e["kind"] == "notified"
            ]
    assert len(mails) == 1
    assert sorted(mails[0].alert_ids()) == sorted(a["alert_id"] for a in alerts)
    assert "x2" in mails[0].subject
    assert len(rig.hook.hooks) == 1  # the pit manager's webhook: one notification too
    assert {e["receiver"] for e in notified} == {"contact-pm"}
    assert len(notified) == 2  # each alert of the one notification, once


def test_a_warning_inhibited_by_a_critical_at_the_same_table_notifies_nobody_but_a_pattern(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    with alert_rig(kafka_bootstrap, tmp_path) as rig:
        rules = rig.write_rules(rules_yaml(rig.mail.port, rig.hook.url()))
        rig.start_alertmanager(rules)
        with rig.alerter(rules):
            rig.produce(
                rig.topics.findings,
                [
                    finding("LIR-07", "WRONG_PAYOUT"),
                    finding("LIR-07", "BET_AFTER_LOCKOUT", expected=None, actual=None),
                    finding("LIR-09", "BET_AFTER_LOCKOUT", expected=None, actual=None),
                    # a pattern (a player's decisions) is no part of the table's round at fault
                    finding("LIR-07", "ADVANTAGE_PLAY_SUSPECTED", expected=None, actual=None),
                ],
            )
            wait_for("four alerts raised", lambda: len(rig.alerts()) == 4)
            by = {(a["table_id"], a["check"]): a["alert_id"] for a in rig.alerts()}
            wait_for(
                "the other table's warning and the pattern mailed",
                lambda: (
                    {by["LIR-09", "BET_AFTER_LOCKOUT"], by["LIR-07", "ADVANTAGE_PLAY_SUSPECTED"]}
                    <= set(rig.mailed_ids(PM))
                ),
            )
            time.sleep(3)
            mailed = rig.mailed_ids(PM)
            inhibited = rig.trail(by["LIR-07", "BET_AFTER_LOCKOUT"])
    assert by["LIR-07", "WRONG_PAYOUT"] in mailed
    assert by["LIR-07", "BET_AFTER_LOCKOUT"] not in mailed
    assert by["LIR-07", "BET_AFTER_LOCKOUT"] not in rig.hook.alert_ids()
    assert [e["kind"] for e in inhibited] == ["raised"]


def test_acknowledged_alert_stops_escalating_and_is_silenced_the_other_escalates(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    with alert_rig(kafka_bootstrap, tmp_path) as rig:
        rules = rig.write_rules(rules_yaml(rig.mail.port, rig.hook.url(), escalation="4s"))
        am = rig.start_alertmanager(rules)
        with rig.alerter(rules):
            rig.produce(
                rig.topics.findings,
                [finding("LIR-07", "WRONG_PAYOUT"), finding("FCP-02", "WRONG_PAYOUT")],
            )
            wait_for("two alerts raised", lambda: len(rig.alerts()) == 2)
            by = {a["table_id"]: a["alert_id"] for a in rig.alerts()}
            acked, ignored = by["LIR-07"], by["FCP-02"]
            wait_for(
                "both mailed to the pit manager",
                lambda: {acked, ignored} <= set(rig.mailed_ids(PM)),
            )
            answer = rig.cli("alerts", "ack", acked, "--by", "dana", "--note", "paid back")
            assert answer.startswith(f"{acked} acknowledged by dana at ")
            wait_for(
                "the ignored one escalated to the shift manager",
                lambda: ignored in rig.mailed_ids(SM),
                timeout=20,
            )
            time.sleep(2)
            import httpx

            silences = httpx.get(am.url + "/api/v2/silences", timeout=5).json()
            still_open = json.loads(rig.cli("alerts", "list", "--open", "--format", "json"))
            acked_trail, ignored_trail = rig.trail(acked), rig.trail(ignored)
    assert acked not in rig.mailed_ids(SM)
    assert [m.subject for m in rig.mail.to(SM)] and all(
        "ESCALATION 1" in m.subject for m in rig.mail.to(SM)
    )
    active = [s for s in silences if s["status"]["state"] == "active"]
    assert [s["matchers"] for s in active] == [
        [{"name": "alert_id", "value": acked, "isRegex": False, "isEqual": True}]
    ]
    assert active[0]["createdBy"] == "dana"
    assert [e["kind"] for e in acked_trail] == ["raised", "notified", "acknowledged", "resolved"]
    assert acked_trail[2]["by"] == "dana" and acked_trail[2]["note"] == "paid back"
    assert _trail_kinds(ignored_trail) == Counter(
        {
            ("raised", 0, ""): 1,
            ("notified", 0, "contact-pm"): 1,
            ("escalated", 1, ""): 1,
            ("notified", 1, "contact-sm"): 1,
        }
    )
    assert OTHER not in {a for m in rig.mail.mails for a in m.to}
    assert [(a["alert_id"], a["escalation"]) for a in still_open] == [(ignored, 1)]


def _every_alert_once(
    rig_alerts: list[dict[str, object]], trails: dict[str, list[dict[str, object]]]
) -> None:
    for alert_id, trail in trails.items():
        kinds = _trail_kinds(trail)
        assert kinds[("raised", 0, "")] == 1, (alert_id, trail)
        assert kinds[("notified", 0, "contact-pm")] == 1, (alert_id, trail)
        assert all(n == 1 for n in kinds.values()), (alert_id, trail)


def test_alertmanager_stopped_mid_stream_then_started_every_alert_delivered_none_twice(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    first = [finding(f"LIR-{i:02d}", "WRONG_PAYOUT") for i in range(1, 6)]
    second = [finding(f"FCP-{i:02d}", "UNSETTLED_WAGER") for i in range(1, 6)]
    with alert_rig(kafka_bootstrap, tmp_path) as rig:
        rules = rig.write_rules(rules_yaml(rig.mail.port, rig.hook.url()))
        am = rig.start_alertmanager(rules)
        with rig.alerter(rules):
            rig.produce(rig.topics.findings, first)
            wait_for("the first five mailed", lambda: len(set(rig.mailed_ids(PM))) == 5)
            am.stop()
            rig.produce(rig.topics.findings, second)
            time.sleep(3)
            health = rig.get("/health")
            assert health["alertmanager_up"] is False
            assert len(rig.alerts()) == 5  # nothing raised while Alertmanager is down
            am.start()
            wait_for("all ten mailed", lambda: len(set(rig.mailed_ids(PM))) == 10, timeout=30)
            time.sleep(3)
            alerts = rig.alerts()
            trails = {a["alert_id"]: rig.trail(a["alert_id"]) for a in alerts}
    assert len(alerts) == 10
    _every_alert_once(alerts, trails)


def test_alerter_killed_and_restarted_every_alert_delivered_none_twice(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    first = [finding(f"LIR-{i:02d}", "WRONG_PAYOUT") for i in range(1, 6)]
    second = [finding(f"FCP-{i:02d}", "UNSETTLED_WAGER") for i in range(1, 6)]
    with alert_rig(kafka_bootstrap, tmp_path) as rig:
        rules = rig.write_rules(rules_yaml(rig.mail.port, rig.hook.url()))
        rig.start_alertmanager(rules)
        with rig.alerter(rules) as process:
            rig.produce(rig.topics.findings, first)
            wait_for("the first five raised", lambda: len(rig.alerts()) == 5)
            process.kill()
            process.wait()
            rig.produce(rig.topics.findings, second)
        with rig.alerter(rules, log="alerter2.log"):
            wait_for("all ten raised", lambda: len(rig.alerts()) == 10, timeout=30)
            wait_for("all ten mailed", lambda: len(set(rig.mailed_ids(PM))) == 10, timeout=30)
            time.sleep(3)
            alerts = rig.alerts()
            trails = {a["alert_id"]: rig.trail(a["alert_id"]) for a in alerts}
    assert len(alerts) == 10
    _every_alert_once(alerts, trails)


def test_an_open_table_whose_controller_goes_silent_raises_an_alert_resolved_when_heard(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    with alert_rig(kafka_bootstrap, tmp_path) as rig:
        rules = rig.write_rules(rules_yaml(rig.mail.port, rig.hook.url(), silence="3s"))
        rig.start_alertmanager(rules)
        with rig.alerter(rules):
            opened = {"table_id": "LIR-07", "type": "table_open", "game": "let_it_ride"}
            closed = {"table_id": "FCP-02", "type": "table_close"}
            rig.produce(rig.topics.events, [opened, {**opened, "table_id": "FCP-02"}, closed])
            mail = wait_for(
                "a CONTROLLER_SILENT mail",
                lambda: [m for m in rig.mail.to(PM) if "CONTROLLER_SILENT" in m.subject],
            )[0]
            (alert,) = rig.alerts()  # FCP-02 was closed: not silent
            rig.produce(rig.topics.events, [{"table_id": "LIR-07", "type": "shuffle"}])
            wait_for(
                "resolved when heard again",
                lambda: [e for e in rig.trail(alert["alert_id"]) if e["kind"] == "resolved"],
            )
            trail = rig.trail(alert["alert_id"])
    assert (alert["table_id"], alert["check"], alert["game"]) == (
        "LIR-07",
        "CONTROLLER_SILENT",
        "let_it_ride",
    )
    assert "HIGH CONTROLLER_SILENT at LIR-07 (Pit 1)" in mail.subject
    assert "sent nothing since" in mail.body
    assert [e["kind"] for e in trail] == ["raised", "notified", "resolved"]
    assert trail[-1]["note"].startswith("controller heard again at ")
