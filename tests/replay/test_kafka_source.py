"""The Kafka source on the real broker: a time range turned into offsets, the tables kept by
their key, each partition in offset order."""

from __future__ import annotations

import uuid

import pytest
from kafka import KafkaProducer
from kafka.admin import KafkaAdminClient, NewTopic

from tablewatch.kafka_access import KafkaAccess
from tablewatch.replay.kafka_source import KafkaSource, KafkaUnusable
from tablewatch.rules.decode import EventRejected, encode_event
from tablewatch.rules.events import AnyEvent
from tablewatch.script import TableScript
from tablewatch.topics import table_key

pytestmark = pytest.mark.integration

T0 = 1_796_000_000_000  # the first batch's message time (ms); the second's an hour later
HOUR = 3_600_000


def _events(table_id: str, count: int) -> list[AnyEvent]:
    t = TableScript(table_id)
    t.table_open("let_it_ride")
    for i in range(count - 1):
        t.deck_in(f"D-{i}", "hand")
    return list(t.events)


def _events_of(source: KafkaSource) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for run in source.runs():
        assert not isinstance(run, EventRejected), run
        out.extend((event.table_id, event.seq) for event in run)
    return out


def test_a_time_range_becomes_each_partitions_offsets(kafka_bootstrap: str) -> None:
    topic = f"replay-src-{uuid.uuid4().hex[:8]}"
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    admin.create_topics([NewTopic(topic, num_partitions=2, replication_factor=1)])
    admin.close()
    first = {"A-1": _events("A-1", 5), "B-2": _events("B-2", 4)}
    second = {"A-1": _events("A-1", 9)[5:], "B-2": _events("B-2", 7)[4:]}
    producer = KafkaProducer(bootstrap_servers=kafka_bootstrap)
    for batch, at in ((first, T0), (second, T0 + HOUR)):
        for table_id, events in batch.items():
            partition = 0 if table_id == "A-1" else 1
            for event in events:
                producer.send(
                    topic, key=table_key(table_id), value=encode_event(event),
                    partition=partition, timestamp_ms=at,
                )  # fmt: skip
    producer.flush()
    producer.close()
    access = KafkaAccess(kafka_bootstrap)

    everything = KafkaSource(access, topic)
    assert everything.total == 16
    assert everything.describe() == f"{topic} offsets 0:0-9,1:0-7"
    assert _events_of(everything) == [("A-1", s) for s in range(1, 10)] + [
        ("B-2", s) for s in range(1, 8)
    ]
    everything.close()

    later = KafkaSource(access, topic, since_ms=T0 + 1)
    assert later.describe() == f"{topic} offsets 0:5-9,1:4-7"
    assert _events_of(later) == [("A-1", s) for s in range(6, 10)] + [
        ("B-2", s) for s in range(5, 8)
    ]
    later.close()

    earlier = KafkaSource(access, topic, until_ms=T0 + HOUR - 1, tables=["B-2"])
    assert earlier.describe() == f"{topic} offsets 0:0-5,1:0-4"
    assert _events_of(earlier) == [("B-2", s) for s in range(1, 5)]
    earlier.close()

    offsets = KafkaSource(access, topic, start={0: 7}, end={0: 8, 1: 0})
    assert _events_of(offsets) == [("A-1", 8)]
    offsets.close()


def test_no_such_topic_is_unusable(kafka_bootstrap: str) -> None:
    source = KafkaSource(KafkaAccess(kafka_bootstrap), f"absent-{uuid.uuid4().hex[:8]}")
    with pytest.raises(KafkaUnusable, match="no topic absent-"):
        source.ranges()
    source.close()
