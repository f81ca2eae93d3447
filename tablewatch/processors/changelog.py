"""The tables' saved states: the changelog topic, read on assignment and written with each batch.

The topic ``<app_id>-tablewatch-table-state-changelog`` (compacted, partitioned
like the events topic) holds, per table, its latest snapshot (key: the
table_id's bytes; value: :mod:`.state_codec`'s bytes) and, per partition, its
restore fence (:mod:`.restore_fence`). A table's snapshot goes to the changelog
partition its events come from (the key's murmur2 partition, as the producers
of the events topic pick it), and a partition's fence to that partition.

On assignment the worker reads the assigned partitions of the changelog from
their beginning to their end offsets (:meth:`Changelog.restore`, a consumer of
its own with no group), and the processor restores each table from those
states when its first event comes. Snapshots and fences are sent with the
worker's producer (``acks=all``) and awaited (:meth:`Changelog.save`,
:meth:`Changelog.save_fences`) before the batch's commit.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Iterator, Mapping
from typing import Any, Protocol

from aiokafka.structs import TopicPartition
from kafka.partitioner.default import murmur2

from tablewatch.processors.restore_fence import decode_fence, encode_fence, fence_key

log = logging.getLogger("tablewatch.worker")
STATE_TABLE = "tablewatch-table-state"


def changelog_topic(app_id: str) -> str:
    """The changelog's name (the one Faust's table of that name had: a site's saved states)."""
    return f"{app_id}-{STATE_TABLE}-changelog"


def key_partition(key: bytes, partitions: int) -> int:
    """The partition of ``key``: the default partitioner's (murmur2), as for the events."""
    return int(murmur2(key) & 0x7FFFFFFF) % partitions


class Sender(Protocol):
    """What the changelog needs of an ``aiokafka.AIOKafkaProducer``."""

    async def send(
        self, topic: str, value: bytes | None = None, key: bytes | None = None,
        partition: int | None = None,
    ) -> Awaitable[Any]: ...  # fmt: skip


class Reader(Protocol):
    """What the restore needs of an ``aiokafka.AIOKafkaConsumer`` (no group)."""

    def assign(self, partitions: list[TopicPartition]) -> None: ...

    async def seek_to_beginning(self, *partitions: TopicPartition) -> bool: ...

    async def end_offsets(self, partitions: list[TopicPartition]) -> dict[TopicPartition, int]: ...

    async def position(self, partition: TopicPartition) -> int: ...

    async def getmany(
        self, *partitions: TopicPartition, timeout_ms: int = 0
    ) -> dict[TopicPartition, list[Any]]: ...


class Changelog:
    def __init__(self, topic: str, partitions: int, producer: Sender) -> None:
        self.topic = topic
        self.partitions = partitions
        self.producer = producer
        self._states: dict[int, dict[bytes, bytes]] = {}  # partition -> key -> latest value
        self.records_restored = 0

    # ---- reading ---------------------------------------------------------------------------

    async def restore(self, reader: Reader, partitions: set[int]) -> None:
        """Read ``partitions`` of the changelog from their beginning to their end offsets;
        their states replace any held before."""
        if not partitions:
            return
        tps = [TopicPartition(self.topic, p) for p in sorted(partitions)]
        reader.assign(tps)
        await reader.seek_to_beginning(*tps)
        end = await reader.end_offsets(tps)
        states: dict[int, dict[bytes, bytes]] = {p: {} for p in partitions}
        left = {tp for tp in tps if end[tp] > 0}
        while left:
            for tp in list(left):
                if await reader.position(tp) >= end[tp]:
                    left.discard(tp)
            if not left:
                break
            fetched = await reader.getmany(*left, timeout_ms=1_000)
            for tp, records in fetched.items():
                held = states[tp.partition]
                for record in records:
                    if record.offset >= end[tp]:
                        continue  # written after the end was read: this worker's own, later
                    self.records_restored += 1
                    if record.key is None:
                        continue
                    if record.value is None:  # a tombstone
                        held.pop(record.key, None)
                    else:
                        held[record.key] = record.value
        self._states.update(states)
        log.info("changelog partitions %s restored: %d states",
                 sorted(partitions), sum(len(s) for s in states.values()))  # fmt: skip

    def drop(self, partitions: set[int]) -> None:
        """Forget the states of ``partitions`` (revoked)."""
        for partition in partitions:
            self._states.pop(partition, None)

    def get(self, key: bytes) -> bytes | None:
        held = self._states.get(key_partition(key, self.partitions))
        return None if held is None else held.get(key)

    def fence(self, partition: int) -> int | None:
        """The restored fence of ``partition`` (None: never fenced; -1: a record that is not
        one, so the partition is read again from its start: slow, nothing lost)."""
        value = self._states.get(partition, {}).get(fence_key(partition))
        if value is None:
            return None
        try:
            return decode_fence(value, partition)
        except ValueError as exc:
            log.error("%s; partition %d is read again from offset 0", exc, partition)
            return -1

    def items(self) -> Iterator[tuple[int, bytes, bytes]]:
        """(partition, key, value) of every state held, fences included."""
        for partition, held in list(self._states.items()):
            for key, value in list(held.items()):
                yield partition, key, value

    # ---- writing ---------------------------------------------------------------------------

    async def _send(self, partition: int, key: bytes, value: bytes) -> Awaitable[Any]:
        """Hand one record to the producer; the awaitable returned is its delivery."""
        return await self.producer.send(self.topic, value=value, key=key, partition=partition)

    async def _write(self, records: list[tuple[int, bytes, bytes]]) -> None:
        deliveries = [await self._send(p, key, value) for p, key, value in records]
        await asyncio.gather(*deliveries)
        for partition, key, value in records:
            self._states.setdefault(partition, {})[key] = value

    async def save(self, snapshots: Mapping[str, bytes]) -> None:
        """Write each table's snapshot; returns once the broker has every one."""
        records = []
        for table_id, data in snapshots.items():
            key = table_id.encode()
            records.append((key_partition(key, self.partitions), key, data))
        await self._write(records)

    async def save_fences(self, through: Mapping[int, int]) -> None:
        """Write each partition's restore fence (the offset its commit is about to reach);
        returns once the broker has every one."""
        await self._write([(p, fence_key(p), encode_fence(o)) for p, o in through.items()])
