"""The ingest step with a memory sink: what is delivered, remembered and dead-lettered."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from tablewatch.ingest.batch import Accepted, BodyRefused, Limits, SeenWindow
from tablewatch.ingest.service import DeliveryFailed, Ingestor
from tablewatch.ingest.sink import Delivery, MemorySink
from tablewatch.topics import DeadLetter
from tests.ingest.events import array, edited, table_events

NOW = "2026-11-29T21:00:00.000Z"


def ingestor(sink: MemorySink, **kwargs: object) -> Ingestor:
    return Ingestor(sink, clock=lambda: NOW, **kwargs)  # type: ignore[arg-type]


def test_accepted_are_delivered_once_in_order_and_rejected_dead_lettered() -> None:
    sink = MemorySink()
    ing = ingestor(sink)
    good = table_events("T-1", rounds=2)
    ing.ingest_body(array([*good[:5], edited(good[5], card="1x"), good[0]]), "http 1.2.3.4")
    ing.ingest_body(array(good[:7]), "http 1.2.3.4")  # sent again, item 5 corrected
    assert sink.events == [(b"T-1", raw) for raw in good[:7]]
    (letter,) = sink.letters
    record = json.loads(letter.value)
    assert (record["where"], record["event_id"], record["source"]) == (
        "item 5",
        "T-1-e6",
        "http 1.2.3.4",
    )
    assert record["received_at"] == NOW
    metrics = ing.metrics()
    assert {k: metrics[k] for k in ("batches", "accepted", "duplicates", "rejected")} == {
        "batches": 2,
        "accepted": 7,
        "duplicates": 1 + 5,
        "rejected": 1,
    }
    assert metrics["dead_letters"] == 1
    assert metrics["window_ids"] == 7


def test_refused_body_is_dead_lettered_and_raised() -> None:
    sink = MemorySink()
    ing = ingestor(sink, limits=Limits(max_events=2))
    with pytest.raises(BodyRefused) as info:
        ing.ingest_body(array(table_events("T-1")), "http -")
    assert info.value.kind == "oversized"
    with pytest.raises(BodyRefused):
        ing.ingest_body(b"<events/>", "http -")
    reasons = [json.loads(letter.value)["reason"] for letter in sink.letters]
    assert reasons == [
        "oversized: 5 events exceed 2 per batch",
        "malformed: bad JSON: JSON is malformed: invalid character (byte 0)",
    ]
    metrics = ing.metrics()
    assert (metrics["refused_oversized"], metrics["refused_malformed"]) == (1, 1)
    assert sink.events == []


def test_failed_delivery_remembers_nothing_so_a_retry_delivers() -> None:
    sink = MemorySink(fail="broker down")
    ing = ingestor(sink)
    good = table_events("T-1")
    with pytest.raises(DeliveryFailed) as info:
        ing.ingest_body(array(good), "http -")
    assert info.value.reason == "broker down"
    assert len(ing.window) == 0
    sink.fail = None
    batch = ing.ingest_body(array(good), "http -")
    assert [o.status for o in batch.outcomes] == ["accepted"] * len(good)
    assert [v for _, v in sink.events] == good
    assert ing.metrics()["delivery_failures"] == 1


class HalfSink(MemorySink):
    """Confirms the first event only, as when Kafka fails in the middle of a batch."""

    def deliver(self, events: Sequence[Accepted], letters: Sequence[DeadLetter]) -> Delivery:
        self.events.extend((e.table_id.encode(), e.raw) for e in events[:1])
        return Delivery([True] + [False] * (len(events) - 1), 0, "lost the leader")


def test_partly_delivered_batch_remembers_only_what_was_confirmed() -> None:
    ing = ingestor(HalfSink())
    good = table_events("T-1")
    with pytest.raises(DeliveryFailed):
        ing.ingest_body(array(good), "http -")
    assert "T-1-e1" in ing.window and "T-1-e2" not in ing.window


def test_a_forgotten_id_is_accepted_again() -> None:
    sink = MemorySink()
    ing = ingestor(sink, window=SeenWindow(2))
    good = table_events("T-1")  # 5 events
    ing.ingest_body(array(good), "http -")
    batch = ing.ingest_body(array(good), "http -")
    assert [o.status for o in batch.outcomes] == [
        "accepted",  # forgotten (the window holds 2): produced again, the worker ignores it
        "accepted",
        "accepted",
        "duplicate",
        "duplicate",
    ]
