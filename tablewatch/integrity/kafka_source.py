"""``tablewatch verify --kafka``: each table's chain recomputed from the events topic.

The topic is read from its start to its end offsets, partition by partition
in offset order (a table's events are in one partition). What each message
becomes is decided by the function the worker decides it by
(:func:`tablewatch.message_fate.message_fate`): one the decoder accepts,
whose row the store can hold, and which its table does not ignore as a
duplicate (an event_id among its last 50,000; a table with no configuration
ignores none, so ``--config`` tells which tables have one, and without it
every table is taken as configured) is chained. The topic is read once, in
order: no message is delivered again.

Where a table's chain starts in the topic is the store's word: the Kafka
coordinates of its first chained row (its events before it were stored
before the chain existed, or are past retention). The recomputed chain is
compared with the store's rows, position by position, and with the
checkpoints.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tablewatch.integrity.chain import GENESIS, link
from tablewatch.integrity.verify import RecomputedLink as Link
from tablewatch.message_fate import Duplicate, Redelivered, Refused, TableView, message_fate
from tablewatch.rules.id_window import IdWindow
from tablewatch.rules.table import DEDUP_WINDOW

if TYPE_CHECKING:
    from tablewatch.kafka_access import KafkaAccess


class TopicUnusable(Exception):
    """The topic cannot be read (no broker, no such topic) or no longer holds a chain's start."""


@dataclass(frozen=True, slots=True)
class Anchor:
    """Where a table's chain starts in the topic: the message at (partition, offset) is at
    ``position``, after the hash ``prev`` (hex)."""

    partition: int
    offset: int
    position: int
    prev: str


@dataclass(slots=True)
class _Table:
    window: IdWindow | None  # None: the table has no configuration, and ignores no duplicate
    position: int = 0
    prev: bytes = GENESIS
    started: bool = False
    links: list[Link] = field(default_factory=list)


def messages(
    kafka: KafkaAccess, topic: str, timeout_s: float = 30.0
) -> Iterator[tuple[int, int, bytes]]:
    """(partition, offset, value) of every message of ``topic`` now, in offset order per
    partition (partitions one after another), read through ``kafka`` (its servers, TLS and
    SASL)."""
    from kafka import KafkaConsumer, TopicPartition
    from kafka.errors import KafkaError

    where = f"{kafka.bootstrap} ({kafka.describe()})"
    try:
        consumer = KafkaConsumer(
            **kafka.kafka_python(),
            enable_auto_commit=False,
            group_id=None,
            request_timeout_ms=int(timeout_s * 1000),
            bootstrap_timeout_ms=5_000,
        )
    except KafkaError as exc:
        raise TopicUnusable(f"cannot reach Kafka at {where}: {kafka.redact(str(exc))}") from None
    try:
        parts = consumer.partitions_for_topic(topic)
        if not parts:
            raise TopicUnusable(f"no topic {topic} at {where}")
        for partition in sorted(parts):
            tp = TopicPartition(topic, partition)
            consumer.assign([tp])
            start = consumer.beginning_offsets([tp])[tp]
            end = consumer.end_offsets([tp])[tp]
            if start > 0:
                yield (partition, -start, b"")  # the topic's start was deleted before `start`
            consumer.seek(tp, start)
            while consumer.position(tp) < end:
                batches = consumer.poll(timeout_ms=int(timeout_s * 1000))
                if not batches:
                    raise TopicUnusable(
                        f"{topic} partition {partition}: nothing read in {timeout_s:g} s "
                        f"at offset {consumer.position(tp)} of {end}"
                    )
                for records in batches.values():
                    for record in records:
                        if record.offset < end:
                            yield (partition, record.offset, record.value or b"")
    except KafkaError as exc:
        raise TopicUnusable(
            f"reading {topic} at {where} failed: {kafka.redact(str(exc))}"
        ) from None
    finally:
        consumer.close()


def recompute(
    source: Iterator[tuple[int, int, bytes]],
    anchors: Mapping[str, Anchor],
    *,
    configured: frozenset[str] | None = None,
    tables: frozenset[str] | None = None,
) -> tuple[dict[str, list[Link]], dict[int, int]]:
    """Each table's chain links recomputed from ``source`` (:func:`messages`), and the
    partitions whose first messages are gone (partition -> first offset kept)."""
    state: dict[str, _Table] = {}
    truncated: dict[int, int] = {}
    not_read = TableView(None)  # a table not asked for: its fate is not looked at

    def view(table_id: str, _partition: int) -> TableView:
        if tables is not None and table_id not in tables:
            return not_read
        table = state.get(table_id)
        if table is None:
            kept = configured is None or table_id in configured
            table = state[table_id] = _Table(IdWindow(DEDUP_WINDOW) if kept else None)
        return TableView(table.window)

    for partition, offset, raw in source:
        if offset < 0:
            truncated[partition] = -offset
            continue
        fate = message_fate(raw, partition, offset, 0, view)
        if isinstance(fate, Refused | Redelivered):  # (never delivered again: read once)
            continue
        event = fate.event
        table_id = event.table_id
        if tables is not None and table_id not in tables:
            continue
        table = state[table_id]
        # ignored as a duplicate (not stored): an event_id among the table's last ones
        duplicate = isinstance(fate, Duplicate)
        if not duplicate and table.window is not None:
            table.window.add(event.event_id)  # remembered, as the worker's table does on folding
        if not table.started:
            anchor = anchors.get(table_id)
            if anchor is not None:
                if (partition, offset) != (anchor.partition, anchor.offset):
                    continue  # before its chain began
                table.position = anchor.position - 1
                table.prev = bytes.fromhex(anchor.prev)
            elif duplicate:
                continue
            table.started = True
        elif duplicate:
            continue
        row = fate.row
        table.position += 1
        table.prev = link(table.prev, table_id, table.position, event.seq, row[6])
        table.links.append(
            Link(table.position, table.prev.hex(), partition, offset, event.seq, row[3])
        )
    return {t: s.links for t, s in state.items()}, truncated
