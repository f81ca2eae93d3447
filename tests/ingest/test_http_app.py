"""The aiohttp app with a memory sink (no Kafka): status codes and reply format."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from tablewatch.ingest.batch import DEFAULT_LIMITS, Limits
from tablewatch.ingest.http_server import make_app
from tablewatch.ingest.service import Ingestor
from tablewatch.ingest.sink import MemorySink
from tests.ingest.events import array, edited, table_events

Scenario = Callable[[TestClient[Any, Any], MemorySink], Awaitable[None]]


def run(
    scenario: Scenario, sink: MemorySink | None = None, limits: Limits = DEFAULT_LIMITS
) -> None:
    sink = sink if sink is not None else MemorySink()

    async def main() -> None:
        app = make_app(Ingestor(sink, limits=limits))
        async with TestClient(TestServer(app)) as client:
            await scenario(client, sink)
        assert sink.closed, "cleanup closes the sink"

    asyncio.run(main())


def test_post_events_reply() -> None:
    good = table_events("T-1")

    async def scenario(client: TestClient[Any, Any], sink: MemorySink) -> None:
        body = array([good[0], good[1], good[0], edited(good[2], seat=9)])
        response = await client.post("/events", data=body)
        assert response.status == 200
        reply = await response.json()
        assert (reply["accepted"], reply["duplicates"], reply["rejected"]) == (2, 1, 1)
        assert reply["results"][3] == {
            "index": 3,
            "event_id": "T-1-e3",
            "status": "rejected",
            "field": "seat",
            "reason": "Expected `int` <= 7",
        }
        assert [v for _, v in sink.events] == good[:2]
        assert json.loads(sink.letters[0].value)["where"] == "item 3"

        response = await client.post("/events", data=array(good))
        reply = await response.json()
        assert [r["status"] for r in reply["results"]] == ["duplicate"] * 2 + ["accepted"] * 3

        metrics = await (await client.get("/metrics")).json()
        assert (metrics["batches"], metrics["accepted"], metrics["duplicates"]) == (2, 5, 3)
        assert metrics["rejected"] == 1

    run(scenario)


def test_malformed_and_oversized_bodies() -> None:
    async def scenario(client: TestClient[Any, Any], sink: MemorySink) -> None:
        response = await client.post("/events", data=b'{"v": 1}')
        assert response.status == 400
        assert (await response.json())["error"].startswith("the body must be a JSON array")

        response = await client.post("/events", data=b"[" + b" " * 5000 + b"]")
        assert response.status == 413
        assert (await response.json())["error"] == "body of 5,002 bytes exceeds 4,096 bytes"

        async def chunks() -> Any:  # no Content-Length: refused once 4 KiB have been read
            for _ in range(10):
                yield b" " * 1000

        response = await client.post("/events", data=chunks())
        assert response.status == 413
        assert (await response.json())[
            "error"
        ] == "body of more than 4,096 bytes exceeds 4,096 bytes"

        reasons = [json.loads(letter.value)["reason"] for letter in sink.letters]
        assert [r.split(":")[0] for r in reasons] == ["malformed", "oversized", "oversized"]
        assert json.loads(sink.letters[1].value)["raw_bytes"] == 5002
        metrics = await (await client.get("/metrics")).json()
        assert (metrics["refused_malformed"], metrics["refused_oversized"]) == (1, 2)

    run(scenario, limits=Limits(max_body_bytes=4096))


def test_kafka_failure_is_503_and_the_retry_succeeds() -> None:
    good = table_events("T-1")

    async def scenario(client: TestClient[Any, Any], sink: MemorySink) -> None:
        response = await client.post("/events", data=array(good))
        assert response.status == 503
        assert response.headers["Retry-After"] == "1"
        assert "broker down" in (await response.json())["error"]
        health = await client.get("/health")
        assert health.status == 503
        assert (await health.json())["status"] == "degraded"
        sink.fail = None
        response = await client.post("/events", data=array(good))
        assert (await response.json())["accepted"] == len(good)
        health = await client.get("/health")
        assert health.status == 200
        assert (await health.json())["status"] == "ok"

    run(scenario, sink=MemorySink(fail="broker down"))
