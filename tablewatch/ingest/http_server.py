"""The HTTP ingest endpoint (aiohttp): controllers POST JSON arrays of events.

- ``POST /events``: body = JSON array of protocol events. 200 with per-item
  results; 400 malformed body; 413 oversized body; 503 Kafka did not confirm
  (send the same batch again: what was delivered comes back ``duplicate``).
- ``GET /health``: 200 ``{"status": "ok", "kafka": {...}}``, 503 ``degraded``
  when no bootstrap server answers.
- ``GET /metrics``: counters as JSON.

Batches are validated and produced in one worker thread, one batch at a time
(:class:`~tablewatch.ingest.service.Ingestor`), so the event loop stays free
and batches reach Kafka in the order they were read. Shutdown waits for the
batch in progress and flushes the producer.
"""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import msgspec
from aiohttp import web

from tablewatch.ingest.batch import DLQ_RAW_BYTES, BodyRefused, result_row
from tablewatch.ingest.service import DeliveryFailed, Ingestor

log = logging.getLogger(__name__)

INGESTOR = web.AppKey("ingestor", Ingestor)
EXECUTOR = web.AppKey("executor", ThreadPoolExecutor)
STARTED = web.AppKey("started", float)
CLOSE_SINK = web.AppKey("close_sink", bool)

_ENCODER = msgspec.json.Encoder()
_CHUNK = 64 * 1024


def make_app(ingestor: Ingestor, *, close_sink: bool = True) -> web.Application:
    """The ingest application; ``close_sink``: flush and close the sink on cleanup."""
    app = web.Application()
    app[INGESTOR] = ingestor
    app[CLOSE_SINK] = close_sink
    app.router.add_post("/events", post_events)
    app.router.add_get("/health", health)
    app.router.add_get("/metrics", metrics)
    app.on_startup.append(_start)
    app.on_cleanup.append(_cleanup)
    return app


async def _start(app: web.Application) -> None:
    app[EXECUTOR] = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ingest")
    app[STARTED] = time.monotonic()


async def _cleanup(app: web.Application) -> None:
    executor = app[EXECUTOR]
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, executor.shutdown, True)  # the batch in progress
    if app[CLOSE_SINK]:
        await loop.run_in_executor(None, app[INGESTOR].sink.close)


def _json(payload: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(
        body=_ENCODER.encode(payload),
        status=status,
        content_type="application/json",
        headers=headers,
    )


async def post_events(request: web.Request) -> web.Response:
    ingestor = request.app[INGESTOR]
    executor = request.app[EXECUTOR]
    loop = asyncio.get_running_loop()
    source = f"http {request.remote or '-'}"
    limit = ingestor.limits.max_body_bytes

    body, over = await _read_at_most(request, limit)
    if over:
        size = request.content_length
        said = f"{size:,} bytes" if size is not None else f"more than {limit:,} bytes"
        refused = BodyRefused("oversized", f"body of {said} exceeds {limit:,} bytes")
        await loop.run_in_executor(
            executor, ingestor.refuse_body, refused, body[:DLQ_RAW_BYTES], source, size
        )
        return _json(
            {"error": refused.reason, "kind": refused.kind},
            status=413,
            headers={"Connection": "close"},
        )
    try:
        batch = await loop.run_in_executor(executor, ingestor.ingest_body, body, source)
    except BodyRefused as refused:
        status = 413 if refused.kind == "oversized" else 400
        return _json({"error": refused.reason, "kind": refused.kind}, status=status)
    except DeliveryFailed as failed:
        return _json(
            {"error": f"not stored, send the batch again: {failed.reason}"},
            status=503,
            headers={"Retry-After": "1"},
        )
    outcomes = batch.outcomes
    return _json(
        {
            "accepted": sum(1 for o in outcomes if o.status == "accepted"),
            "duplicates": sum(1 for o in outcomes if o.status == "duplicate"),
            "rejected": sum(1 for o in outcomes if o.status == "rejected"),
            "results": [result_row(o) for o in outcomes],
        }
    )


async def _read_at_most(request: web.Request, limit: int) -> tuple[bytes, bool]:
    """The body, or its first part and ``True`` once it is known to exceed ``limit``."""
    size = request.content_length
    declared_over = size is not None and size > limit
    keep = DLQ_RAW_BYTES if declared_over else limit  # a declared oversize: read only a sample
    chunks: list[bytes] = []
    total = 0
    async for chunk in request.content.iter_chunked(_CHUNK):
        chunks.append(chunk)
        total += len(chunk)
        if total > keep:
            return b"".join(chunks), True
    return b"".join(chunks), declared_over


async def health(request: web.Request) -> web.Response:
    ingestor = request.app[INGESTOR]
    kafka = await asyncio.get_running_loop().run_in_executor(None, ingestor.sink.health)
    ok = bool(kafka.get("ok"))
    return _json({"status": "ok" if ok else "degraded", "kafka": kafka}, status=200 if ok else 503)


async def metrics(request: web.Request) -> web.Response:
    app = request.app
    return _json({**app[INGESTOR].metrics(), "uptime_s": round(time.monotonic() - app[STARTED], 3)})


def serve(ingestor: Ingestor, host: str = "127.0.0.1", port: int = 8077) -> None:
    """Run the endpoint until SIGINT/SIGTERM, then finish the batch in progress and flush."""
    web.run_app(
        make_app(ingestor),
        host=host,
        port=port,
        print=lambda line: log.info("%s", line),
        shutdown_timeout=ingestor_shutdown_timeout(ingestor),
        access_log=None,
    )


def ingestor_shutdown_timeout(ingestor: Ingestor) -> float:
    """Long enough for a batch in progress to be confirmed (or fail) before the exit."""
    settings = getattr(ingestor.sink, "settings", None)
    delivery = float(getattr(settings, "delivery_timeout_s", 30.0))
    return delivery + 10
