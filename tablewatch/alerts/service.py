"""``tablewatch alerter`` as a process: two Kafka consumers, the clock, the HTTP API.

- ``findings`` (consumer group ``--group``, offsets committed by hand): each batch's
  alerts are posted to Alertmanager and recorded in the trail, then the batch's
  offsets are committed. Killed at any point, the alerter reads again what it had not
  committed, and makes the same alerts with the same ids: Alertmanager merges them,
  the trail collapses them.
- ``table-events`` (no group, no commits): read from ``--silence-lookback`` ago at
  start (Kafka's offsets for a time), so the silent-controller watch knows every table
  heard since then, whatever happened to the alerter meanwhile.
- the clock, twice a second: escalations, expiries, silent tables, resends.
- HTTP (aiohttp): ``GET /health``, ``GET /api/v1/alerts[?open=true]``,
  ``GET /api/v1/alerts/{id}`` (with its trail), ``POST /api/v1/alerts/{id}/ack``
  (``{"note": ...}``, a bearer token whose role holds ``ack_alert``: the token's holder
  is who acknowledged), and ``POST /api/v1/alertmanager/notified``, the webhook every
  generated receiver calls (a token whose role holds ``record_notified``, which the
  generated configuration has Alertmanager send). The bodies are checked with bounds
  before anything is written (:mod:`.bodies`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import msgspec
from aiohttp import web

from tablewatch.access.authenticate import (
    AccessUnavailable,
    FileTokenAuthenticator,
    Principal,
    Unauthenticated,
)
from tablewatch.access.gate import Forbidden, Gate, http_refusal
from tablewatch.access.roles import Permission
from tablewatch.alerts import bodies
from tablewatch.alerts.alerter import Alerter, AlreadyAcknowledged, TrailRefused
from tablewatch.alerts.am_config import NOTIFIED_PATH
from tablewatch.alerts.convert import NotAFinding
from tablewatch.kafka_access import KafkaAccess
from tablewatch.topics import Topics

log = logging.getLogger("tablewatch.alerts")


class _Event(msgspec.Struct):
    type: str = ""
    game: str = ""


_EVENT = msgspec.json.Decoder(_Event)


@dataclass(frozen=True, slots=True)
class Settings:
    kafka: KafkaAccess
    topics: Topics
    group: str = "tablewatch-alerter"
    host: str = "127.0.0.1"
    port: int = 8095
    silence_lookback_s: float = 3600.0
    tick_s: float = 0.5
    access_file: Path | None = None  # who may acknowledge, and Alertmanager's token


# ---- HTTP --------------------------------------------------------------------------


def web_app(
    alerter: Alerter, gate: Gate, status: Callable[[], dict[str, Any]] | None = None
) -> web.Application:
    """The alerter's HTTP API. ``gate`` admits the callers of the routes that change
    anything; one without an authenticator admits nobody to them (they answer 503): the
    alerter's reads are open, its writes never."""

    async def admit(request: web.Request, permission: Permission) -> Principal | web.Response:
        if not gate.enabled:
            return web.json_response(
                {"error": "access control is off (the alerter has no --access-file): "
                          "nothing can be acknowledged or recorded"},
                status=503,
            )  # fmt: skip
        try:
            principal = await gate.admit(request.headers.get("Authorization"), permission)
        except (Unauthenticated, Forbidden, AccessUnavailable) as denied:
            refusal = http_refusal(denied)
            return web.json_response(refusal.body, status=refusal.status, headers=refusal.headers)
        assert principal is not None
        return principal

    async def body_of(request: web.Request, max_bytes: int) -> bytes:
        if request.content_length is not None and request.content_length > max_bytes:
            raise bodies.BodyError(
                f"the body is {request.content_length:,} bytes: at most {max_bytes:,}", 413
            )
        try:
            return await request.read()
        except web.HTTPRequestEntityTooLarge:
            raise bodies.BodyError(f"the body is over {max_bytes:,} bytes", 413) from None

    async def health(_: web.Request) -> web.Response:
        ready = alerter.ready
        body = {
            "status": "ok" if ready else "starting",
            "alertmanager_up": alerter.am.up,
            "alertmanager_error": alerter.am.last_error,
            "open_alerts": sum(1 for a in alerter.alerts.values() if a.open),
            "counters": asdict(alerter.counters),
            **(status() if status is not None else {}),
        }
        return web.json_response(body, status=200 if ready else 503)

    async def listing(request: web.Request) -> web.Response:
        open_only = request.query.get("open", "").lower() in ("1", "true", "yes")
        return web.json_response(alerter.listing(open_only))

    async def one(request: web.Request) -> web.Response:
        alert = alerter.alerts.get(request.match_info["alert_id"])
        if alert is None:
            return web.json_response({"error": "no such alert"}, status=404)
        history = await asyncio.to_thread(alerter.trail.history, alert.alert_id)
        return web.json_response(alert.summary() | {"trail": history})

    async def ack(request: web.Request) -> web.Response:
        alert_id = request.match_info["alert_id"]
        caller = await admit(request, Permission.ACK_ALERT)
        if isinstance(caller, web.Response):
            return caller
        try:
            note = bodies.acknowledgement(await body_of(request, bodies.MAX_ACK_BYTES),
                                          caller.name)  # fmt: skip
        except bodies.BodyError as exc:
            return web.json_response({"error": exc.reason}, status=exc.status)
        try:
            alert = await alerter.acknowledge(alert_id, caller.name, note)
        except KeyError:
            return web.json_response({"error": "no such alert"}, status=404)
        except AlreadyAcknowledged as exc:
            return web.json_response({"error": str(exc), "alert": exc.alert.summary()}, status=409)
        except TrailRefused as exc:
            return web.json_response({"error": str(exc)}, status=500)
        return web.json_response(alert.summary())

    async def notified(request: web.Request) -> web.Response:
        caller = await admit(request, Permission.RECORD_NOTIFIED)
        if isinstance(caller, web.Response):
            return caller
        try:
            raw = await body_of(request, bodies.MAX_WEBHOOK_BYTES)
            notification = bodies.decode(raw, bodies.Notification, bodies.MAX_WEBHOOK_BYTES)
            count = await alerter.notified(notification)
        except bodies.BodyError as exc:
            return web.json_response({"error": exc.reason}, status=exc.status)
        except TrailRefused as exc:
            return web.json_response({"error": str(exc)}, status=500)
        return web.json_response({"recorded": count})

    app = web.Application(client_max_size=bodies.MAX_WEBHOOK_BYTES)
    app.router.add_get("/health", health)
    app.router.add_get("/api/v1/alerts", listing)
    app.router.add_get("/api/v1/alerts/{alert_id}", one)
    app.router.add_post("/api/v1/alerts/{alert_id}/ack", ack)
    app.router.add_post(NOTIFIED_PATH, notified)
    return app


# ---- Kafka -------------------------------------------------------------------------


async def consume_findings(
    alerter: Alerter, settings: Settings, stop: asyncio.Event, ready: asyncio.Event
) -> None:
    from aiokafka import AIOKafkaConsumer
    from aiokafka.errors import KafkaError

    consumer = AIOKafkaConsumer(
        settings.topics.findings, group_id=settings.group, enable_auto_commit=False,
        auto_offset_reset="earliest", max_poll_interval_ms=3600_000,
        **settings.kafka.aiokafka(),
    )  # fmt: skip
    await consumer.start()
    ready.set()
    try:
        while not stop.is_set():
            batch = await consumer.getmany(timeout_ms=200, max_records=500)
            if not batch:
                continue
            alerts = []
            for records in batch.values():
                for record in records:
                    alerter.counters.findings += 1
                    try:
                        message = json.loads(record.value)
                        alert = alerter.alert_for(message, int(record.timestamp))
                    except (ValueError, TypeError, NotAFinding, KeyError) as exc:
                        alerter.counters.unreadable += 1
                        log.error("findings message %s:%s unreadable: %s",
                                  record.partition, record.offset, exc)  # fmt: skip
                        continue
                    if alert is not None:
                        alerts.append(alert)
            await alerter.raise_alerts(alerts, stop)
            try:
                await consumer.commit()
            except KafkaError as exc:  # a rebalance took them: read again, same alerts
                log.warning("findings offsets not committed (%s): they will be read again", exc)
    finally:
        await consumer.stop()


async def consume_events(
    alerter: Alerter, settings: Settings, stop: asyncio.Event, ready: asyncio.Event
) -> None:
    from aiokafka import AIOKafkaConsumer, TopicPartition

    consumer = AIOKafkaConsumer(
        settings.topics.events, group_id=None, enable_auto_commit=False,
        auto_offset_reset="latest", **settings.kafka.aiokafka(),
    )  # fmt: skip
    await consumer.start()  # no group: every partition of the topic is assigned to it
    try:
        tps: list[TopicPartition] = []
        for _ in range(100):
            tps = sorted(consumer.assignment())
            if tps:
                break
            await asyncio.sleep(0.1)
        if not tps:
            raise RuntimeError(f"{settings.topics.events}: no partitions assigned")
        since = int((time.time() - settings.silence_lookback_s) * 1000)
        offsets = await consumer.offsets_for_times({tp: since for tp in tps})
        ends = await consumer.end_offsets(tps)  # now, not at the first fetch
        for tp in tps:
            found = offsets.get(tp)
            consumer.seek(tp, ends[tp] if found is None else found.offset)
        ready.set()
        while not stop.is_set():
            batch = await consumer.getmany(timeout_ms=200, max_records=2000)
            for records in batch.values():
                for record in records:
                    table_id = record.key.decode("utf-8", "replace") if record.key else ""
                    if not table_id:
                        continue
                    try:
                        event = _EVENT.decode(record.value)
                    except msgspec.DecodeError:
                        event = _Event()  # unreadable, but heard: the controller talks
                    alerter.heard(table_id, event.type, int(record.timestamp), event.game)
    finally:
        await consumer.stop()


async def clock_loop(alerter: Alerter, settings: Settings, stop: asyncio.Event) -> None:
    while not stop.is_set():
        try:
            await alerter.tick(stop)
        except Exception as exc:
            if stop.is_set():
                return
            log.exception("the alerter's clock failed (%s); it goes on", exc)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), settings.tick_s)


async def serve(
    alerter: Alerter,
    settings: Settings,
    stop: asyncio.Event,
    on_ready: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Run until ``stop`` is set: restore the open alerts, start the HTTP API, the
    consumers and the clock."""
    restored = await alerter.restore()
    log.info("restored %d alerts from the trail", restored)
    authenticator = FileTokenAuthenticator(settings.access_file) if settings.access_file else None
    runner = web.AppRunner(web_app(alerter, Gate(authenticator)), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, settings.host, settings.port)
    await site.start()
    findings_ready, events_ready = asyncio.Event(), asyncio.Event()
    tasks = [
        asyncio.create_task(consume_findings(alerter, settings, stop, findings_ready)),
        asyncio.create_task(consume_events(alerter, settings, stop, events_ready)),
        asyncio.create_task(clock_loop(alerter, settings, stop)),
    ]
    announced = False
    try:
        while not stop.is_set():
            for task in tasks:
                if task.done() and not task.cancelled() and task.exception() is not None:
                    raise RuntimeError(f"an alerter task failed: {task.exception()!r}")
            if not announced and findings_ready.is_set() and events_ready.is_set():
                announced = alerter.ready = True
                if on_ready is not None:
                    await on_ready()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.2)
    finally:
        stop.set()
        for task in tasks:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(task, 10)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(alerter.drain(), 5)
        await runner.cleanup()
        await alerter.am.close()


def run(alerter: Alerter, settings: Settings) -> None:
    """Serve until SIGTERM or SIGINT."""

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)

        async def announce() -> None:
            log.info("alerter ready on http://%s:%d", settings.host, settings.port)
            print(f"alerter ready on http://{settings.host}:{settings.port}", flush=True)

        await serve(alerter, settings, stop, announce)

    asyncio.run(main())
