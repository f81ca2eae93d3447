"""Fuzzing ``POST /events`` in process: aiohttp's test client against the application, its
sink a :class:`MemorySink` (no Kafka).

Two servers: ``own``, the application as ``serve-ingest`` serves it (``make_runner``: it
decompresses bodies itself, within the body limit), and ``plain``, a plain aiohttp runner
(aiohttp decompresses), as ``tests/ingest`` test it. Bodies: arbitrary bytes, mutated
batches of valid events, compressed (gzip, x-gzip, deflate; bombs; truncated, corrupted,
mislabelled), under any Content-Type and Content-Encoding, sent whole or chunked.

What must hold for every request:

- the status is 200, 400, 413 or 415 (never 500), with a JSON body; own decompression
  answers 415 for an encoding other than gzip, x-gzip or deflate, 413 for a bomb and for a
  body over the limit;
- a refused body (400, 413, 415) has an ``error`` and a ``kind``, nothing of it is
  produced, and it leaves one dead letter;
- a 200 has one result per item, in order; a rejected item has a reason, and is exactly an
  item the decoder refuses (or one over the per-event limit); an accepted one is produced
  as its bytes exactly; a valid event is never rejected; the counts add up, and the sink
  holds one event per accepted item and one dead letter per rejected one.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import logging
import time
import zlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import msgspec
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import strategies as st

from tablewatch.ingest.batch import Limits, SeenWindow
from tablewatch.ingest.http_server import make_app, make_runner
from tablewatch.ingest.limits import ServerLimits
from tablewatch.ingest.service import Ingestor
from tablewatch.ingest.sink import MemorySink
from tablewatch.rules.decode import EventRejected, decode_event
from tests.fuzz.corpus import valid_raws, valid_set
from tests.fuzz.decoder import (
    any_bytes,
    generated_objects,
    mutated_bytes,
    mutated_objects,
    pool,
    value_texts,
)
from tests.fuzz.tally import Tally

# Small limits, so that the fuzzer reaches them often: 64 KiB a body, 50 events, 8 KiB an event.
LIMITS = Limits(max_body_bytes=64 * 1024, max_events=50, max_event_bytes=8 * 1024)
SUPPORTED = ("gzip", "x-gzip", "deflate")
MODES = ("own", "plain")
# For raw requests, whose bodies may be shorter than they say: such a one costs a second.
SHORT_BODY_TIMEOUT = ServerLimits(body_timeout_s=1.0)
# For whole bodies: no 408 from a loaded machine, and a body aiohttp never ends (see
# _check_reply) costs 5 s, well within the client's 30.
BODY_TIMEOUT = ServerLimits(body_timeout_s=5.0)
_QUIET = ("aiohttp.server", "aiohttp.web", "aiohttp.access", "asyncio")


class ProductServer(TestServer):
    """The application behind the runner ``serve-ingest`` uses (:func:`make_runner`)."""

    async def _make_runner(self, **kwargs: Any) -> web.AppRunner:
        return make_runner(self.app)


@dataclass(frozen=True)
class Post:
    """One request: its body as sent, and what the fuzzer knows of it."""

    mode: str  # "own" or "plain"
    body: bytes  # as sent
    plain: bytes | None  # the body once decompressed, when the fuzzer knows it
    encoding: str | None  # the Content-Encoding header, if any
    content_type: str | None
    pieces: int  # 0: sent with a Content-Length; else in this many chunks
    kind: str  # what the body is: "batch", "bytes", "bomb", "corrupt", ...

    def __repr__(self) -> str:  # what Hypothesis prints for a failing example
        body = self.body if len(self.body) <= 300 else self.body[:300] + b"..."
        return (
            f"Post(mode={self.mode!r}, kind={self.kind!r}, encoding={self.encoding!r}, "
            f"content_type={self.content_type!r}, pieces={self.pieces}, "
            f"bytes={len(self.body)}, body={body!r})"
        )


class HttpHarness:
    """Both servers on one event loop of their own, for as many requests as the fuzzer sends."""

    def __init__(self, limits: Limits = LIMITS, serving: ServerLimits | None = None) -> None:
        self.limits = limits
        # aiohttp logs each request it could not read (the fuzzer sends thousands)
        self._levels = {name: logging.getLogger(name).level for name in _QUIET}
        for name in _QUIET:
            logging.getLogger(name).setLevel(logging.CRITICAL)
        self.loop = asyncio.new_event_loop()
        self.sinks: dict[str, MemorySink] = {}
        self.clients: dict[str, TestClient[Any, Any]] = {}
        for mode in MODES:
            sink = MemorySink()
            ingestor = Ingestor(sink, limits=limits, window=SeenWindow(20_000))
            app = make_app(ingestor, limits=serving or BODY_TIMEOUT)
            server = ProductServer(app) if mode == "own" else TestServer(app)
            self.sinks[mode] = sink
            self.clients[mode] = self.loop.run_until_complete(_started(server))

    def send(self, post: Post) -> tuple[int, bytes]:
        return self.loop.run_until_complete(asyncio.wait_for(self._send(post), 30))

    async def _send(self, post: Post) -> tuple[int, bytes]:
        headers = {}
        if post.encoding is not None:
            headers["Content-Encoding"] = post.encoding
        if post.content_type is not None:
            headers["Content-Type"] = post.content_type
        data: bytes | AsyncIterator[bytes] = post.body
        if post.pieces:
            data = _pieces(post.body, post.pieces)
        client = self.clients[post.mode]
        async with client.post("/events", data=data, headers=headers) as response:
            return response.status, await response.read()

    def exchange(self, mode: str, request: bytes) -> bytes:
        """``request`` as raw bytes on a connection of its own: the status line that came
        back, or ``b""`` when the server closed without one (a body shorter than it said
        is answered 408 after the body timeout)."""
        return self.loop.run_until_complete(self._exchange(mode, request))

    async def _exchange(self, mode: str, request: bytes) -> bytes:
        server = self.clients[mode].server
        assert server.port is not None
        reader, writer = await asyncio.open_connection(server.host, server.port)
        try:
            writer.write(request)
            await writer.drain()
            async with asyncio.timeout(10):
                line = await reader.readline()
                while line.startswith(b"HTTP/1.1 100 "):  # Expect: 100-continue; then the answer
                    line = await reader.readline()
                    if not line.strip():
                        line = await reader.readline()
            return line
        except (ConnectionError, TimeoutError) as exc:
            return f"<{type(exc).__name__}>".encode()
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    def settle(self) -> None:
        """Let what the servers still do for the last request finish."""
        self.loop.run_until_complete(asyncio.sleep(0.05))

    def close(self) -> None:
        try:
            for client in self.clients.values():
                self.loop.run_until_complete(client.close())
            self.loop.run_until_complete(_cancel_the_rest())
        finally:
            self.loop.close()
            for name, level in self._levels.items():
                logging.getLogger(name).setLevel(level)


async def _cancel_the_rest() -> None:
    """Cancel what the servers still run (a handler whose client went away, say)."""
    tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def _started(server: TestServer) -> TestClient[Any, Any]:
    client: TestClient[Any, Any] = TestClient(server)  # made in the loop it runs in
    await client.start_server()
    return client


async def _pieces(body: bytes, count: int) -> AsyncIterator[bytes]:
    step = max(1, -(-len(body) // count))
    for start in range(0, len(body), step):
        yield body[start : start + step]
        await asyncio.sleep(0)


# ---- bodies ---------------------------------------------------------------------------


def _padded(raw: bytes, size: int) -> bytes:
    """A valid event made ``size`` bytes long with whitespace inside it (still valid JSON)."""
    return raw[:1] + b" " * max(0, size - len(raw)) + raw[1:]


_items = st.one_of(
    pool,
    pool,
    pool,
    mutated_objects(),
    mutated_bytes(),
    generated_objects(),
    value_texts.map(lambda text: text.encode("utf-8", "surrogatepass")),
    st.builds(_padded, pool, st.sampled_from([8 * 1024, 8 * 1024 + 1, 20_000])),
)


@st.composite
def batches(draw: st.DrawFn) -> bytes:
    """A JSON array of items (valid events, mutated ones, other JSON), framed well or not."""
    count = draw(st.sampled_from([0, 1, 2, 3, 5, 8, 8, 49, 50, 51]))
    if count >= 49:  # around the limit of events: valid ones, cheap to draw
        start = draw(st.integers(0, len(valid_raws()) - count))
        items = list(valid_raws()[start : start + count])
    else:
        items = [draw(_items) for _ in range(count)]
    separator = draw(st.sampled_from([b",", b",", b", ", b",\n", b" ,\t"]))
    body = b"[" + separator.join(items) + b"]"
    framing = draw(
        st.sampled_from(["ok"] * 10 + ["space", "comma", "open", "nested", "object", "two", "pad"])
    )
    if framing == "space":
        body = b" \n\t" + body + b"\r\n"
    elif framing == "comma":
        body = body[:-1] + b",]"
    elif framing == "open":
        body = body[:-1]
    elif framing == "nested":
        body = b"[" + body + b"]"
    elif framing == "object":
        body = b'{"events":' + body + b"}"
    elif framing == "two":
        body = body + body
    elif framing == "pad":  # past the body limit
        body = body[:-1] + b" " * (LIMITS.max_body_bytes + 1 - len(body)) + b"]"
    return body


plain_bodies = st.one_of(batches(), batches(), any_bytes, st.sampled_from([b"", b"[]", b"[ ]"]))

_OTHER_ENCODINGS = ["identity", "Identity", "", " ", "br", "zstd", "compress", "*", "gzip, gzip"]
_OTHER_ENCODINGS += ["deflate, gzip", "gzip;q=1", "x-deflate", "GZIP ", " Deflate", "chunked"]
_CONTENT_TYPES = [None, "application/json", "application/x-ndjson", "text/plain; charset=utf-16"]
_CONTENT_TYPES += ["multipart/form-data; boundary=x", "application/octet-stream", "", "*/*"]


def _raw_deflate(data: bytes) -> bytes:
    compressor = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush()


def _members(data: bytes) -> bytes:
    half = len(data) // 2
    return gzip.compress(data[:half]) + gzip.compress(data[half:])


_COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": lambda data: gzip.compress(data, 6, mtime=0),
    "gzip-1": lambda data: gzip.compress(data, 1, mtime=0),
    "members": _members,
    "zlib": zlib.compress,
}


def _bomb(megabytes: int) -> bytes:
    """gzip of a JSON array holding ``megabytes`` MiB of spaces (members of 1 MiB each)."""
    spaces = gzip.compress(b" " * (1 << 20), 9, mtime=0)
    return gzip.compress(b"[", mtime=0) + spaces * megabytes + gzip.compress(b"]", mtime=0)


@st.composite
def posts(draw: st.DrawFn) -> Post:
    mode = draw(st.sampled_from(MODES))
    content_type = draw(st.sampled_from(_CONTENT_TYPES))
    pieces = draw(st.sampled_from([0, 0, 0, 1, 3, 17]))
    plain = draw(plain_bodies)
    how = draw(
        st.sampled_from(
            ["none"] * 8
            + ["gzip", "gzip", "x-gzip", "deflate", "deflate", "bomb", "corrupt", "mislabel"]
            + ["other", "double"]
        )
    )
    if how == "none":
        return Post(mode, plain, plain, None, content_type, pieces, "body")
    if how == "other":
        printable = st.characters(min_codepoint=0x20, max_codepoint=0x7E)
        encoding = draw(st.sampled_from(_OTHER_ENCODINGS) | st.text(printable))
        body = plain if encoding.strip().lower() in ("", "identity") else gzip.compress(plain)
        known = plain if encoding.strip().lower() in ("", "identity") else None
        return Post(mode, body, known, encoding, content_type, pieces, "other-encoding")
    if how == "bomb":
        body = _bomb(draw(st.sampled_from([1, 2, 16, 64])))
        coding = draw(st.sampled_from(["gzip", "x-gzip", "GZip"]))
        return Post(mode, body, None, coding, content_type, pieces, "bomb")
    if how == "double":  # gzip of gzip: decompressed once, it is not JSON
        body = gzip.compress(gzip.compress(plain))
        return Post(mode, body, gzip.compress(plain), "gzip", content_type, pieces, "double")
    if how in ("gzip", "x-gzip"):
        compressor = draw(st.sampled_from(["gzip", "gzip-1", "members"]))
        spelled = draw(st.sampled_from([how, how.upper(), f" {how} "]))
        body = _COMPRESSORS[compressor](plain)
        return Post(mode, body, plain, spelled, content_type, pieces, "gzip")
    if how == "deflate":
        return Post(mode, zlib.compress(plain), plain, "deflate", content_type, pieces, "deflate")
    if how == "mislabel":  # raw deflate, or gzip said to be deflate, or zlib said to be gzip
        body, coding = draw(
            st.sampled_from(
                [
                    (_raw_deflate(plain), "deflate"),
                    (gzip.compress(plain), "deflate"),
                    (zlib.compress(plain), "gzip"),
                    (plain, "gzip"),
                ]
            )
        )
        return Post(mode, body, None, coding, content_type, pieces, "mislabelled")
    compressed = draw(st.sampled_from(["gzip", "zlib", "members"]))
    damaged = bytearray(_COMPRESSORS[compressed](plain))
    damage = draw(st.sampled_from(["cut", "flip", "junk", "lead"]))
    at = draw(st.integers(0, max(0, len(damaged) - 1)))
    if damage == "cut":
        del damaged[at:]
    elif damage == "flip" and damaged:
        damaged[at] ^= 1 << draw(st.integers(0, 7))
    elif damage == "junk":
        damaged += draw(st.binary(min_size=1, max_size=20))
    else:
        damaged[0:0] = draw(st.binary(min_size=1, max_size=4))
    coding = "deflate" if compressed == "zlib" else "gzip"
    return Post(mode, bytes(damaged), None, coding, content_type, pieces, "corrupt")


# ---- the properties -------------------------------------------------------------------


def _expected_status(post: Post, limit: int, max_events: int) -> set[int]:
    """The statuses the request may get (beyond "never 500")."""
    allowed = {200, 400, 413, 415}
    coding = (post.encoding or "").strip().lower()
    if post.mode != "own":  # aiohttp decompresses; see _check_reply for its 408
        return allowed | {408}
    if coding not in ("", "identity", *SUPPORTED):
        return {415}
    if post.kind == "bomb":
        return {413}
    if coding in ("", "identity") and len(post.body) > limit:
        return {413}
    if post.plain is None:
        return {200, 400, 413}
    if len(post.plain) > limit:
        return {413}
    items = _items_of(post.plain)
    if items is None:
        return {400}
    return {413} if len(items) > max_events else {200}


def _items_of(body: bytes) -> list[bytes] | None:
    try:
        return [bytes(raw) for raw in msgspec.json.decode(body, type=list[msgspec.Raw])]
    except (msgspec.DecodeError, RecursionError):
        return None


def check_post(post: Post, harness: HttpHarness, tally: Tally) -> None:
    tally.count()
    sink = harness.sinks[post.mode]
    events_before, letters_before = len(sink.events), len(sink.letters)
    started = time.monotonic()
    status, answer = harness.send(post)
    if time.monotonic() - started > 1.0:
        tally.saw("slow (over 1 s)")  # an outcome, not a rejection
    assert status != 500, f"500: {answer[:300]!r}"
    allowed = _expected_status(post, harness.limits.max_body_bytes, harness.limits.max_events)
    assert status in allowed, f"{status} (expected {sorted(allowed)}): {answer[:300]!r}"
    new_events = sink.events[events_before:]
    new_letters = sink.letters[letters_before:]
    try:
        reply = json.loads(answer)
    except ValueError:  # aiohttp's own answer: it could not read the request
        assert post.mode == "plain" and status == 400, f"{status}: {answer[:300]!r}"
        harness.settle()  # the handler may still be refusing the body (one dead letter)
        assert not sink.events[events_before:] and len(sink.letters[letters_before:]) <= 1
        tally.saw("plain 400 (aiohttp's)", answer.decode("utf-8", "replace"))
    else:
        _check_reply(post, status, reply, new_events, new_letters, harness.limits, tally)
    sink.events.clear()  # memory stays flat over a long run
    sink.letters.clear()


def _check_reply(
    post: Post,
    status: int,
    reply: dict[str, Any],
    new_events: list[tuple[bytes, bytes]],
    new_letters: list[Any],
    limits: Limits,
    tally: Tally,
) -> None:
    if status == 408:
        # Under a plain runner, a bad deflate stream sent in chunks: aiohttp's error in
        # decompressing it never reaches the handler, which waits for the rest of the body
        # until the body timeout (serve-ingest's runner leaves decompressing to the app).
        assert post.mode == "plain" and post.encoding and reply.get("kind") == "timeout"
        assert not new_events and not new_letters
        tally.saw("plain 408 (aiohttp's decompression never ends the body)")
    elif status != 200:
        assert isinstance(reply.get("error"), str) and reply["error"], reply
        assert reply.get("kind") in ("malformed", "oversized"), reply
        assert not new_events, "a refused body produced events"
        assert len(new_letters) == 1, f"{len(new_letters)} dead letters for a refused body"
        tally.saw(f"{post.mode} {status}", reply["error"])
    else:
        _check_results(post, reply, new_events, len(new_letters), limits, tally)
        tally.saw(f"{post.mode} 200")


def _check_results(
    post: Post,
    reply: dict[str, Any],
    produced: list[tuple[bytes, bytes]],
    letters: int,
    limits: Limits,
    tally: Tally,
) -> None:
    results = reply["results"]
    statuses = [r["status"] for r in results]
    assert [r["index"] for r in results] == list(range(len(results)))
    assert set(statuses) <= {"accepted", "duplicate", "rejected"}
    for name, status in (("accepted", "accepted"), ("duplicates", "duplicate")):
        assert reply[name] == statuses.count(status)
    assert reply["rejected"] == statuses.count("rejected")
    assert len(produced) == reply["accepted"], "produced events and accepted items differ"
    assert letters == reply["rejected"], "dead letters and rejected items differ"
    for result in results:
        if result["status"] == "rejected":
            assert isinstance(result["reason"], str) and result["reason"], result
            tally.saw("item rejected", result["reason"])
    items = _items_of(post.plain) if post.plain is not None else None
    if items is None:
        return
    assert len(items) == len(results), f"{len(results)} results for {len(items)} items"
    accepted = [item for item, s in zip(items, statuses, strict=True) if s == "accepted"]
    assert [value for _, value in produced] == accepted, "not produced as sent"
    for item, result in zip(items, results, strict=True):
        refused = len(item) > limits.max_event_bytes
        if not refused:
            try:
                decode_event(item)
            except EventRejected:
                refused = True
        assert refused == (result["status"] == "rejected"), (item[:200], result)
        if item in valid_set():
            assert result["status"] != "rejected", (item[:200], result)


# ---- raw requests: the framing ----------------------------------------------------------

_REQUEST_LINES = [b"POST /events HTTP/1.1"] * 6 + [
    b"POST /events HTTP/1.0",
    b"POST /events?x=1 HTTP/1.1",
    b"POST //events HTTP/1.1",
    b"post /events HTTP/1.1",
    b"POST /events HTTP/2.0",
    b"POST /events",
    b"POST /events HTTP/1.1 extra",
    b"POST /ev\x00ents HTTP/1.1",
    b"GET /events HTTP/1.1",
    b"POST /metrics HTTP/1.1",
    b"POST " + b"/" * 10_000 + b" HTTP/1.1",
]
_HEADERS = [
    b"Content-Type: application/json",
    b"Content-Encoding: gzip",
    b"Content-Encoding: deflate",
    b"Content-Encoding: br",
    b"Transfer-Encoding: chunked",
    b"Transfer-Encoding: gzip, chunked",
    b"Transfer-Encoding: chunked, gzip",
    b"Transfer-Encoding: Chunked",
    b"Transfer-Encoding: identity",
    b"Content-Length: 0",
    b"Content-Length: 5",
    b"Content-Length: -1",
    b"Content-Length: 99999999999999999999",
    b"Content-Length: 1, 1",
    b"Content-Length: +2",
    b"Expect: 100-continue",
    b"Connection: keep-alive",
    b"Connection: upgrade",
    b"Upgrade: websocket",
    b"X-Long: " + b"a" * 9_000,
    b"X-Folded: a\r\n b",
    b"No colon here",
    b"X-Nul: a\x00b",
    b": empty name",
]


@st.composite
def raw_requests(draw: st.DrawFn) -> tuple[str, bytes]:
    """A request written byte by byte: request line, headers (lengths that lie, chunked
    and Content-Length both, folded and overlong lines), a body framed well or not."""
    mode = draw(st.sampled_from(MODES))
    body = draw(plain_bodies)
    if len(body) > 8_192:
        body = body[:8_192]
    if draw(st.booleans()):
        body = gzip.compress(body)
    lines = [draw(st.sampled_from(_REQUEST_LINES)), b"Host: fuzz", b"Connection: close"]
    framing = draw(st.sampled_from(["length", "length", "chunked", "both", "lying", "none"]))
    if framing in ("length", "both"):
        lines.append(b"Content-Length: %d" % len(body))
    elif framing == "lying":  # mostly shorter: what follows is another request
        lines.append(b"Content-Length: %d" % max(0, len(body) + draw(st.integers(-20, 3))))
    if framing in ("chunked", "both"):
        lines.append(b"Transfer-Encoding: chunked")
        body = draw(_chunked(body))
    lines += draw(st.lists(st.sampled_from(_HEADERS), max_size=3))
    draw(st.randoms(use_true_random=False)).shuffle(lines[1:])
    return mode, b"\r\n".join(lines) + b"\r\n\r\n" + body


@st.composite
def _chunked(draw: st.DrawFn, body: bytes) -> bytes:
    pieces = []
    at = 0
    while at < len(body):
        size = draw(st.integers(1, max(1, len(body) - at)))
        head = b"%x" % size
        trick = draw(st.sampled_from(["ok"] * 6 + ["ext", "lie", "upper", "space", "nocrlf"]))
        if trick == "ext":
            head += b";name=value"
        elif trick == "lie":
            head = b"%x" % max(0, size + draw(st.integers(-3, 3)))
        elif trick == "upper":
            head = head.upper().rjust(6, b"0")
        elif trick == "space":
            head += b" "
        end = b"" if trick == "nocrlf" else b"\r\n"
        pieces.append(head + b"\r\n" + body[at : at + size] + end)
        at += size
    last = draw(st.sampled_from([b"0\r\n\r\n"] * 4 + [b"", b"0\r\n", b"0\r\nX-T: 1\r\n\r\n"]))
    return b"".join(pieces) + last


def check_raw(request: tuple[str, bytes], harness: HttpHarness, tally: Tally) -> None:
    """Whatever the framing: a status line that is not 500, or the connection closed."""
    tally.count()
    mode, raw = request
    sink = harness.sinks[mode]
    started = time.monotonic()
    line = harness.exchange(mode, raw)
    if time.monotonic() - started > 0.5:
        tally.saw("slow (over 0.5 s)")
    if line.startswith(b"HTTP/"):
        status = int(line.split()[1])
        assert status != 500, f"500 for {raw[:300]!r}"
        tally.saw(f"{mode} {status}")
    else:
        assert line in (b"", b"<ConnectionResetError>"), line
        tally.saw(f"{mode} closed, no answer")
    sink.events.clear()  # (a handler may still run: this target checks statuses only)
    sink.letters.clear()
