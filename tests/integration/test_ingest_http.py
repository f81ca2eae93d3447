"""HTTP ingest against the real broker: replies, table-events exactly once in order, the DLQ.

The app runs in-process on a free port (its own event loop in a thread) with a
real :class:`KafkaSink`; every test uses its own table ids and reads the topics
from the offsets recorded before it.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import msgspec
import pytest

from tablewatch.ingest.client import PostFailed, post_events
from tablewatch.ingest.http_server import start
from tablewatch.ingest.kafka_producer import KafkaSettings, KafkaSink
from tablewatch.ingest.limits import DEFAULT_SERVER_LIMITS, ServerLimits
from tablewatch.ingest.service import Ingestor
from tablewatch.kafka_access import KafkaAccess
from tablewatch.rules.decode import decode_event, encode_event
from tablewatch.sim.floor import Floor
from tablewatch.topics import DEAD_LETTERS, EVENTS, table_key
from tests.ingest.events import array, edited, table_events
from tests.ingest.kafka_topics import Record, end_offsets, read_between
from tests.sim.floors import FIRST_TWO

pytestmark = pytest.mark.integration


@dataclass(frozen=True)
class Server:
    url: str
    ingestor: Ingestor


@contextlib.contextmanager
def running(ingestor: Ingestor, limits: ServerLimits = DEFAULT_SERVER_LIMITS) -> Iterator[str]:
    """The endpoint served as ``serve-ingest`` serves it (its own loop, in a thread) on a
    free port; its base URL."""
    loop = asyncio.new_event_loop()
    served = loop.run_until_complete(start(ingestor, "127.0.0.1", 0, limits))
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield served.url
    finally:
        asyncio.run_coroutine_threadsafe(served.close(), loop).result(60)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


@pytest.fixture(scope="module")
def server(kafka_bootstrap: str) -> Iterator[Server]:
    ingestor = Ingestor(KafkaSink(KafkaSettings(KafkaAccess(kafka_bootstrap))))
    with running(ingestor) as url:
        yield Server(url, ingestor)


@dataclass
class Topics:
    """Offsets of table-events and table-events-dlq before the test."""

    bootstrap: str
    events_start: dict[int, int]
    dlq_start: dict[int, int]

    def events(self, tables: set[str]) -> list[Record]:
        keys = {table_key(t) for t in tables}
        records = read_between(self.bootstrap, EVENTS, self.events_start)
        return [r for r in records if r.key in keys]

    def dead_letters(self, marker: str) -> list[dict[str, Any]]:
        """DLQ records whose raw text or table_id contains ``marker``."""
        out = []
        for r in read_between(self.bootstrap, DEAD_LETTERS, self.dlq_start):
            record = json.loads(r.value)
            if marker in record["raw"] or marker in (record["table_id"] or ""):
                out.append({**record, "_key": r.key})
        return out


@pytest.fixture
def topics(kafka_bootstrap: str) -> Topics:
    return Topics(
        kafka_bootstrap,
        end_offsets(kafka_bootstrap, EVENTS),
        end_offsets(kafka_bootstrap, DEAD_LETTERS),
    )


def run_id() -> str:
    return uuid.uuid4().hex[:10]


def floor_events(run: str, tables: int = 3, rounds: int = 6) -> list[bytes]:
    """A simulated floor's events (tables interleaved), renamed so this run's ids are unique."""
    return [
        encode_event(
            msgspec.structs.replace(
                e, table_id=f"{run}-{e.table_id}", event_id=f"{run}-{e.event_id}"
            )
        )
        for e in Floor(tables, rounds, seed=11, games=FIRST_TWO).events()
    ]


def post_raw(
    url: str, body: bytes, headers: dict[str, str] | None = None, timeout: float = 60
) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def by_table(raws: list[bytes]) -> dict[str, list[bytes]]:
    out: dict[str, list[bytes]] = defaultdict(list)
    for raw in raws:
        out[decode_event(raw).table_id].append(raw)
    return dict(out)


def test_good_batches_arrive_exactly_once_in_order_per_table(
    server: Server, topics: Topics
) -> None:
    run = run_id()
    events = floor_events(run)
    assert len(events) == 300
    first, second = events[:200], events[150:]  # the second batch repeats 50 events
    reply = post_events(f"{server.url}/events", first)
    assert (reply["accepted"], reply["duplicates"], reply["rejected"]) == (200, 0, 0)
    reply = post_events(f"{server.url}/events", second)
    assert (reply["accepted"], reply["duplicates"], reply["rejected"]) == (100, 50, 0)
    assert [r["status"] for r in reply["results"][:51]] == ["duplicate"] * 50 + ["accepted"]

    expected = by_table(events)
    records = topics.events(set(expected))
    got: dict[str, list[bytes]] = defaultdict(list)
    partitions: dict[str, set[int]] = defaultdict(set)
    for r in sorted(records, key=lambda r: (r.partition, r.offset)):
        assert r.key is not None
        got[r.key.decode()].append(r.value)
        partitions[r.key.decode()].add(r.partition)
    assert got == expected, "every accepted event once, bytes as sent, in order per table"
    assert all(len(p) == 1 for p in partitions.values()), "one table, one partition"


def test_rejections_are_answered_and_dead_lettered(server: Server, topics: Topics) -> None:
    run = run_id()
    table = f"{run}-T"
    good = table_events(table)  # deck_in, round_start, 3 wagers
    body = array(
        [
            good[0],
            edited(good[1], seq="seven"),  # wrong type
            edited(good[2], type="tip"),  # unknown event type
            good[0],  # duplicate within the batch
            edited(good[3], amount=0),  # out of range
            good[4],
        ]
    )
    status, reply = post_raw(f"{server.url}/events", body)
    assert status == 200
    assert (reply["accepted"], reply["duplicates"], reply["rejected"]) == (2, 1, 3)
    rows = {r["index"]: r for r in reply["results"]}
    assert (rows[1]["status"], rows[1]["field"], rows[1]["reason"]) == (
        "rejected",
        "seq",
        "Expected `int`, got `str`",
    )
    assert (rows[2]["field"], rows[2]["reason"]) == ("type", "unknown event type 'tip'")
    assert (rows[3]["status"], rows[3]["event_id"]) == ("duplicate", f"{table}-e1")
    assert (rows[4]["field"], rows[4]["reason"]) == ("amount", "Expected `int` >= 1")

    # the same event_id in a later batch: a duplicate, not produced again
    status, reply = post_raw(f"{server.url}/events", array([good[4], good[1]]))
    assert [r["status"] for r in reply["results"]] == ["duplicate", "accepted"]

    letters = sorted(topics.dead_letters(table), key=lambda d: str(d["where"]))
    assert [(d["where"], d["event_id"], d["field"], d["reason"]) for d in letters] == [
        ("item 1", f"{table}-e2", "seq", "Expected `int`, got `str`"),
        ("item 2", f"{table}-e3", "type", "unknown event type 'tip'"),
        ("item 4", f"{table}-e4", "amount", "Expected `int` >= 1"),
    ]
    assert all(d["_key"] == table_key(table) for d in letters)
    assert letters[0]["raw"] == edited(good[1], seq="seven").decode()
    assert all(d["received_at"].endswith("Z") for d in letters)

    records = topics.events({table})
    assert [r.value for r in records] == [good[0], good[4], good[1]]


def test_malformed_body_is_400_and_dead_lettered(server: Server, topics: Topics) -> None:
    marker = f"malformed-{run_id()}"
    status, reply = post_raw(f"{server.url}/events", f'[{{"table_id": "{marker}", '.encode())
    assert status == 400
    assert reply["error"] == "bad JSON: Input data was truncated"
    status, reply = post_raw(f"{server.url}/events", f'{{"table_id": "{marker}"}}'.encode())
    assert status == 400
    assert reply["error"].startswith("the body must be a JSON array of events")
    letters = topics.dead_letters(marker)
    assert sorted(d["reason"] for d in letters) == [  # no key: any partition, any order
        "malformed: bad JSON: Input data was truncated",
        "malformed: the body must be a JSON array of events: Expected `array`, got `object`",
    ]
    assert all(d["where"] == "body" and d["_key"] is None for d in letters)


def test_oversized_bodies_are_413_and_dead_lettered(server: Server, topics: Topics) -> None:
    marker = f"oversized-{run_id()}"
    big = f'[{{"table_id": "{marker}"}}'.encode() + b", {}" * 400_000 + b"]"  # 1.2 MB
    status, reply = post_raw(f"{server.url}/events", big)
    assert status == 413
    assert reply["error"] == f"body of {len(big):,} bytes exceeds 1,048,576 bytes"
    many = f'[{{"table_id": "{marker}"}}'.encode() + b",{}" * 5_000 + b"]"  # 5,001 events
    status, reply = post_raw(f"{server.url}/events", many)
    assert status == 413
    assert reply["error"] == "5,001 events exceed 5,000 per batch"
    letters = topics.dead_letters(marker)
    assert sorted((d["reason"], d["raw_bytes"], d["truncated"]) for d in letters) == [
        ("oversized: 5,001 events exceed 5,000 per batch", len(many), False),
        (f"oversized: body of {len(big):,} bytes exceeds 1,048,576 bytes", len(big), True),
    ]


def test_health_and_metrics(server: Server) -> None:
    with urllib.request.urlopen(f"{server.url}/health", timeout=10) as response:
        health = json.loads(response.read())
    assert health["status"] == "ok" and health["kafka"]["reachable"] is True
    with urllib.request.urlopen(f"{server.url}/metrics", timeout=10) as response:
        metrics = json.loads(response.read())
    assert {"accepted", "duplicates", "rejected", "batches"} <= set(metrics)


def test_client_refuses_to_retry_a_bad_body(server: Server) -> None:
    with pytest.raises(PostFailed) as info:
        post_events(f"{server.url}/events", [b"{", b"}"])
    assert info.value.status == 400


DEEP = 100_000


def nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def test_hostile_items_are_rejected_with_reasons_and_never_produced(
    server: Server, topics: Topics
) -> None:
    run = run_id()
    table = f"{run}-H"
    good = table_events(table)  # deck_in, round_start, 3 wagers
    hostile = [
        edited(good[1], seq=2**64),
        edited(good[2], amount=2**63),
        edited(good[2], event_id=f"{table}-x", ts="1999-12-31T23:59:59.999Z"),
        edited(good[2], event_id=f"{table}-y", round_id="R\u001b[2J"),
        good[3].replace(b'"amount":2500', b'"amount":2500,"amount":250000'),
        edited(good[4], event_id=f"{table}-z", x=nested(500)),
    ]
    status, reply = post_raw(f"{server.url}/events", array([good[0], *hostile, good[4]]))
    assert status == 200
    assert (reply["accepted"], reply["rejected"]) == (2, len(hostile))
    rows = reply["results"][1:-1]
    assert [r["field"] for r in rows] == ["seq", "amount", "ts", "round_id", "amount", "x"]
    assert "key `amount` given twice" in rows[4]["reason"]
    letters = topics.dead_letters(table)
    assert len(letters) == len(hostile)
    assert {d["where"] for d in letters} == {f"item {i}" for i in range(1, len(hostile) + 1)}
    assert all(d["reason"] and d["_key"] == table_key(table) for d in letters)
    assert [r.value for r in topics.events({table})] == [good[0], good[4]]

    status, reply = post_raw(f"{server.url}/events", b"[" * DEEP + b"]" * DEEP)
    assert status == 400 and "nested too deeply" in reply["error"]


def test_a_gzip_body_is_stored_as_its_decompressed_bytes_and_a_bomb_refused(
    server: Server, topics: Topics
) -> None:
    table = f"{run_id()}-G"
    good = table_events(table, rounds=2)
    status, reply = post_raw(
        f"{server.url}/events", gzip.compress(array(good)), {"Content-Encoding": "gzip"}
    )
    assert (status, reply["accepted"]) == (200, len(good))
    assert [r.value for r in topics.events({table})] == good

    spaces = gzip.compress(b" " * (1 << 20), 9)
    bomb = gzip.compress(b'[{"table_id":"' + table.encode() + b'"}') + spaces * 900
    started = time.monotonic()
    status, reply = post_raw(f"{server.url}/events", bomb, {"Content-Encoding": "gzip"})
    assert status == 413 and "once decompressed (gzip)" in reply["error"]
    assert time.monotonic() - started < 5
    assert [d["reason"].split(":")[0] for d in topics.dead_letters(table)] == ["oversized"]


def test_concurrent_large_posts_are_answered_in_time_and_stored_exactly_once(
    kafka_bootstrap: str, topics: Topics
) -> None:
    """Many clients at once: each is answered within its timeout (a batch's wait is
    bounded), the ones turned away are told 503 with Retry-After, and sending those
    again stores every event exactly once."""
    run = run_id()
    events = floor_events(run, tables=12, rounds=400)
    batches = [events[i : i + 400] for i in range(0, len(events), 400)][:48]
    assert len(batches) >= 40
    limits = ServerLimits(max_waiting=3, wait_timeout_s=2)
    ingestor = Ingestor(KafkaSink(KafkaSettings(KafkaAccess(kafka_bootstrap))))
    answers: list[tuple[int, float]] = []
    with running(ingestor, limits) as url:

        def send(batch: list[bytes]) -> tuple[int, float]:
            started = time.monotonic()
            status, reply = post_raw(f"{url}/events", array(batch), timeout=15)
            if status == 503:
                assert reply["kind"] == "busy"
            return status, time.monotonic() - started

        threads = [threading.Thread(target=lambda b=b: answers.append(send(b))) for b in batches]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert len(answers) == len(batches)
        assert {status for status, _ in answers} <= {200, 503}
        assert any(status == 503 for status, _ in answers), "the queue was full at some point"
        assert max(seconds for _, seconds in answers) < 10, "nobody held past a timeout"
        for batch in batches:  # everything again: what was stored comes back duplicate
            reply = post_events(f"{url}/events", batch)
            assert reply["rejected"] == 0
    sent = [raw for batch in batches for raw in batch]
    records = topics.events({decode_event(raw).table_id for raw in sent})
    assert sorted(r.value for r in records) == sorted(sent), "each event exactly once"
