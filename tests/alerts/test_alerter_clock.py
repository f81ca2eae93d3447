"""The alerter's decisions on a controlled clock, with an Alertmanager and a trail that
only record what they are given: escalation, acknowledgement, expiry, silent tables."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import msgspec
import pytest

from tablewatch.alerts.alerter import Alerter
from tablewatch.alerts.alertmanager import AlertmanagerClient
from tablewatch.alerts.bodies import Notification
from tablewatch.alerts.model import Alert
from tablewatch.alerts.rules_file import parse_rules
from tablewatch.alerts.trail import Trail, TrailEvent
from tests.alerts.test_convert import RAISED, message
from tests.alerts.test_rules_file import GOOD

RULES = parse_rules(
    GOOD.replace(
        "  - name: serious\n",
        "  - name: silent\n    checks: [CONTROLLER_SILENT]\n  - name: serious\n",
    )
    + "timing: {expire: 2h, resend: 1h}\nsilence: {default: 10m}\n"
)


class Clock:
    def __init__(self, ms: int) -> None:
        self.ms = ms

    def __call__(self) -> float:
        return self.ms / 1000

    def advance(self, seconds: float) -> None:
        self.ms += int(seconds * 1000)


class FakeAlertmanager(AlertmanagerClient):
    def __init__(self) -> None:
        super().__init__("http://127.0.0.1:9")
        self.posts: list[dict[str, Any]] = []
        self.silenced: list[dict[str, str]] = []

    async def post_alerts(self, alerts: Sequence[dict[str, Any]], stop: Any = None) -> None:
        self.posts.extend(alerts)

    async def silence(self, matchers: dict[str, str], **kw: Any) -> str:
        self.silenced.append(matchers | {"by": kw["created_by"]})
        return f"s{len(self.silenced)}"


class FakeTrail(Trail):
    def __init__(self) -> None:
        self.events: list[TrailEvent] = []

    def record(self, events: Sequence[TrailEvent]) -> None:
        self.events.extend(events)

    def restore(self, since_ms: int) -> list[Alert]:
        return []


def setup() -> tuple[Alerter, FakeAlertmanager, FakeTrail, Clock]:
    am, trail, clock = FakeAlertmanager(), FakeTrail(), Clock(RAISED)
    return Alerter(RULES, am, trail, clock=clock), am, trail, clock


def kinds(trail: FakeTrail, alert_id: str) -> list[tuple[str, int]]:
    return [(e.kind, e.escalation) for e in trail.events if e.alert_id == alert_id]


def raise_one(alerter: Alerter, **change: object) -> Alert:
    alert = alerter.alert_for(message(**change), RAISED)
    assert alert is not None
    asyncio.run(alerter.raise_alerts([alert], None))
    return alert


def test_not_acknowledged_it_escalates_to_the_next_contact_after_each_step() -> None:
    alerter, am, trail, clock = setup()
    alert = raise_one(alerter)
    clock.advance(299)
    asyncio.run(alerter.tick())
    assert [p["labels"]["escalation"] for p in am.posts] == ["0"]
    clock.advance(1)  # 5 minutes
    asyncio.run(alerter.tick())
    assert [p["labels"]["escalation"] for p in am.posts[1:]] == ["0", "1"]
    assert am.posts[-1]["startsAt"] == "2025-12-01T12:05:00.000Z"
    assert alerter.alerts[alert.alert_id].level == 1
    clock.advance(3600)  # past the second step, but the day chain has two contacts
    asyncio.run(alerter.tick())
    assert alerter.alerts[alert.alert_id].level == 1
    assert kinds(trail, alert.alert_id) == [("raised", 0), ("escalated", 1)]


def test_acknowledged_it_stops_escalating_is_silenced_and_resolved() -> None:
    alerter, am, trail, clock = setup()
    alert = raise_one(alerter)
    clock.advance(120)

    async def ack() -> None:
        await alerter.acknowledge(alert.alert_id, "dana", "paid back $100.50")
        await alerter.drain()

    asyncio.run(ack())
    assert am.silenced == [{"alert_id": alert.alert_id, "by": "dana"}]
    assert am.posts[-1]["endsAt"] == "2025-12-01T12:02:00.000Z"  # resolved now
    clock.advance(3600)
    asyncio.run(alerter.tick())
    assert kinds(trail, alert.alert_id) == [("raised", 0), ("acknowledged", 0), ("resolved", 0)]
    ack_event = trail.events[1]
    assert (ack_event.by, ack_event.note) == ("dana", "paid back $100.50")
    assert not alerter.alerts[alert.alert_id].open


def test_an_alert_nobody_acknowledges_is_closed_at_its_expiry() -> None:
    alerter, am, trail, clock = setup()
    alert = raise_one(alerter)
    clock.advance(7200)
    asyncio.run(alerter.tick())
    assert kinds(trail, alert.alert_id) == [("raised", 0), ("resolved", 0)]
    assert trail.events[-1].note == "expired: nobody acknowledged it"
    assert am.silenced == []


def test_the_same_finding_twice_raises_one_alert() -> None:
    alerter, am, trail, _ = setup()
    raise_one(alerter)
    raise_one(alerter)
    assert len(am.posts) == 1
    assert [e.kind for e in trail.events] == ["raised"]


def test_a_silent_open_table_raises_an_alert_resolved_when_heard_again() -> None:
    alerter, am, trail, clock = setup()
    alerter.heard("LIR-07", "table_open", RAISED, "let_it_ride")
    clock.advance(599)
    asyncio.run(alerter.tick())
    assert am.posts == []
    clock.advance(1)
    asyncio.run(alerter.tick())
    assert [p["labels"]["check"] for p in am.posts] == ["CONTROLLER_SILENT"]
    assert am.posts[0]["labels"]["game"] == "let_it_ride"
    assert am.posts[0]["startsAt"] == "2025-12-01T12:10:00.000Z"
    alert_id = am.posts[0]["labels"]["alert_id"]

    async def heard_again() -> None:
        alerter.heard("LIR-07", "round_start", clock.ms)
        await alerter.drain()

    asyncio.run(heard_again())
    assert kinds(trail, alert_id) == [("raised", 0), ("resolved", 0)]
    assert trail.events[-1].note == "controller heard again at 2025-12-01T12:10:00.000Z"
    assert am.silenced == []


@pytest.mark.parametrize("receiver", ["trail-contact-pm", "contact-pm"])
def test_a_notification_is_recorded_per_alert_receiver_and_level(receiver: str) -> None:
    """The contact's trail receiver calls the webhook (a configuration generated before
    the trail had receivers of its own, the contact's own receiver): recorded as
    notified to the contact."""
    alerter, _, trail, _ = setup()
    alert = raise_one(alerter)
    payload = msgspec.convert(
        {
            "receiver": receiver,
            "alerts": [
                {"status": "firing", "labels": alert.labels(0)},
                {"status": "resolved", "labels": alert.labels(0)},
            ],
        },
        Notification,
    )
    assert asyncio.run(alerter.notified(payload)) == 1
    assert asyncio.run(alerter.notified(payload)) == 1  # the same id: one row in the view
    events = [e for e in trail.events if e.kind == "notified"]
    assert [(e.receiver, e.escalation) for e in events] == [("contact-pm", 0)] * 2
    assert events[0].event_id == events[1].event_id


def test_a_finding_older_than_the_expiry_when_read_raises_nothing() -> None:
    alerter, _, _, clock = setup()
    clock.advance(7200)  # the message was produced two hours ago: expire is 2h
    assert alerter.alert_for(message(), RAISED) is None
    assert alerter.counters.stale == 1
    assert alerter.alert_for(message(), RAISED + 1) is not None
