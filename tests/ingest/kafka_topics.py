"""Reading back what a test wrote to Kafka: from offsets taken before, to offsets taken after.

Used by tests/integration/test_ingest_*.py (real broker). Other runs may write to
the same topics at the same time, so callers filter by their own unique table ids.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from kafka import KafkaConsumer, TopicPartition  # type: ignore[import-untyped, unused-ignore]


@dataclass(frozen=True, slots=True)
class Record:
    partition: int
    offset: int
    key: bytes | None
    value: bytes


def end_offsets(bootstrap: str, topic: str) -> dict[int, int]:
    """The next offset of every partition of ``topic``."""
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    try:
        partitions = consumer.partitions_for_topic(topic)
        assert partitions, f"topic {topic} does not exist: run deploy/kafka.sh topics"
        tps = [TopicPartition(topic, p) for p in sorted(partitions)]
        return {tp.partition: offset for tp, offset in consumer.end_offsets(tps).items()}
    finally:
        consumer.close()


def read_between(
    bootstrap: str, topic: str, start: dict[int, int], timeout: float = 20.0
) -> list[Record]:
    """Every record of ``topic`` from ``start`` to the current end, per partition in order."""
    stop = end_offsets(bootstrap, topic)
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    records: list[Record] = []
    try:
        pending = {p for p in stop if stop[p] > start.get(p, 0)}
        tps = [TopicPartition(topic, p) for p in sorted(pending)]
        if not tps:
            return []
        consumer.assign(tps)
        for tp in tps:
            consumer.seek(tp, start.get(tp.partition, 0))
        deadline = time.monotonic() + timeout
        while pending:
            assert time.monotonic() < deadline, f"{topic}: not all records read in {timeout}s"
            for tp, batch in consumer.poll(timeout_ms=1000).items():
                for r in batch:
                    if r.offset < stop[tp.partition]:
                        records.append(Record(tp.partition, r.offset, r.key, r.value))
                if consumer.position(tp) >= stop[tp.partition]:
                    pending.discard(tp.partition)
    finally:
        consumer.close()
    return records
