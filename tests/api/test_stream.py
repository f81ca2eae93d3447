"""GET /api/v1/stream over a store stamped in the present (tests/api/floor_store.py): the
floor as it stands, then each finding and case step written to the store, with the tiles
and the strip they change; a subscriber that does not read is dropped; a resume."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from tablewatch.api.app import create_app
from tablewatch.api.floor_feed import FloorFeed
from tablewatch.api.sources import (
    ReaderPool,
    SourceBusy,
    SourceError,
    SourceUnavailable,
    open_product_reader,
)
from tablewatch.rules.events import ms_to_ts
from tablewatch.store.client import open_store
from tablewatch.store.read_only import Answer
from tests.api.floor_store import CLOSED, QUIET, case_step, finding, make_store, now_ms
from tests.api.live_server import served
from tests.api.sse import listening

NO_CASES = {"critical": 0, "high": 0, "medium": 0, "low": 0}


@pytest.fixture(scope="module")
def dsn(tmp_path_factory: pytest.TempPathFactory) -> str:
    return make_store(Path(tmp_path_factory.mktemp("stream")) / "store")


@pytest.fixture(scope="module")
def pool(dsn: str) -> Iterator[ReaderPool]:
    readers = ReaderPool(lambda: open_product_reader(dsn), size=3)
    try:
        yield readers
    finally:
        readers.close()


@pytest.fixture(scope="module")
def app(pool: ReaderPool, dsn: str) -> FastAPI:
    app = create_app(pool, described_as=dsn)
    app.state.floor_feed = FloorFeed(pool, interval_s=0.2, activity_every_s=1.0, linger_s=10)
    app.state.stream_heartbeat_s = 0.5
    return app


@pytest.fixture(scope="module")
def url(app: FastAPI) -> Iterator[str]:
    with served(app) as base:
        yield f"{base}/api/v1/stream"


def test_a_finding_and_its_case_steps_reach_the_stream_with_the_tile_and_the_strip(
    url: str, dsn: str
) -> None:
    with listening(url) as stream:
        tiles, strip = stream.snapshot()
        assert stream.content_type.startswith("text/event-stream")
        assert set(tiles) == {"BJ-01", "BJ-02", "LIR-01"}
        assert tiles["BJ-01"]["level"] == "ok" and tiles["BJ-01"]["open_cases"] == NO_CASES
        assert (tiles["BJ-01"]["table_open"], tiles["BJ-01"]["stale"]) == (True, False)
        assert (tiles[QUIET]["table_open"], tiles[QUIET]["stale"]) == (True, True)
        assert (tiles[CLOSED]["table_open"], tiles[CLOSED]["stale"]) == (False, False)
        critical_before = strip["open_cases"]["critical"]

        ts = now_ms() - 1500
        with open_store(dsn) as client:
            finding(client, "stream-crit-1", "BJ-01", "critical", ts_ms=ts)
        found = stream.next("finding", lambda d: d["finding_id"] == "stream-crit-1")
        assert found.data == {
            "finding_id": "stream-crit-1", "table_id": "BJ-01", "round_id": "r-stream-crit-1",
            "check": "WRONG_PAYOUT", "severity": "critical", "ts": ms_to_ts(ts),
        }  # fmt: skip
        assert found.id is not None
        red = stream.next("tile", lambda d: d["table_id"] == "BJ-01")
        assert red.data["level"] == "red"
        assert red.data["open_cases"] == {**NO_CASES, "critical": 1}
        counted = stream.next("strip").data
        assert counted["open_cases"]["critical"] == critical_before + 1
        assert counted["oldest_open_ms"] <= ts

        with open_store(dsn) as client:
            case_step(
                client, "stream-crit-1", "BJ-01", "critical", 1, "claimed", "in_review", "sam"
            )
        claimed = stream.next("case", lambda d: d["finding_id"] == "stream-crit-1")
        assert (claimed.data["state"], claimed.data["assignee"]) == ("in_review", "sam")

        with open_store(dsn) as client:
            case_step(client, "stream-crit-1", "BJ-01", "critical", 2, "closed", "closed")
        closed = stream.next("case", lambda d: d["finding_id"] == "stream-crit-1")
        assert (closed.data["state"], closed.data["assignee"]) == ("closed", None)
        back = stream.next("tile", lambda d: d["table_id"] == "BJ-01")
        assert back.data["level"] == "ok" and back.data["open_cases"] == NO_CASES
        assert stream.next("strip").data["open_cases"]["critical"] == critical_before
        # each finding and step once, though every poll reads the last seconds again
        ids = [e.data["finding_id"] for e in stream.seen if e.event in ("finding", "case")]
        assert ids == ["stream-crit-1"] * 3
        deadline = time.monotonic() + 3
        while stream.comments == 0:  # a quiet stream has its heartbeat (every 0.5 s here)
            assert time.monotonic() < deadline, "no heartbeat"
            time.sleep(0.05)


def test_a_stream_given_its_last_event_id_is_sent_what_it_missed_first(
    url: str, dsn: str, app: FastAPI
) -> None:
    feed: FloorFeed = app.state.floor_feed
    with listening(url) as watcher:
        watcher.snapshot()
        with listening(url) as first:
            first.snapshot()
            assert feed.subscribers == 2
            with open_store(dsn) as client:
                finding(client, "resume-1", "BJ-02", "medium")
            last_id = first.next("finding", lambda d: d["finding_id"] == "resume-1").id
        deadline = time.monotonic() + 5
        while feed.subscribers != 1:  # a client gone is out by the next write (a heartbeat)
            assert time.monotonic() < deadline, "the closed stream is still subscribed"
            time.sleep(0.05)
        with open_store(dsn) as client:
            finding(client, "resume-2", "BJ-02", "high")
        watcher.next("finding", lambda d: d["finding_id"] == "resume-2")  # published, unseen
        assert last_id is not None
        with listening(url, {"Last-Event-ID": last_id}) as back:
            missed = back.next("finding")
            assert missed.data["finding_id"] == "resume-2"
            tiles, _ = back.snapshot()  # then the floor as it stands
            if not tiles[CLOSED]["open_cases"]["high"]:  # the recount follows the news
                back.next("tile", lambda d: d["table_id"] == CLOSED and d["open_cases"]["high"])


def test_a_subscriber_that_does_not_read_is_dropped_and_the_others_get_every_finding(
    pool: ReaderPool, dsn: str
) -> None:
    ids = [f"drop-{i:02d}" for i in range(20)]

    async def run() -> None:
        feed = FloorFeed(pool, interval_s=0.1, activity_every_s=60, queue_size=8, linger_s=0)
        reader, _ = feed.subscribe()
        slow, _ = feed.subscribe()
        frames: list[bytes] = []

        async def read() -> None:
            while (item := await reader.queue.get()) is not None:
                frames.append(item)

        reading = asyncio.create_task(read())
        deadline = time.monotonic() + 10
        while feed.ticks < 2:  # the floor as it stands is read
            assert time.monotonic() < deadline, "the feed did not poll"
            await asyncio.sleep(0.05)

        def write() -> None:
            with open_store(dsn) as client:
                for finding_id in ids:
                    finding(client, finding_id, QUIET, "low")

        await asyncio.to_thread(write)
        deadline = time.monotonic() + 10
        while sum(f.startswith(b"id: ") and b"event: finding" in f for f in frames) < len(ids):
            assert time.monotonic() < deadline, f"the reader got {len(frames)} frames"
            await asyncio.sleep(0.05)
        got = [f for f in frames if b"event: finding" in f]
        assert [next(i for i in ids if f'"{i}"'.encode() in f) for f in got] == ids
        assert slow.dropped and feed.dropped == 1 and feed.subscribers == 1
        assert slow.queue.get_nowait() is None and slow.queue.empty()  # its stream ends
        assert not reader.dropped
        feed.unsubscribe(reader)
        await asyncio.sleep(0.05)
        assert not feed.running  # nobody listens: no more polls
        reading.cancel()

    asyncio.run(run())


class Flaky:
    """The pool, failing as told: ``error`` raised by every statement while set."""

    def __init__(self, pool: ReaderPool) -> None:
        self.pool = pool
        self.error: SourceError | None = None

    def run(self, sql: str) -> Answer:
        if self.error is not None:
            raise self.error
        return self.pool.run(sql)


def test_a_store_that_cannot_be_read_is_a_problem_event_and_a_busy_moment_is_not(
    pool: ReaderPool,
) -> None:
    source = Flaky(pool)

    async def run() -> None:
        feed = FloorFeed(source, interval_s=0.05, activity_every_s=60, linger_s=0)
        sub, _ = feed.subscribe()

        async def problems(until_s: float) -> list[dict[str, Any]]:
            out = []
            deadline = time.monotonic() + until_s
            while time.monotonic() < deadline:
                try:
                    item = await asyncio.wait_for(sub.queue.get(), 0.05)
                except TimeoutError:
                    continue
                assert item is not None
                if b"event: problem" in item:
                    out.append(json.loads(item.split(b"data: ", 1)[1]))
            return out

        while feed.ticks < 2:
            await asyncio.sleep(0.02)
        source.error = SourceBusy("every reader is busy", retry_after_s=1)
        feed.ticks = 0
        while feed.ticks < 3:  # three polls busy: no word of it
            await asyncio.sleep(0.01)
        source.error = None
        assert await problems(0.3) == []
        source.error = SourceUnavailable("the worker at http://w:6066 cannot be reached")
        assert await problems(0.5) == [
            {"reason": "the worker at http://w:6066 cannot be reached"}
        ]  # said once, not at every poll
        source.error = None
        assert await problems(2.5) == [{"reason": None}]  # resolved
        feed.unsubscribe(sub)

    asyncio.run(run())
