"""The alerter's state and decisions: alerts raised, escalated, acknowledged, resolved.

Every change goes to Alertmanager first (retried until accepted, :mod:`.alertmanager`),
then to the trail (:mod:`.trail`); the caller (the Kafka loop of :mod:`.service`)
commits a findings offset only after both. Time comes from ``clock`` (seconds), so the
escalation and expiry can be driven by a test's clock.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from tablewatch.alerts import escalation, trail
from tablewatch.alerts.alertmanager import AlertmanagerClient
from tablewatch.alerts.am_config import receiver_name, trail_receiver_name
from tablewatch.alerts.bodies import Notification, deliveries
from tablewatch.alerts.convert import alert_of_finding, alert_of_silence
from tablewatch.alerts.model import ALERTNAME, Alert, iso_ms
from tablewatch.alerts.rules_file import AlertRules
from tablewatch.alerts.silent import SilentWatch
from tablewatch.store.errors import is_data_error

log = logging.getLogger("tablewatch.alerts")


@dataclass(frozen=True, slots=True)
class TableInfo:
    game: str = ""
    pit: str | None = None


class TrailRefused(Exception):
    """The store refused the trail's rows on their data: written again they would fail
    again, so they are not retried (the request that made them fails)."""


class AlreadyAcknowledged(Exception):
    def __init__(self, alert: Alert) -> None:
        self.alert = alert
        super().__init__(f"{alert.alert_id} was acknowledged by {alert.acknowledged_by}")


@dataclass(slots=True)
class Counters:
    findings: int = 0
    unreadable: int = 0
    raised: int = 0
    escalated: int = 0
    acknowledged: int = 0
    resolved: int = 0
    notified: int = 0
    silent: int = 0
    stale: int = 0  # findings older than the expiry when read: not raised
    by_check: dict[str, int] = field(default_factory=dict)


class Alerter:
    def __init__(
        self,
        rules: AlertRules,
        am: AlertmanagerClient,
        store: trail.Trail,
        *,
        tables: Mapping[str, TableInfo] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.rules = rules
        self.am = am
        self.trail = store
        self.tables = dict(tables or {})
        self.clock = clock
        self.alerts: dict[str, Alert] = {}
        self.watch = SilentWatch()
        self.silenced_tables: dict[str, str] = {}  # table_id -> its open silence alert
        self.counters = Counters()
        self.ready = False  # its consumers started (the service sets it)
        self._last_resend_ms = self.now_ms()
        self._settling: set[str] = set()
        self._acknowledging: dict[str, Alert] = {}  # acknowledged, its trail row being written
        self._tasks: set[asyncio.Task[None]] = set()

    def now_ms(self) -> int:
        return int(self.clock() * 1000)

    def _ends_ms(self, alert: Alert) -> int:
        return alert.raised_ms + round(self.rules.timing.expire_s * 1000)

    async def _record(self, events: Sequence[trail.TrailEvent], stop: asyncio.Event | None) -> None:
        delay = 0.2
        while True:
            try:
                await asyncio.to_thread(self.trail.record, events)
                return
            except Exception as exc:  # the store: retried, never dropped
                if is_data_error(exc):  # the rows' fault: the same rows would fail for ever
                    log.error("trail rows refused by the store (%s): %r", exc, events)
                    raise TrailRefused(f"the trail refused the rows: {exc}") from exc
                log.warning("trail not written (%s); again in %.1f s", exc, delay)
                if stop is not None and stop.is_set():
                    raise
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)

    # ---- restoring ------------------------------------------------------------------

    async def restore(self) -> int:
        since = self.now_ms() - round(self.rules.timing.expire_s * 1000) - 3600_000
        alerts = await asyncio.to_thread(self.trail.restore, since)
        for alert in alerts:
            self.alerts[alert.alert_id] = alert
            if alert.kind == "silent" and alert.open:
                self.silenced_tables[alert.table_id] = alert.alert_id
            if alert.open and alert.acknowledged_by is not None:
                self._spawn(self.settle(alert.alert_id, "acknowledged"))
        self._last_resend_ms = 0  # the first tick posts the open ones again
        return len(alerts)

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ---- raising ----------------------------------------------------------------------

    def alert_for(self, message: Mapping[str, Any], raised_ms: int) -> Alert | None:
        """The alert of a findings message produced at ``raised_ms``; None when no rule
        wants it, or when it is older than ``expire`` (a new consumer group reading the
        topic from its start: such an alert would be closed at once)."""
        if self.now_ms() - raised_ms >= self.rules.timing.expire_s * 1000:
            self.counters.stale += 1
            return None
        table = self.tables.get(str(message.get("table_id")), TableInfo())
        game = table.game or self.watch.game_of(str(message.get("table_id")))
        return alert_of_finding(message, self.rules, raised_ms=raised_ms, game=game,
                                configured_pit=table.pit)  # fmt: skip

    async def raise_alerts(self, alerts: Sequence[Alert], stop: asyncio.Event | None) -> None:
        """Post the alerts not raised before, then record them: done when both are."""
        fresh: list[Alert] = []
        for alert in alerts:
            known = self.alerts.get(alert.alert_id)
            if known is not None:
                continue  # raised before (a message read again): its trail has it
            if any(a.alert_id == alert.alert_id for a in fresh):
                continue
            fresh.append(alert)
        if not fresh:
            return
        posts = [p for a in fresh for p in a.postable(self._ends_ms(a))]
        await self.am.post_alerts(posts, stop)
        for alert in fresh:  # known before the trail is written: its notification may come
            self.alerts[alert.alert_id] = alert
        await self._record([trail.raised(a) for a in fresh], stop)
        for alert in fresh:
            self.counters.raised += 1
            self.counters.by_check[alert.check] = self.counters.by_check.get(alert.check, 0) + 1
            if alert.kind == "silent":
                self.silenced_tables[alert.table_id] = alert.alert_id

    # ---- the clock ----------------------------------------------------------------------

    async def tick(self, stop: asyncio.Event | None = None) -> None:
        """What the time makes due: escalations, expiries, silent controllers, resends."""
        now = self.now_ms()
        rules = self.rules
        changed: list[Alert] = []
        events: list[trail.TrailEvent] = []
        expired: list[str] = []
        for alert in list(self.alerts.values()):
            if not alert.open:
                continue
            max_level = rules.max_level(alert.pit, alert.shifts[0], alert.check)
            d = escalation.due(
                raised_ms=alert.raised_ms, level=alert.level,
                acknowledged=alert.acknowledged_by is not None
                or alert.alert_id in self._acknowledging,
                resolved=not alert.open,
                steps_s=rules.escalation_s, max_level=max_level,
                expire_s=rules.timing.expire_s, now_ms=now,
            )  # fmt: skip
            if d.expired:
                expired.append(alert.alert_id)
                continue
            if d.level > alert.level:
                current = alert
                shift = rules.shift_at(datetime.fromtimestamp(now / 1000, UTC))
                for level in range(alert.level + 1, d.level + 1):
                    at = alert.raised_ms + round(rules.escalation_s[level - 1] * 1000)
                    current = current.escalated(shift, at)
                    events.append(trail.escalated(current, level))
                changed.append(current)
        if changed:
            posts = [p for a in changed for p in a.postable(self._ends_ms(a))]
            await self.am.post_alerts(posts, stop)
            await self._record(events, stop)
            for alert in changed:
                latest = self.alerts[alert.alert_id]
                if latest.acknowledged_by is not None:  # acknowledged meanwhile: keep that
                    alert = alert.acknowledged(latest.acknowledged_by, latest.note,
                                               latest.acknowledged_ms or now)  # fmt: skip
                self.alerts[alert.alert_id] = alert
                self.counters.escalated += 1
        for alert_id in expired:
            await self.settle(alert_id, "expired: nobody acknowledged it", stop, silence=False)
        silent = []
        for s in self.watch.due(now, self._silence_limit):
            info = self.tables.get(s.table_id, TableInfo())
            quiet = alert_of_silence(
                s.table_id, rules, last_heard_ms=s.last_heard_ms, silent_for_s=s.limit_s,
                raised_ms=s.last_heard_ms + round(s.limit_s * 1000),
                game=info.game or s.game, configured_pit=info.pit,
            )  # fmt: skip
            if quiet is not None:
                silent.append(quiet)
        if silent:
            self.counters.silent += len(silent)
            await self.raise_alerts(silent, stop)
        if now - self._last_resend_ms >= rules.timing.resend_s * 1000:
            await self.resend(stop)

    def _silence_limit(self, table_id: str) -> float | None:
        info = self.tables.get(table_id, TableInfo())
        return self.rules.silence_for(table_id, self.rules.pit_of(table_id, info.pit))

    async def resend(self, stop: asyncio.Event | None = None) -> None:
        """Post every open, unacknowledged alert again: an Alertmanager restarted since
        has lost its alerts (it keeps silences and its notification log, so this
        notifies nobody twice within ``repeat_interval``)."""
        self._last_resend_ms = self.now_ms()
        firing = [a for a in self.alerts.values() if a.open and a.acknowledged_by is None]
        posts = [p for a in firing for p in a.postable(self._ends_ms(a))]
        if posts:
            await self.am.post_alerts(posts, stop)

    def heard(self, table_id: str, event_type: str, at_ms: int, game: str = "") -> None:
        """An event of ``table_id`` on ``table-events``: its silence, if any, is over."""
        ended = self.watch.heard(table_id, event_type, at_ms, game)
        alert_id = self.silenced_tables.get(table_id)
        if ended is not None and alert_id is not None:
            self.silenced_tables.pop(table_id, None)
            alert = self.alerts.get(alert_id)
            if alert is not None and alert.open:
                self._spawn(self.settle(alert_id, f"controller heard again at {iso_ms(at_ms)}",
                                        silence=False))  # fmt: skip

    # ---- acknowledging and resolving ----------------------------------------------------------

    async def acknowledge(self, alert_id: str, by: str, note: str = "") -> Alert:
        """Record who acknowledged (escalation stops now), then silence and resolve the
        alert in Alertmanager in the background (retried while it is down).

        One acknowledgement wins: the first taken holds the alert from before its trail
        row is written, so any other, at the same time or later, is
        :class:`AlreadyAcknowledged` (409) and writes nothing."""
        alert = self.alerts.get(alert_id)
        if alert is None:
            raise KeyError(alert_id)
        if alert.acknowledged_by is not None:
            raise AlreadyAcknowledged(alert)
        pending = self._acknowledging.get(alert_id)
        if pending is not None:
            raise AlreadyAcknowledged(pending)
        acked = alert.acknowledged(by, note, self.now_ms())
        self._acknowledging[alert_id] = acked
        try:
            await self._record([trail.acknowledged(acked)], None)
        finally:
            self._acknowledging.pop(alert_id, None)
        latest = self.alerts[alert_id]  # escalated meanwhile: keep its levels
        acked = latest.acknowledged(by, note, acked.acknowledged_ms or self.now_ms())
        self.alerts[alert_id] = acked
        self.counters.acknowledged += 1
        if acked.open:
            self._spawn(self.settle(alert_id, "acknowledged"))
        return acked

    async def settle(
        self, alert_id: str, why: str, stop: asyncio.Event | None = None, *, silence: bool = True
    ) -> None:
        """Silence (for an acknowledgement) and resolve one alert, then record it."""
        if alert_id in self._settling:
            return
        self._settling.add(alert_id)
        try:
            alert = self.alerts[alert_id]
            now = self.now_ms()
            silence_id = None
            if silence:
                silence_id = await self.am.silence(
                    {"alert_id": alert_id}, starts_at=iso_ms(now),
                    ends_at=iso_ms(max(self._ends_ms(alert), now + 3600_000)),
                    created_by=alert.acknowledged_by or "tablewatch",
                    comment=f"acknowledged in TableWatch: {alert.note}".rstrip(": "),
                    stop=stop,
                )  # fmt: skip
            alert = self.alerts[alert_id]
            await self.am.post_alerts(alert.postable(now), stop)
            done = alert.resolved(now)
            await self._record([trail.resolved(done, why, silence_id)], stop)
            self.alerts[alert_id] = done
            self.counters.resolved += 1
            if self.silenced_tables.get(alert.table_id) == alert_id:
                self.silenced_tables.pop(alert.table_id, None)
        finally:
            self._settling.discard(alert_id)

    # ---- what Alertmanager delivered --------------------------------------------------------

    async def notified(self, notification: Notification) -> int:
        """Alertmanager's webhook: record each firing alert as notified to the receiver.
        The whole notification is checked first (:func:`.bodies.deliveries`: a receiver
        of these rules, alert ids, levels that exist); :class:`.bodies.BodyError` and
        nothing recorded when any of it is refused."""
        # a contact's trail receiver records for the contact (a configuration generated
        # before the trail had receivers of its own: the contact's receiver itself)
        receivers: dict[str, str] = {}
        for name in self.rules.contacts:
            contact = receiver_name(name)
            receivers[contact] = receivers[trail_receiver_name(name)] = contact
        delivered = deliveries(notification, receivers, len(self.rules.escalation_s))
        receiver = receivers[notification.receiver]
        now = self.now_ms()
        events = []
        for item in delivered:
            labels, level = item.labels, item.level
            alert = self.alerts.get(labels["alert_id"])
            if alert is None:  # not read again yet after a restart: its labels say enough
                alert = _from_labels(labels, level, now)
                if alert is None:
                    continue
            events.append(trail.notified(alert, min(level, alert.level), receiver, now))
        if events:
            await self._record(events, None)
            self.counters.notified += len(events)
        return len(events)

    async def drain(self) -> None:
        """Wait for the background settles (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def listing(self, open_only: bool) -> list[dict[str, Any]]:
        alerts = sorted(self.alerts.values(), key=lambda a: (a.raised_ms, a.alert_id))
        return [a.summary() for a in alerts if a.open or not open_only]


def _from_labels(labels: Mapping[str, Any], level: int, now_ms: int) -> Alert | None:
    """An alert as its labels give it (for a notification's trail row)."""
    alert_id = str(labels.get("alert_id", ""))
    if not alert_id:
        return None
    kinds = {name: kind for kind, name in ALERTNAME.items()}
    shift = str(labels.get("shift", ""))
    return Alert(
        alert_id=alert_id, kind=kinds.get(str(labels.get("alertname")), "finding"),
        table_id=str(labels.get("table_id", "")), pit=str(labels.get("pit", "")),
        game=str(labels.get("game", "")), check=str(labels.get("check", "")),
        severity=str(labels.get("severity", "")), raised_ms=now_ms, finding_ids=(),
        annotations={}, generator_url="", shifts=(shift,) * (max(level, 0) + 1),
        level_ms=(now_ms,) * (max(level, 0) + 1),
    )  # fmt: skip
