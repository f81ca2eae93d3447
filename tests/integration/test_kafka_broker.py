"""The broker from deploy/kafka.sh serves the protocol topics, keyed and in order per table."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import KafkaAdminClient

from tablewatch.rules.decode import decode_event, encode_event
from tablewatch.script import TableScript
from tablewatch.topics import EVENTS, NAMES, table_key

pytestmark = pytest.mark.integration


def test_topics_exist(kafka_bootstrap: str) -> None:
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    try:
        topics = set(admin.list_topics())
    finally:
        admin.close()
    assert set(NAMES) <= topics  # deploy/kafka.sh topics made them


def test_events_round_trip_in_order(kafka_bootstrap: str) -> None:
    table = f"T-{uuid.uuid4().hex[:8]}"
    script = TableScript(table)
    script.deck_in("D-1")
    script.round_start("R-1", "D-1")
    for bet in ("bet1", "bet2", "bet3"):
        script.wager(2, bet, 2500)
    producer = KafkaProducer(bootstrap_servers=kafka_bootstrap, acks="all")
    metas = [
        producer.send(EVENTS, key=table_key(table), value=encode_event(e)).get(timeout=30)
        for e in script.events
    ]
    producer.close()
    assert len({m.partition for m in metas}) == 1, "one table, one partition"
    tp = TopicPartition(EVENTS, metas[0].partition)
    consumer = KafkaConsumer(bootstrap_servers=kafka_bootstrap, enable_auto_commit=False)
    consumer.assign([tp])
    consumer.seek(tp, metas[0].offset)
    received: list[Any] = []
    while len(received) < len(metas):
        batch = consumer.poll(timeout_ms=10_000)
        assert batch, "no message within 10 s"
        received += [r for records in batch.values() for r in records if r.key == table_key(table)]
    consumer.close()
    assert [decode_event(r.value) for r in received] == script.events
