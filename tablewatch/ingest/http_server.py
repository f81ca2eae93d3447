"""The HTTP ingest endpoint (aiohttp): controllers POST JSON arrays of events.

- ``POST /events``: body = JSON array of protocol events. 200 with per-item
  results; 400 malformed body; 408 body not received in time; 413 oversized
  body; 415 a Content-Encoding other than gzip or deflate; 503 Kafka did not
  confirm, or the server is busy (send the same batch again: what was delivered
  comes back ``duplicate``).
- ``GET /health``: 200 ``{"status": "ok", "kafka": {...}}``, 503 ``degraded``
  when no bootstrap server answers.
- ``GET /metrics``: counters as JSON.

Batches are validated and produced in one worker thread, one batch at a time
(:class:`~tablewatch.ingest.service.Ingestor`), so the event loop stays free
and batches reach Kafka in the order they were read. Shutdown waits for the
batch in progress and flushes the producer.

What a client can hold, and for how long, is bounded (:class:`ServerLimits`):
open connections (one more is answered 503 and closed), the time to send the
request line and headers (and to stay idle between requests), the time to send
a body, the batches waiting for the worker thread and how long each may wait
(503 ``Retry-After`` rather than an answer after the client gave up), and the
size of a body once decompressed (gzip and deflate are decompressed here, a
piece at a time, never more than the limit: a gzip bomb is refused after 1 MiB
of output, in bounded memory).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import time
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

import msgspec
from aiohttp import web

from tablewatch.ingest.batch import BodyRefused, result_row
from tablewatch.ingest.limits import DEFAULT_SERVER_LIMITS, MAX_CONNECTIONS, ServerLimits
from tablewatch.ingest.service import DeliveryFailed, Ingestor
from tablewatch.topics import DLQ_RAW_BYTES

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(slots=True)
class HttpCounters:
    refused_busy: int = 0  # POSTs answered 503 because the work queue was full or slow
    refused_timeout: int = 0  # bodies not received within body_timeout_s (408)
    connections_refused: int = 0  # connections over max_connections (503, closed)


INGESTOR = web.AppKey("ingestor", Ingestor)
EXECUTOR = web.AppKey("executor", ThreadPoolExecutor)
STARTED = web.AppKey("started", float)
CLOSE_SINK = web.AppKey("close_sink", bool)
LIMITS = web.AppKey("limits", ServerLimits)
COUNTERS = web.AppKey("counters", HttpCounters)
# True when the runner leaves bodies compressed (make_runner): this app decompresses them
OWN_DECOMPRESSION = web.AppKey("own_decompression", bool)

_ENCODER = msgspec.json.Encoder()
_CHUNK = 64 * 1024
_RETRY = {"Retry-After": "1"}


class Busy(Exception):
    """No turn for a batch: too many wait already, or the wait was too long."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class WorkQueue:
    """The batches waiting for the one ingest thread, served in the order they came.

    At most ``max_waiting`` wait (besides the one in progress), each at most
    ``wait_timeout_s``: past either, :class:`Busy`, and the client is told to come
    back rather than kept waiting past its own timeout.
    """

    def __init__(self, executor: ThreadPoolExecutor, max_waiting: int, wait_timeout_s: float):
        self._executor = executor
        self._lock = asyncio.Lock()  # FIFO: turns in arrival order
        self.max_waiting = max_waiting
        self.wait_timeout_s = wait_timeout_s
        self.waiting = 0

    def full(self) -> bool:
        return self.waiting >= self.max_waiting

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in the ingest thread once it is this batch's turn."""
        if self.full():
            raise Busy(f"{self.waiting} batches are already waiting")
        self.waiting += 1
        try:
            async with asyncio.timeout(self.wait_timeout_s):
                await self._lock.acquire()
        except TimeoutError:
            raise Busy(f"no turn within {self.wait_timeout_s:g} s") from None
        finally:
            self.waiting -= 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, work, *args)
        finally:
            self._lock.release()


QUEUE = web.AppKey("queue", WorkQueue)


def make_app(
    ingestor: Ingestor, *, close_sink: bool = True, limits: ServerLimits = DEFAULT_SERVER_LIMITS
) -> web.Application:
    """The ingest application; ``close_sink``: flush and close the sink on cleanup.

    Serve it with :func:`start` (or :func:`make_runner` and a :class:`LimitedSite`):
    those apply the connection limit and the header timeout, and leave compressed
    bodies for the app to decompress within its limit.
    """
    app = web.Application()
    app[INGESTOR] = ingestor
    app[CLOSE_SINK] = close_sink
    app[LIMITS] = limits
    app[COUNTERS] = HttpCounters()
    app[OWN_DECOMPRESSION] = False
    app.router.add_post("/events", post_events)
    app.router.add_get("/health", health)
    app.router.add_get("/metrics", metrics)
    app.on_startup.append(_start)
    app.on_cleanup.append(_cleanup)
    return app


def make_runner(app: web.Application, shutdown_timeout: float = 40.0) -> web.AppRunner:
    """A runner for :func:`make_app`'s application with its limits: connections idle
    or sending their headers for ``header_timeout_s`` are closed, and bodies reach
    the app compressed (it decompresses them within its size limit)."""
    app[OWN_DECOMPRESSION] = True
    return web.AppRunner(
        app,
        shutdown_timeout=shutdown_timeout,
        access_log=None,
        # aiohttp's keep-alive timer runs from the connection's start, and from each
        # answer, to the end of the next request's headers: the header timeout
        keepalive_timeout=app[LIMITS].header_timeout_s,
        auto_decompress=False,
    )


async def _start(app: web.Application) -> None:
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ingest")
    app[EXECUTOR] = executor
    limits = app[LIMITS]
    app[QUEUE] = WorkQueue(executor, limits.max_waiting, limits.wait_timeout_s)
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


def _busy(app: web.Application, reason: str) -> web.Response:
    app[COUNTERS].refused_busy += 1
    return _json(
        {"error": f"busy, send the batch again later: {reason}", "kind": "busy"},
        status=503,
        headers={**_RETRY, "Connection": "close"},
    )


async def post_events(request: web.Request) -> web.Response:
    app = request.app
    ingestor = app[INGESTOR]
    queue = app[QUEUE]
    limits = app[LIMITS]
    source = f"http {request.remote or '-'}"
    limit = ingestor.limits.max_body_bytes

    if queue.full():  # answered before the body is read: nothing held
        return _busy(app, f"{queue.waiting} batches are already waiting")
    try:
        async with asyncio.timeout(limits.body_timeout_s):
            body, over = await _read_body(request, limit, app[OWN_DECOMPRESSION])
    except TimeoutError:
        app[COUNTERS].refused_timeout += 1
        response = _json(
            {"error": f"body not received within {limits.body_timeout_s:g} s", "kind": "timeout"},
            status=408,
            headers={"Connection": "close"},
        )
        await response.prepare(request)
        await response.write_eof()
        if request.transport is not None:  # no lingering to read the rest of a slow body
            request.transport.close()
        return response
    except BodyRefused as refused:  # bad compressed data or an unsupported Content-Encoding
        try:
            await queue.run(ingestor.refuse_body, refused, b"", source)
        except Busy as busy:
            return _busy(app, busy.reason)
        status = 415 if isinstance(refused, UnsupportedEncoding) else 400
        return _json(
            {"error": refused.reason, "kind": refused.kind},
            status=status,
            headers={"Connection": "close"},
        )
    try:
        if over is not None:
            oversized = BodyRefused("oversized", over)
            size = request.content_length if not _compressed(request) else None
            await queue.run(ingestor.refuse_body, oversized, body[:DLQ_RAW_BYTES], source, size)
            return _json(
                {"error": oversized.reason, "kind": oversized.kind},
                status=413,
                headers={"Connection": "close"},
            )
        batch = await queue.run(ingestor.ingest_body, body, source)
    except Busy as busy:
        return _busy(app, busy.reason)
    except BodyRefused as refused:
        status = 413 if refused.kind == "oversized" else 400
        return _json({"error": refused.reason, "kind": refused.kind}, status=status)
    except DeliveryFailed as failed:
        return _json(
            {"error": f"not stored, send the batch again: {failed.reason}"},
            status=503,
            headers=_RETRY,
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


def _compressed(request: web.Request) -> bool:
    return request.headers.get("Content-Encoding", "").strip().lower() not in ("", "identity")


async def _read_body(
    request: web.Request, limit: int, decompress: bool
) -> tuple[bytes, str | None]:
    """The body, decompressed (when ``decompress``: else aiohttp did), and None; or its
    first part and why it exceeds ``limit`` bytes, once that is known. Raises
    :class:`BodyRefused` for a Content-Encoding other than gzip or deflate, or
    compressed data that does not decompress, whoever decompresses it: aiohttp does under
    a plain runner, and then tells the handler with a ``RequestPayloadError``."""
    try:
        return await _read_decompressed(request, limit, decompress)
    except web.RequestPayloadError as exc:
        _Inflater.of(request, limit)  # an encoding other than gzip or deflate: 415
        coding = request.headers.get("Content-Encoding", "").strip().lower()
        what = f"{coding} data" if coding not in ("", "identity") else "body"
        lines = str(exc).strip().splitlines()  # "400, message:\n  Can not decode ..."
        detail = lines[-1].strip() if lines else type(exc).__name__
        raise BodyRefused("malformed", f"bad {what}: {detail}") from None


async def _read_decompressed(
    request: web.Request, limit: int, decompress: bool
) -> tuple[bytes, str | None]:
    inflater = _Inflater.of(request, limit) if decompress else None
    size = request.content_length
    if size is not None and size > limit:  # a declared oversize: read only a sample
        parts: list[bytes] = []
        kept = 0
        async for chunk in request.content.iter_chunked(_CHUNK):
            parts.append(chunk)
            kept += len(chunk)
            if kept > DLQ_RAW_BYTES:
                break
        sample = b"".join(parts)
        if inflater is not None:
            with contextlib.suppress(BodyRefused):  # else the sample as sent
                sample = inflater.feed(sample)[:DLQ_RAW_BYTES]
        return sample, f"body of {size:,} bytes exceeds {limit:,} bytes"
    chunks: list[bytes] = []
    total = 0  # bytes of the body (decompressed)
    sent = 0  # bytes as sent
    async for chunk in request.content.iter_chunked(_CHUNK):
        sent += len(chunk)
        if inflater is not None:
            chunk = inflater.feed(chunk)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit or sent > limit:
            how = f" once decompressed ({inflater.coding})" if inflater is not None else ""
            why = f"body of more than {limit:,} bytes{how} exceeds {limit:,} bytes"
            return b"".join(chunks), why
    if inflater is not None:
        inflater.finish()
    return b"".join(chunks), None


class UnsupportedEncoding(BodyRefused):
    """A body in a Content-Encoding other than gzip or deflate (415)."""


_WBITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


class _Inflater:
    """Decompresses a body as it arrives, never more than ``limit + 1`` bytes in all:
    each piece of input gives at most what is left of the limit (``max_length``), so
    memory and time stay bounded whatever the ratio."""

    def __init__(self, coding: str, limit: int) -> None:
        self.coding = coding
        self._wbits = _WBITS[coding]
        self._decompressor = zlib.decompressobj(self._wbits)
        self._limit = limit
        self._out = 0

    @classmethod
    def of(cls, request: web.Request, limit: int) -> _Inflater | None:
        coding = request.headers.get("Content-Encoding", "").strip().lower()
        if coding in ("", "identity"):
            return None
        if coding not in _WBITS:
            raise UnsupportedEncoding(
                "malformed",
                f"Content-Encoding {coding[:40]!r} is not supported: send the body as is,"
                " gzip or deflate",
            )
        return cls(coding, limit)

    def feed(self, data: bytes) -> bytes:
        pieces = []
        try:
            while data and self._out <= self._limit:
                piece = self._decompressor.decompress(data, self._limit + 1 - self._out)
                self._out += len(piece)
                pieces.append(piece)
                if self._decompressor.eof:  # one gzip member done; another may follow
                    data = self._decompressor.unused_data
                    if data:
                        if self.coding == "deflate":
                            raise zlib.error("data after the end of the stream")
                        self._decompressor = zlib.decompressobj(self._wbits)
                else:
                    data = self._decompressor.unconsumed_tail
        except zlib.error as exc:
            raise BodyRefused("malformed", f"bad {self.coding} data: {exc}") from None
        return b"".join(pieces)

    def finish(self) -> None:
        if not self._decompressor.eof:
            raise BodyRefused("malformed", f"bad {self.coding} data: the stream ends early")


async def health(request: web.Request) -> web.Response:
    ingestor = request.app[INGESTOR]
    kafka = await asyncio.get_running_loop().run_in_executor(None, ingestor.sink.health)
    ok = bool(kafka.get("ok"))
    return _json({"status": "ok" if ok else "degraded", "kafka": kafka}, status=200 if ok else 503)


async def metrics(request: web.Request) -> web.Response:
    app = request.app
    return _json(
        {
            **app[INGESTOR].metrics(),
            **asdict(app[COUNTERS]),
            "queue_waiting": app[QUEUE].waiting,
            "uptime_s": round(time.monotonic() - app[STARTED], 3),
        }
    )


# ---- serving: the connection limit --------------------------------------------------


class LimitedSite(web.BaseSite):
    """A TCP site that keeps at most ``max_connections`` connections open: one more is
    answered ``503`` with ``Retry-After`` and closed (after reading, for at most a
    second, what the client is still sending, so that it sees the answer)."""

    def __init__(
        self,
        runner: web.AppRunner,
        host: str,
        port: int,
        *,
        max_connections: int = MAX_CONNECTIONS,
        counters: HttpCounters | None = None,
        backlog: int = 128,
    ) -> None:
        super().__init__(runner, backlog=backlog)
        self._app_runner = runner
        self._host = host
        self._port = port
        self.max_connections = max_connections
        self.counters = counters if counters is not None else HttpCounters()
        self.open = 0
        self.bound: tuple[str, int] | None = None

    @property
    def name(self) -> str:
        host, port = self.bound or (self._host, self._port)
        return f"http://{host}:{port}"

    async def start(self) -> None:
        await super().start()
        server = self._app_runner.server
        assert server is not None

        def connection() -> asyncio.BaseProtocol:
            if self.open >= self.max_connections:
                self.counters.connections_refused += 1
                return _Refused(self.max_connections)
            self.open += 1
            return _Counted(server(), self)

        loop = asyncio.get_running_loop()
        listening = await loop.create_server(
            connection, self._host, self._port, backlog=self._backlog
        )
        self._server = listening
        self.bound = listening.sockets[0].getsockname()[:2] if listening.sockets else None

    def closed_one(self) -> None:
        self.open -= 1


class _Counted(asyncio.Protocol):
    """aiohttp's protocol for one connection, counted while it is open."""

    def __init__(self, inner: asyncio.Protocol, site: LimitedSite) -> None:
        self._inner = inner
        self._site: LimitedSite | None = site

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self._inner.eof_received()

    def pause_writing(self) -> None:
        self._inner.pause_writing()

    def resume_writing(self) -> None:
        self._inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._site is not None:
            self._site.closed_one()
            self._site = None
        self._inner.connection_lost(exc)


class _Refused(asyncio.Protocol):
    """A connection over the limit: a 503, then closed."""

    def __init__(self, limit: int) -> None:
        body = _ENCODER.encode(
            {"error": f"busy: {limit:,} connections are open, try again", "kind": "busy"}
        )
        self._answer = (
            b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
            b"Retry-After: 1\r\nConnection: close\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
        )

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.write(self._answer)
        if transport.can_write_eof():
            transport.write_eof()
        asyncio.get_running_loop().call_later(1.0, transport.close)

    def data_received(self, data: bytes) -> None:
        pass  # the request is not read

    def eof_received(self) -> bool:
        return False  # the client is done: close


@dataclass
class Served:
    """A running endpoint: :func:`start`'s result."""

    runner: web.AppRunner
    site: LimitedSite
    app: web.Application = field(repr=False)

    @property
    def url(self) -> str:
        return self.site.name

    async def close(self) -> None:
        """Stop accepting, finish the batch in progress, flush and close the sink."""
        await self.runner.cleanup()


async def start(
    ingestor: Ingestor,
    host: str = "127.0.0.1",
    port: int = 8077,
    limits: ServerLimits = DEFAULT_SERVER_LIMITS,
    *,
    close_sink: bool = True,
) -> Served:
    """Serve the endpoint on ``host:port`` (0: any free port) with ``limits``."""
    app = make_app(ingestor, close_sink=close_sink, limits=limits)
    runner = make_runner(app, shutdown_timeout=ingestor_shutdown_timeout(ingestor))
    await runner.setup()
    site = LimitedSite(
        runner, host, port, max_connections=limits.max_connections, counters=app[COUNTERS]
    )
    await site.start()
    return Served(runner, site, app)


def serve(
    ingestor: Ingestor,
    host: str = "127.0.0.1",
    port: int = 8077,
    limits: ServerLimits = DEFAULT_SERVER_LIMITS,
) -> None:
    """Run the endpoint until SIGINT/SIGTERM, then finish the batch in progress and flush."""

    async def main() -> None:
        served = await start(ingestor, host, port, limits)
        log.info("serving on %s", served.url)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        try:
            await stop.wait()
        finally:
            await served.close()

    asyncio.run(main())


def ingestor_shutdown_timeout(ingestor: Ingestor) -> float:
    """Long enough for a batch in progress to be confirmed (or fail) before the exit."""
    settings = getattr(ingestor.sink, "settings", None)
    delivery = float(getattr(settings, "delivery_timeout_s", 30.0))
    return delivery + 10
