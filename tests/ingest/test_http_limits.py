"""The HTTP endpoint's limits, over real sockets (memory sink, no Kafka): slow and short
requests timed out, connections bounded, the work queue bounded (503 ``Retry-After``),
compressed bodies limited once decompressed, hostile bodies answered 400, never 500."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gzip
import json
import threading
import time
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import pytest

from tablewatch.ingest.batch import Accepted, Limits
from tablewatch.ingest.http_server import Served, _Inflater, start
from tablewatch.ingest.limits import ServerLimits
from tablewatch.ingest.service import Ingestor
from tablewatch.ingest.sink import Delivery, MemorySink
from tablewatch.topics import DeadLetter
from tests.ingest.events import array, edited, table_events

FAST = ServerLimits(header_timeout_s=0.5, body_timeout_s=0.5)


class GatedSink(MemorySink):
    """A memory sink whose deliveries wait until ``gate`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.started = threading.Event()

    def deliver(self, events: Sequence[Accepted], letters: Sequence[DeadLetter]) -> Delivery:
        self.started.set()
        self.gate.wait(10)
        return super().deliver(events, letters)


@asynccontextmanager
async def serving(
    sink: MemorySink, limits: ServerLimits = FAST, body: Limits | None = None
) -> AsyncIterator[Served]:
    served = await start(Ingestor(sink, limits=body or Limits()), "127.0.0.1", 0, limits)
    try:
        yield served
    finally:
        if isinstance(sink, GatedSink):
            sink.gate.set()
        await served.close()


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(scenario(), 60))


async def exchange(served: Served, data: bytes, wait: float = 5.0) -> tuple[float, bytes]:
    """Send ``data`` on a new connection, read until the server closes it (or ``wait``):
    the seconds it took and what came back."""
    assert served.site.bound is not None
    reader, writer = await asyncio.open_connection(*served.site.bound)
    started = time.monotonic()
    writer.write(data)
    await writer.drain()
    got = b""
    try:
        while piece := await asyncio.wait_for(reader.read(65536), wait):
            got += piece
    except TimeoutError:
        got += b"<still open>"
    finally:
        writer.close()
    return time.monotonic() - started, got


async def post(
    served: Served, body: bytes | Any, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], dict[str, Any]]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{served.url}/events", data=body, headers=headers) as response,
    ):
        return response.status, dict(response.headers), await response.json()


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0


# ---- slow or short requests ------------------------------------------------------------


@pytest.mark.parametrize(
    "sent",
    [
        b"",  # connects and says nothing
        b"POST /events HT",  # half a request line
        b"POST /events HTTP/1.1\r\nHost: x\r\nContent-Le",  # headers never finished
    ],
)
def test_a_connection_idle_or_slow_with_its_headers_is_closed(sent: bytes) -> None:
    async def scenario() -> None:
        async with serving(MemorySink()) as served:
            seconds, answer = await exchange(served, sent)
            assert answer == b"", "closed without an answer"
            assert 0.3 < seconds < 2.5

    run(scenario)


def test_headers_trickled_slowly_are_cut_off() -> None:
    async def scenario() -> None:
        async with serving(MemorySink()) as served:
            assert served.site.bound is not None
            reader, writer = await asyncio.open_connection(*served.site.bound)

            async def trickle() -> None:
                with contextlib.suppress(ConnectionError):
                    for byte in b"POST /events HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200:
                        writer.write(bytes([byte]))
                        await writer.drain()
                        await asyncio.sleep(0.02)

            sending = asyncio.create_task(trickle())
            started = time.monotonic()
            assert await asyncio.wait_for(reader.read(), 5) == b""
            assert time.monotonic() - started < 2.5, "closed while the client still sends"
            assert not sending.done()
            sending.cancel()
            writer.close()

    run(scenario)


@pytest.mark.parametrize(
    "sent",
    [
        b"POST /events HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n[" + b" " * 400,
        b"POST /events HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n",
        b"POST /events HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n[    \r\n",
    ],
)
def test_a_short_body_is_answered_408_and_closed(sent: bytes) -> None:
    async def scenario() -> None:
        sink = MemorySink()
        async with serving(sink) as served:
            seconds, answer = await exchange(served, sent)
            assert status_of(answer) == 408
            assert b'"kind":"timeout"' in answer and b"Connection: close" in answer
            assert seconds < 2.5, "answered at the body timeout, not held"
            assert sink.events == [] and sink.letters == []
            metrics = await metrics_of(served)
            assert metrics["refused_timeout"] == 1

    run(scenario)


def test_a_body_trickled_slowly_is_cut_off_at_the_body_timeout() -> None:
    async def scenario() -> None:
        sink = MemorySink()
        async with serving(sink) as served:

            async def slow() -> AsyncIterator[bytes]:
                for _ in range(100):
                    yield b" "
                    await asyncio.sleep(0.05)

            started = time.monotonic()
            try:
                status, _, reply = await post(served, slow())
                assert (status, reply["kind"]) == (408, "timeout")
            except aiohttp.ClientError:
                pass  # closed while the client was still sending
            assert time.monotonic() - started < 3
            assert sink.events == []
            assert (await metrics_of(served))["refused_timeout"] == 1

    run(scenario)


async def metrics_of(served: Served) -> dict[str, Any]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{served.url}/metrics") as response,
    ):
        metrics: dict[str, Any] = await response.json()
        return metrics


# ---- the connection limit --------------------------------------------------------------


def test_connections_over_the_limit_are_answered_503_and_closed() -> None:
    async def scenario() -> None:
        limits = ServerLimits(max_connections=3, header_timeout_s=5)
        async with serving(MemorySink(), limits) as served:
            assert served.site.bound is not None
            held = [await asyncio.open_connection(*served.site.bound) for _ in range(3)]
            await asyncio.sleep(0.1)
            for _ in range(2):
                seconds, answer = await exchange(served, b"GET /metrics HTTP/1.1\r\n\r\n")
                assert status_of(answer) == 503
                assert b"Retry-After: 1" in answer and b"3 connections are open" in answer
                assert seconds < 2
            for _, writer in held:
                writer.close()
            await asyncio.sleep(0.2)
            status, _, reply = await post(served, array(table_events("T-1")))
            assert (status, reply["accepted"]) == (200, 5), "served again once some closed"
            metrics = await metrics_of(served)
            assert metrics["connections_refused"] == 2
            assert served.site.open <= 1

    run(scenario)


# ---- the work queue --------------------------------------------------------------------


def test_batches_over_the_queue_are_answered_503_at_once() -> None:
    async def scenario() -> None:
        sink = GatedSink()
        limits = ServerLimits(max_waiting=2, wait_timeout_s=30)
        async with serving(sink, limits) as served:
            first = asyncio.create_task(post(served, array(table_events("Q-0"))))
            await asyncio.get_running_loop().run_in_executor(None, sink.started.wait, 5)
            waiting = [
                asyncio.create_task(post(served, array(table_events(f"Q-{i}")))) for i in (1, 2)
            ]
            await asyncio.sleep(0.2)
            started = time.monotonic()
            refused = await asyncio.gather(
                *(post(served, array(table_events(f"Q-{i}"))) for i in range(3, 8))
            )
            assert time.monotonic() - started < 2, "not held while the queue is full"
            for status, headers, reply in refused:
                assert status == 503 and headers["Retry-After"] == "1"
                assert reply["kind"] == "busy"
            sink.gate.set()
            answers = [await first, *[await task for task in waiting]]
            assert [status for status, _, _ in answers] == [200, 200, 200]
            stored = {key for key, _ in sink.events}
            assert stored == {b"Q-0", b"Q-1", b"Q-2"}, "nothing refused was produced"
            assert (await metrics_of(served))["refused_busy"] == 5
            status, _, reply = await post(served, array(table_events("Q-5")))
            assert (status, reply["accepted"]) == (200, 5), "the client's retry succeeds"

    run(scenario)


def test_a_batch_that_waits_too_long_is_answered_503_and_not_produced() -> None:
    async def scenario() -> None:
        sink = GatedSink()
        limits = ServerLimits(max_waiting=8, wait_timeout_s=0.5)
        async with serving(sink, limits) as served:
            first = asyncio.create_task(post(served, array(table_events("W-0"))))
            await asyncio.get_running_loop().run_in_executor(None, sink.started.wait, 5)
            started = time.monotonic()
            late = await asyncio.gather(
                *(post(served, array(table_events(f"W-{i}"))) for i in (1, 2, 3))
            )
            assert 0.4 < time.monotonic() - started < 2.5
            assert [(s, h["Retry-After"]) for s, h, _ in late] == [(503, "1")] * 3
            assert all("no turn within 0.5 s" in reply["error"] for _, _, reply in late)
            sink.gate.set()
            assert (await first)[0] == 200
            assert {key for key, _ in sink.events} == {b"W-0"}

    run(scenario)


# ---- compressed bodies -----------------------------------------------------------------


@functools.cache
def _bomb(megabytes: int) -> bytes:
    """A gzip stream of a JSON array holding ``megabytes`` MiB of spaces: one member up to
    64 MiB, else one member per MiB (as quick to make, as valid)."""
    if megabytes > 64:
        spaces = gzip.compress(b" " * (1 << 20), 9)
        return gzip.compress(b"[") + spaces * megabytes + gzip.compress(b"]")
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    parts = [compressor.compress(b"[")]
    block = b" " * (1 << 20)
    parts.extend(compressor.compress(block) for _ in range(megabytes))
    parts += [compressor.compress(b"]"), compressor.flush()]
    return b"".join(parts)


@pytest.mark.parametrize(
    ("coding", "compress"),
    [
        ("gzip", gzip.compress),
        ("x-gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("GZip", gzip.compress),
        ("gzip", lambda body: gzip.compress(body[:50]) + gzip.compress(body[50:])),  # 2 members
    ],
)
def test_compressed_bodies_are_accepted(coding: str, compress: Callable[[bytes], bytes]) -> None:
    async def scenario() -> None:
        sink = MemorySink()
        events = table_events("Z-1", rounds=2)
        async with serving(sink) as served:
            status, _, reply = await post(
                served, compress(array(events)), {"Content-Encoding": coding}
            )
            assert (status, reply["accepted"]) == (200, len(events))
            assert [value for _, value in sink.events] == events, "the decompressed bytes"

    run(scenario)


@pytest.mark.parametrize("megabytes", [2, 64, 900])
@pytest.mark.parametrize("chunked", [False, True])
def test_a_gzip_bomb_is_refused_quickly(megabytes: int, chunked: bool) -> None:
    bomb = _bomb(megabytes)
    assert len(bomb) < 1 << 20, "small enough to be read whole"

    async def scenario() -> None:
        sink = MemorySink()
        async with serving(sink) as served:

            async def pieces() -> AsyncIterator[bytes]:
                for start in range(0, len(bomb), 16384):
                    yield bomb[start : start + 16384]

            started = time.monotonic()
            status, _, reply = await post(
                served, pieces() if chunked else bomb, {"Content-Encoding": "gzip"}
            )
            assert time.monotonic() - started < 2
            assert status == 413
            assert reply == {
                "error": "body of more than 1,048,576 bytes once decompressed (gzip) exceeds"
                " 1,048,576 bytes",
                "kind": "oversized",
            }
            assert sink.events == []
            letter = json.loads(sink.letters[0].value)
            assert letter["reason"].startswith("oversized: body of more than")

    run(scenario)


def test_the_inflater_never_holds_more_than_the_limit() -> None:
    bomb = _bomb(64)
    inflater = _Inflater("gzip", 4096)
    out = sum(len(inflater.feed(bomb[i : i + 1024])) for i in range(0, len(bomb), 1024))
    assert out == 4097, "one byte over the limit, then nothing more is decompressed"


def test_the_limit_applies_to_the_decompressed_size() -> None:
    async def scenario() -> None:
        body = b"[" + b" " * 4094 + b"]"  # 4,096 bytes
        async with serving(MemorySink(), body=Limits(max_body_bytes=4096)) as served:
            status, _, reply = await post(served, gzip.compress(body), {"Content-Encoding": "gzip"})
            assert (status, reply["accepted"]) == (200, 0)
            status, _, reply = await post(
                served, gzip.compress(body + b" "), {"Content-Encoding": "gzip"}
            )
            assert status == 413

    run(scenario)


@pytest.mark.parametrize(
    ("body", "coding", "status", "words"),
    [
        (b"[]", "br", 415, "Content-Encoding 'br' is not supported"),
        (b"[]", "gzip, gzip", 415, "not supported"),
        (b"not gzip at all", "gzip", 400, "bad gzip data"),
        (gzip.compress(b"[]" * 1000)[:-12], "gzip", 400, "the stream ends early"),
        (gzip.compress(b"[]") + b"junk", "gzip", 400, "bad gzip data"),
        (zlib.compress(b"[]") + b"junk", "deflate", 400, "bad deflate data"),
    ],
)
def test_bad_or_unknown_compression_is_refused(
    body: bytes, coding: str, status: int, words: str
) -> None:
    async def scenario() -> None:
        sink = MemorySink()
        async with serving(sink) as served:
            got, _, reply = await post(served, body, {"Content-Encoding": coding})
            assert got == status
            assert words in reply["error"]
            assert sink.events == []
            assert json.loads(sink.letters[0].value)["reason"].startswith("malformed: ")

    run(scenario)


# ---- hostile bodies: answered, never a 500 -----------------------------------------------

DEEP = 100_000


@pytest.mark.parametrize(
    ("body", "status"),
    [
        (b"[" * DEEP + b"]" * DEEP, 400),
        (b"[" + b'{"a":' * DEEP + b"1" + b"}" * DEEP + b"]", 400),
        (b"[" + b"[" * DEEP + b"]" * DEEP + b"]", 400),
        (b'[{"event_id":' + b"[" * DEEP + b"]" * DEEP + b"}]", 400),
        (b"[" + b"[" * 500 + b"]" * 500 + b"]", 200),  # deep, not too deep: one bad item
        (b"{" * DEEP, 400),
        (b"[\xff\xfe]", 400),
        (b'["\\ud800"]', 400),
        (b"[" + b"9" * 100_000 + b"]", 200),
    ],
)
def test_hostile_bodies_are_answered_not_500(body: bytes, status: int) -> None:
    async def scenario() -> None:
        sink = MemorySink()
        async with serving(sink) as served:
            got, _, reply = await post(served, body)
            assert got == status
            if status == 200:
                assert reply["accepted"] == 0 and reply["rejected"] == 1
                assert reply["results"][0]["reason"]
            else:
                assert reply["kind"] == "malformed"
                if body.startswith(b"[["):
                    assert "nested too deeply" in reply["error"]
            assert sink.events == []

    run(scenario)


def test_items_out_of_the_protocols_ranges_are_rejected_with_field_and_reason() -> None:
    good = table_events("R-1")
    items = [
        edited(good[0], seq=2**64),
        edited(good[1], seq=0),
        edited(good[2], amount=2**63),
        edited(good[3], ts="2200-01-01T00:00:00.000Z"),
        edited(good[4], table_id="R-1\u0007"),
        edited(good[4], event_id="x" * 65),
        good[2].replace(b'"amount":2500', b'"amount":2500,"amount":1'),
        good[3],
    ]
    assert items[6] != good[2]

    async def scenario() -> None:
        sink = MemorySink()
        async with serving(sink) as served:
            status, _, reply = await post(served, array(items))
            assert status == 200
            rows = [(r["status"], r["field"]) for r in reply["results"]]
            assert rows == [
                ("rejected", "seq"),
                ("rejected", "seq"),
                ("rejected", "amount"),
                ("rejected", "ts"),
                ("rejected", "table_id"),
                ("rejected", "event_id"),
                ("rejected", "amount"),
                ("accepted", None),
            ]
            reasons = [r["reason"] for r in reply["results"][:7]]
            assert "below 2^53" in reasons[0] and "at least 1" in reasons[1]
            assert "whole cents below 2^53" in reasons[2]
            assert "year 2200 is outside 2000 to 2199" in reasons[3]
            assert "not a printable character" in reasons[4]
            assert "longer than 64 characters" in reasons[5]
            assert "key `amount` given twice" in reasons[6]
            assert [value for _, value in sink.events] == [good[3]]
            assert len(sink.letters) == 7

    run(scenario)
