"""What the fuzzers found, each as a plain regression test (not marked ``fuzz``: always run)."""

from __future__ import annotations

import asyncio
import gzip
import zlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from tablewatch.ingest.http_server import make_app
from tablewatch.ingest.service import Ingestor
from tablewatch.ingest.sink import MemorySink
from tablewatch.rules.decode import EventRejected, decode_event

_METER = (
    b'{"v":1,"type":"meter","event_id":"e-1","table_id":"T-1","seq":1,'
    b'"ts":"2026-11-29T20:15:03.123Z","amount":5,'
)


@pytest.mark.parametrize("key", ["a`b", "", "k\n`", " - at `$.seq", "x - at `$.seat", "``"])
def test_an_unknown_key_is_the_field_whatever_it_holds(key: str) -> None:
    """The field of an unknown key is the key as given: it was cut at its first backtick,
    lost when empty or holding a line break, and a key ending in " - at `$.seat`" made
    the field ``seat``."""
    raw = _METER + b'"' + key.replace("\n", "\\n").encode() + b'":1}'
    with pytest.raises(EventRejected) as caught:
        decode_event(raw)
    assert caught.value.field == key
    assert caught.value.reason == f"Object contains unknown field `{key}`"


# ---- POST /events under a plain aiohttp runner ------------------------------------------


@pytest.mark.parametrize(
    ("body", "coding", "pieces"),
    [
        (gzip.compress(b"[]" * 100)[:-9] + b"\x00" * 9, "gzip", 1),  # a bad CRC
        (b"x" * 100, "gzip", 3),  # not gzip at all, sent chunked
        (zlib.compress(b"[]")[:-1] + b"!", "deflate", 1),
    ],
    ids=["gzip with a bad CRC", "not gzip, chunked", "deflate with a bad checksum"],
)
def test_a_body_aiohttp_cannot_decompress_is_400_not_500(
    body: bytes, coding: str, pieces: int
) -> None:
    """Served by a plain aiohttp runner, which decompresses bodies itself, a body that does
    not decompress was a 500 (aiohttp's RequestPayloadError out of the handler)."""
    sink = MemorySink()

    async def chunks() -> AsyncIterator[bytes]:
        step = -(-len(body) // pieces)
        for start in range(0, len(body), step):
            yield body[start : start + step]

    async def main() -> tuple[int, Any]:
        async with TestClient(TestServer(make_app(Ingestor(sink)))) as client:
            response = await client.post(
                "/events", data=chunks(), headers={"Content-Encoding": coding}
            )
            return response.status, await response.json()

    status, reply = asyncio.run(main())
    assert status == 400
    assert reply["kind"] == "malformed"
    assert reply["error"].startswith(f"bad {coding} data: ")
    assert not sink.events
    assert len(sink.letters) == 1
