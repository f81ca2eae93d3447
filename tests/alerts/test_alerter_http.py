"""The alerter's own HTTP API: acknowledgements and Alertmanager's webhook authenticated
and authorised by role, one acknowledgement of an alert wins, every body checked with
bounds before anything is written, and stored text escaped by ``alerts list``."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from clickhouse_connect.driver.exceptions import DataError

from tablewatch.access.gate import Gate
from tablewatch.alerts import trail as trail_module
from tablewatch.alerts.alerter import AlreadyAcknowledged, TrailRefused
from tablewatch.alerts.bodies import Notification
from tablewatch.alerts.trail import Trail, TrailEvent
from tablewatch.cli import main as cli
from tests.alerts.http_rig import bearer, new_alerter, served
from tests.alerts.test_alerter_clock import FakeTrail

ACK = "/api/v1/alerts/{}/ack"
NOTIFIED = "/api/v1/alertmanager/notified"


class SlowTrail(FakeTrail):
    """Takes 50 ms to write, as a store does: acknowledgements at once overlap."""

    def record(self, events: Sequence[TrailEvent]) -> None:
        time.sleep(0.05)
        super().record(events)


def notification(alert_labels: dict[str, Any], **change: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "version": "4", "status": "firing", "receiver": "contact-pm", "groupKey": "{}:{}",
        "alerts": [{"status": "firing", "labels": alert_labels, "annotations": {},
                    "startsAt": "2025-12-01T12:00:00Z", "fingerprint": "f"}],
    }  # fmt: skip
    return body | change


def kinds(trail: FakeTrail) -> list[str]:
    return [e.kind for e in trail.events]


# ---- one acknowledgement wins -------------------------------------------------------


def test_twenty_acknowledgements_at_once_in_the_alerter_one_wins() -> None:
    """Break 3 of issue 26, in the alerter: every one of 20 was taken, 19 notes lost."""
    alerter, trail, alert = new_alerter(SlowTrail())

    async def twenty() -> list[object]:
        await alerter.raise_alerts([alert], None)
        calls = [alerter.acknowledge(alert.alert_id, f"fm{i}", f"note {i}") for i in range(20)]
        return await asyncio.gather(*calls, return_exceptions=True)

    outcomes = asyncio.run(twenty())
    won = [o for o in outcomes if not isinstance(o, BaseException)]
    lost = [o for o in outcomes if isinstance(o, AlreadyAcknowledged)]
    assert (len(won), len(lost)) == (1, 19)
    acked = [e for e in trail.events if e.kind == "acknowledged"]
    assert len(acked) == 1
    state = alerter.alerts[alert.alert_id]
    assert (acked[0].by, acked[0].note) == (state.acknowledged_by, state.note)
    assert alerter.counters.acknowledged == 1
    assert all("was acknowledged by " + str(state.acknowledged_by) in str(o) for o in lost)


def test_twenty_acknowledgements_at_once_over_http_one_200_the_rest_409() -> None:
    """Break 3 of issue 26, over HTTP: 20 answers 200, the trail and state disagreeing."""
    with served(SlowTrail()) as rig:

        async def twenty() -> list[httpx.Response]:
            async with httpx.AsyncClient(base_url=rig.url, timeout=30) as client:
                url = ACK.format(rig.alert.alert_id)
                holders = ["dana", "ann"] * 10
                posts = [
                    client.post(url, json={"note": f"n{i}"}, headers=bearer(holder))
                    for i, holder in enumerate(holders)
                ]
                return await asyncio.gather(*posts)

        answers = asyncio.run(twenty())
        statuses = sorted(a.status_code for a in answers)
        assert statuses == [200] + [409] * 19
        (winner,) = [a.json() for a in answers if a.status_code == 200]
        acked = [e for e in rig.trail.events if e.kind == "acknowledged"]
        assert [(e.by, e.note) for e in acked] == [(winner["acknowledged_by"], acked[0].note)]
        state = rig.alerter.alerts[rig.alert.alert_id]
        assert (state.acknowledged_by, state.note) == (acked[0].by, acked[0].note)
        assert rig.alerter.counters.acknowledged == 1


# ---- who may -----------------------------------------------------------------------


def test_the_alerter_acknowledges_as_the_tokens_holder_and_only_for_a_role_that_may() -> None:
    with served() as rig, httpx.Client(base_url=rig.url) as client:
        url = ACK.format(rig.alert.alert_id)
        assert client.post(url, json={"by": "dana"}).status_code == 401
        assert client.post(url, json={}, headers=bearer("nobody")).status_code == 401
        assert client.post(url, json={}, headers=bearer("sam")).status_code == 403
        assert client.post(url, json={}, headers=bearer("am")).status_code == 403
        assert client.post(url, json={"by": "x"}, headers=bearer("dana")).status_code == 422
        assert kinds(rig.trail) == ["raised"]
        done = client.post(url, content=b"", headers=bearer("dana"))  # no body: no note
        assert done.status_code == 200, done.text
        assert done.json()["acknowledged_by"] == "dana"
        acked = [(e.by, e.note) for e in rig.trail.events if e.kind == "acknowledged"]
        assert acked == [("dana", "")]


def test_without_an_access_file_nothing_is_acknowledged_or_recorded() -> None:
    with served(with_gate=Gate(None)) as rig, httpx.Client(base_url=rig.url) as client:
        ack = client.post(ACK.format(rig.alert.alert_id), json={}, headers=bearer("dana"))
        hook = client.post(NOTIFIED, json=notification(rig.alert.labels(0)))
        assert (ack.status_code, hook.status_code) == (503, 503)
        assert "no --access-file" in ack.json()["error"]
        assert kinds(rig.trail) == ["raised"]


def test_the_webhook_records_only_for_alertmanagers_token() -> None:
    """Break 4 of issue 26: anyone's body made "notified" rows for any alert."""
    with served() as rig, httpx.Client(base_url=rig.url) as client:
        body = notification(rig.alert.labels(0))
        assert client.post(NOTIFIED, json=body).status_code == 401
        assert client.post(NOTIFIED, json=body, headers=bearer("nobody")).status_code == 401
        forbidden = client.post(NOTIFIED, json=body, headers=bearer("dana"))
        assert forbidden.status_code == 403
        assert "record_notified needs the role admin or alertmanager" in forbidden.json()["error"]
        assert kinds(rig.trail) == ["raised"]
        ok = client.post(NOTIFIED, json=body, headers=bearer("am"))
        assert (ok.status_code, ok.json()) == (200, {"recorded": 1})
        assert kinds(rig.trail) == ["raised", "notified"]


# ---- bodies checked before anything is written ----------------------------------------


def deep(levels: int) -> bytes:
    return b"[" * levels + b"]" * levels


def test_the_webhook_refuses_a_bad_body_with_a_json_reason_and_records_nothing() -> None:
    """Break 4 and 11 of issue 26: escalation 256 hung the request (the trail's UInt8
    retried for ever); malformed bodies were 500, a 100k-deep one a RecursionError."""
    with served() as rig, httpx.Client(base_url=rig.url, timeout=10) as client:
        labels = rig.alert.labels(0)
        one = notification(labels)["alerts"][0]
        cases: dict[str, tuple[bytes, str]] = {
            "256": (json.dumps(notification(labels | {"escalation": "256"})).encode(),
                    "alerts[0].labels.escalation: '256' is not a level of these rules (0 to 2)"),
            "-1": (json.dumps(notification(labels | {"escalation": "-1"})).encode(),
                   "alerts[0].labels.escalation: '-1' is not a level"),
            "3": (json.dumps(notification(labels | {"escalation": "3"})).encode(),
                  "alerts[0].labels.escalation: '3' is not a level"),
            "no JSON": (b"{", "the body is not JSON"),
            "not UTF-8": (b'{"receiver": "\xff"}', "the body is not JSON"),
            "an array": (b"[]", "the body is refused: Expected `object`, got `array`"),
            "alerts a number": (json.dumps(notification(labels, alerts=5)).encode(),
                                "Expected `array`, got `int` - at `$.alerts`"),
            "a label not text": (json.dumps(notification({**labels, "x": 1})).encode(),
                                 "Expected `str`, got `int`"),
            "deep": (b'{"receiver": "contact-pm", "alerts": [], "x": ' + deep(100_000) + b"}",
                     "the body is nested too deep"),
            "deep alerts": (b'{"alerts": ' + deep(100_000) + b"}",
                            "Expected `object`, got `array`"),
            "receiver": (json.dumps(notification(labels, receiver="contact-x")).encode(),
                         "receiver: 'contact-x' is not a receiver of these rules"),
            "alert id": (json.dumps(notification(labels | {"alert_id": "x\x1b"})).encode(),
                         "alerts[0].labels.alert_id: 'x\\\\x1b' is not an alert id"),
            "too many": (json.dumps(notification(labels, alerts=[one] * 1001)).encode(),
                         "Expected `array` of length <= 1000"),
            "the 2nd bad": (json.dumps(notification(labels, alerts=[one, {
                                "status": "firing", "labels": labels | {"escalation": "9"}}]
                            )).encode(), "alerts[1].labels.escalation: '9'"),
        }  # fmt: skip
        for name, (raw, reason) in cases.items():
            answer = client.post(NOTIFIED, content=raw, headers=bearer("am"))
            assert answer.status_code == 400, (name, answer.text)
            assert reason in answer.json()["error"], (name, answer.json())
        big = client.post(NOTIFIED, content=b" " * (4 * 1024 * 1024 + 1), headers=bearer("am"))
        assert big.status_code == 413
        assert "at most 4,194,304" in big.json()["error"]
        assert kinds(rig.trail) == ["raised"]  # nothing of any of them


def test_an_acknowledgement_body_is_checked_before_anything_is_written() -> None:
    with served() as rig, httpx.Client(base_url=rig.url, timeout=10) as client:
        url = ACK.format(rig.alert.alert_id)
        cases: dict[str, tuple[bytes, int, str]] = {
            "ESC": (b'{"note": "\\u001b[2J"}', 400, "note: control characters are refused"),
            "NUL": (b'{"note": "a\\u0000"}', 400, "(\\x00)"),
            "C1": (b'{"note": "\\u009b31m"}', 400, "(\\x9b)"),
            "long": (json.dumps({"note": "x" * 2001}).encode(), 400, "2,001 characters"),
            "unknown": (b'{"who": "x"}', 400, "unknown field `who`"),
            "deep": (b'{"note": ' + deep(8000) + b"}", 400, "Expected `str`"),
            "deep array": (deep(8000), 400, "Expected `object`"),
            "100k deep": (deep(100_000), 413, "at most 16,384"),
            "not JSON": (b"note=x", 400, "the body is not JSON"),
            "big": (b" " * (16 * 1024 + 1), 413, "at most 16,384"),
        }
        for name, (raw, status, reason) in cases.items():
            answer = client.post(url, content=raw, headers=bearer("dana"))
            assert answer.status_code == status, (name, answer.text)
            assert reason in answer.json()["error"], (name, answer.json())
        assert kinds(rig.trail) == ["raised"]
        tabbed = client.post(url, json={"note": "paid\tback\nat 12:00"}, headers=bearer("dana"))
        assert tabbed.status_code == 200


class RefusingClient:
    """A store client refusing the rows as clickhouse-connect refuses 256 in UInt8."""

    def __init__(self) -> None:
        self.inserts = 0

    def insert(self, table: str, rows: Any, column_names: Any) -> None:
        self.inserts += 1
        raise DataError("Unable to create native array for column `escalation`: error")


def test_rows_the_store_refuses_on_their_data_are_not_written_again_for_ever() -> None:
    """Why escalation 256 hung: the trail's write retried a DataError every 5 s for ever."""
    alerter, _, alert = new_alerter()
    refusing = RefusingClient()
    alerter.trail = Trail(refusing)  # type: ignore[arg-type]
    event = trail_module.escalated(replace(alert, shifts=("day",) * 2,
                                           level_ms=(1, 2)), 1)  # fmt: skip
    finished = threading.Event()

    def write() -> None:
        with pytest.raises(TrailRefused, match="column `escalation`"):
            asyncio.run(alerter._record([event], None))
        finished.set()

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    assert finished.wait(5), "the trail's write of refused rows is retried for ever"
    assert refusing.inserts == 1


def test_alerter_notified_checks_the_whole_notification_first() -> None:
    alerter, trail, alert = new_alerter()
    asyncio.run(alerter.raise_alerts([alert], None))
    good = {"status": "firing", "labels": alert.labels(0)}
    bad = {"status": "firing", "labels": alert.labels(0) | {"escalation": "256"}}
    import msgspec

    body = msgspec.convert({"receiver": "contact-pm", "alerts": [good, bad]}, Notification)
    with pytest.raises(ValueError, match=r"alerts\[1\]\.labels\.escalation"):
        asyncio.run(alerter.notified(body))
    assert kinds(trail) == ["raised"]


# ---- terminal output ------------------------------------------------------------------


def test_alerts_list_escapes_control_characters_of_stored_text() -> None:
    """Break 11 of issue 26: a `by` holding ESC and NUL was echoed raw by `alerts list`."""
    with served() as rig:
        hostile = "\x1b[2J\x1b]0;owned\x07eve\x00"
        alert = rig.alerter.alerts[rig.alert.alert_id]
        rig.alerter.alerts[alert.alert_id] = replace(
            alert.acknowledged(hostile, "", alert.raised_ms), table_id="LIR-1\x1b[31m"
        )
        result = CliRunner().invoke(cli, ["alerts", "list", "--alerter", rig.url])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\x00" not in result.output
    assert "\x07" not in result.output
    assert "\\x1b[2J\\x1b]0;owned\\x07eve\\x00" in result.output.replace("\n", "")
    assert "LIR-1\\x1b[31m" in result.output


def test_alerts_ack_sends_the_token_and_needs_one() -> None:
    with served() as rig:
        missing = CliRunner().invoke(
            cli, ["alerts", "ack", rig.alert.alert_id, "--alerter", rig.url],
            env={"TABLEWATCH_ALERTS_TOKEN": ""},
        )  # fmt: skip
        assert missing.exit_code == 2
        assert "no token: set TABLEWATCH_ALERTS_TOKEN" in missing.output
        refused = CliRunner().invoke(
            cli, ["alerts", "ack", rig.alert.alert_id, "--alerter", rig.url],
            env={"TABLEWATCH_ALERTS_TOKEN": "tw_sam-surveillance"},
        )  # fmt: skip
        assert refused.exit_code == 1
        assert "HTTP 403: forbidden: ack_alert needs the role floor_manager or admin" in (
            refused.output
        )
        done = CliRunner().invoke(
            cli, ["alerts", "ack", rig.alert.alert_id, "--note", "paid back", "--alerter",
                  rig.url], env={"TABLEWATCH_ALERTS_TOKEN": "tw_dana-floor-manager"},
        )  # fmt: skip
        assert done.exit_code == 0, done.output
        assert done.output.startswith(f"{rig.alert.alert_id} acknowledged by dana at ")
        assert [(e.by, e.note) for e in rig.trail.events if e.kind == "acknowledged"] == [
            ("dana", "paid back")
        ]
