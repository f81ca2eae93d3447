"""The alerts' audit trail: ``alert_events`` in ClickHouse (migration 0010).

Rows are written through the alerter's own store (``--dsn``; an embedded folder of its
own by default, as the worker holds its folder; on a server, the same database as
everything else). Each event's id is deterministic (:func:`model.event_id`), so a
row written twice is one row in ``alert_events_v``. :meth:`Trail.restore` rebuilds the
open alerts (and those acknowledged but not yet resolved) from the trail when the
alerter starts, so escalation clocks and acknowledgements survive a restart.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from clickhouse_connect.driver.client import Client

from tablewatch.alerts.model import Alert, event_id, iso_ms

KINDS = ("raised", "notified", "escalated", "acknowledged", "resolved")
COLUMNS = (
    "event_id", "alert_id", "kind", "ts", "alert_kind", "table_id", "pit", "check",
    "severity", "escalation", "shift", "receiver", "by", "note", "finding_ids", "detail",
    "recorded_at",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class TrailEvent:
    event_id: str
    alert_id: str
    kind: str
    ts_ms: int
    alert: Alert
    escalation: int = 0
    receiver: str = ""
    by: str = ""
    note: str = ""
    detail: dict[str, Any] = field(default_factory=dict)

    def row(self, recorded_ms: int) -> list[object]:
        a = self.alert
        shift = a.shifts[min(self.escalation, a.level)]
        return [
            self.event_id, self.alert_id, self.kind, self.ts_ms, a.kind, a.table_id, a.pit,
            a.check, a.severity, self.escalation, shift, self.receiver, self.by, self.note,
            list(a.finding_ids), json.dumps(self.detail, sort_keys=True) if self.detail else "",
            recorded_ms,
        ]  # fmt: skip


def raised(alert: Alert) -> TrailEvent:
    detail = {
        "annotations": dict(alert.annotations),
        "generator_url": alert.generator_url,
        "game": alert.game,
        "extra": dict(alert.extra),
    }
    return TrailEvent(
        event_id(alert.alert_id, "raised"), alert.alert_id, "raised", alert.raised_ms, alert,
        detail=detail,
    )  # fmt: skip


def escalated(alert: Alert, level: int) -> TrailEvent:
    return TrailEvent(
        event_id(alert.alert_id, "escalated", level), alert.alert_id, "escalated",
        alert.level_ms[level], alert, escalation=level,
    )  # fmt: skip


def notified(alert: Alert, level: int, receiver: str, at_ms: int) -> TrailEvent:
    return TrailEvent(
        event_id(alert.alert_id, "notified", level, receiver), alert.alert_id, "notified",
        at_ms, alert, escalation=level, receiver=receiver,
    )  # fmt: skip


def acknowledged(alert: Alert) -> TrailEvent:
    assert alert.acknowledged_ms is not None and alert.acknowledged_by is not None
    return TrailEvent(
        event_id(alert.alert_id, "acknowledged"), alert.alert_id, "acknowledged",
        alert.acknowledged_ms, alert, escalation=alert.level, by=alert.acknowledged_by,
        note=alert.note,
    )  # fmt: skip


def resolved(alert: Alert, why: str, silence_id: str | None = None) -> TrailEvent:
    assert alert.resolved_ms is not None
    detail = {"silence_id": silence_id} if silence_id else {}
    return TrailEvent(
        event_id(alert.alert_id, "resolved"), alert.alert_id, "resolved", alert.resolved_ms,
        alert, escalation=alert.level, note=why, detail=detail,
    )  # fmt: skip


class Trail:
    """Writes and reads ``alert_events`` through one client (calls serialised: the
    embedded engine's client is used from worker threads)."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self._lock = threading.Lock()

    def record(self, events: Sequence[TrailEvent]) -> None:
        if not events:
            return
        now = int(time.time() * 1000)
        rows = [e.row(now) for e in events]
        with self._lock:
            self.client.insert("alert_events", rows, column_names=list(COLUMNS))

    def history(self, alert_id: str) -> list[dict[str, Any]]:
        """An alert's events, oldest first."""
        sql = (
            "SELECT kind, toUnixTimestamp64Milli(ts), escalation, shift, receiver, by, note, "
            "finding_ids FROM alert_events_v WHERE alert_id = {a:String} ORDER BY ts, kind"
        )
        with self._lock:
            rows = self.client.query(sql, parameters={"a": alert_id}).result_rows
        return [
            {"kind": r[0], "ts": iso_ms(int(r[1])), "escalation": int(r[2]), "shift": r[3],
             "receiver": r[4], "by": r[5], "note": r[6], "finding_ids": list(r[7])}
            for r in rows
        ]  # fmt: skip

    def restore(self, since_ms: int) -> list[Alert]:
        """The alerts raised since ``since_ms`` as their trail leaves them (open or not)."""
        sql = (
            "SELECT alert_id, kind, toUnixTimestamp64Milli(ts), alert_kind, table_id, pit, "
            "check, severity, escalation, shift, by, note, finding_ids, detail "
            "FROM alert_events_v WHERE alert_id IN (SELECT alert_id FROM alert_events "
            "WHERE kind = 'raised' AND ts >= fromUnixTimestamp64Milli({s:Int64})) "
            "AND kind != 'notified' ORDER BY alert_id, ts, escalation"
        )
        with self._lock:
            rows = self.client.query(sql, parameters={"s": since_ms}).result_rows
        return list(_rebuild(rows))


def _rebuild(rows: Iterable[Sequence[Any]]) -> Iterable[Alert]:
    by_alert: dict[str, list[Sequence[Any]]] = {}
    for row in rows:
        by_alert.setdefault(str(row[0]), []).append(row)
    for alert_id, events in by_alert.items():
        first = next((e for e in events if e[1] == "raised"), None)
        if first is None:
            continue
        detail = json.loads(first[13] or "{}")
        alert = Alert(
            alert_id=alert_id, kind=str(first[3]), table_id=str(first[4]), pit=str(first[5]),
            game=str(detail.get("game", "")), check=str(first[6]), severity=str(first[7]),
            raised_ms=int(first[2]), finding_ids=tuple(first[12]),
            annotations=detail.get("annotations", {}),
            generator_url=str(detail.get("generator_url", "")), shifts=(str(first[9]),),
            level_ms=(int(first[2]),), extra=detail.get("extra", {}),
        )  # fmt: skip
        for e in sorted((e for e in events if e[1] == "escalated"), key=lambda e: int(e[8])):
            if int(e[8]) == alert.level + 1:
                alert = alert.escalated(str(e[9]), int(e[2]))
        for e in events:
            if e[1] == "acknowledged":
                alert = alert.acknowledged(str(e[10]), str(e[11]), int(e[2]))
        for e in events:
            if e[1] == "resolved":
                alert = alert.resolved(int(e[2]))
        yield alert
