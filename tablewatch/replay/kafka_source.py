"""The events topic (``table-events``) between two offsets of each partition, as runs.

A time range is turned into offsets with the broker's ``offsets_for_times``: from the
first message produced at or after ``since``, to the last produced at or before
``until`` (a message's time is when it was produced, the ingest's time, not the
event's ``ts``). Without a bound, the partition's first (or end) offset. The
partitions are read one after another, each in offset order (a table's events are in
one partition, in the order the worker judged them), with aiokafka (its record parsing
in C: 20 times kafka-python's messages/s, measured; kafka-python looks up the partitions
and offsets, which never creates the topic), through the
process's :class:`~tablewatch.kafka_access.KafkaAccess` (TLS, SASL). The messages of
other tables (``--tables``) are skipped by their key, undecoded.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

from tablewatch.kafka_access import KafkaAccess
from tablewatch.replay.fold import Run
from tablewatch.rules.decode import decode_lines
from tablewatch.topics import table_key


class KafkaUnusable(Exception):
    """The topic cannot be read: no broker, no such topic, nothing arriving."""


@dataclass(frozen=True, slots=True)
class PartitionRange:
    partition: int
    start: int  # first offset read
    end: int  # offset after the last one read


class KafkaSource:
    """``topic`` from ``since_ms`` to ``until_ms`` (message times, epoch ms), or between
    the offsets of ``start``/``end`` (partition -> offset; ``end`` exclusive)."""

    def __init__(
        self,
        access: KafkaAccess,
        topic: str,
        *,
        since_ms: int | None = None,
        until_ms: int | None = None,
        start: dict[int, int] | None = None,
        end: dict[int, int] | None = None,
        tables: Collection[str] | None = None,
        timeout_s: float = 30.0,
    ) -> None:
        self.access = access
        self.topic = topic
        self.since_ms = since_ms
        self.until_ms = until_ms
        self.start = start or {}
        self.end = end or {}
        self.keys = frozenset(table_key(t) for t in tables) if tables is not None else None
        self.timeout_s = timeout_s
        self._consumer: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lookup: Any = None
        self._ranges: list[PartitionRange] | None = None

    def _run(self, awaitable: Any) -> Any:
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        return self._loop.run_until_complete(awaitable)

    def _open(self) -> Any:
        if self._consumer is None:
            from aiokafka import AIOKafkaConsumer
            from aiokafka.errors import KafkaError

            async def made() -> Any:  # aiokafka's clients are made in their loop
                return AIOKafkaConsumer(
                    **self.access.aiokafka(),
                    enable_auto_commit=False,
                    group_id=None,
                    request_timeout_ms=int(self.timeout_s * 1000) + 1000,
                    max_partition_fetch_bytes=8 << 20,
                    fetch_max_bytes=64 << 20,
                )

            consumer = self._run(made())
            try:
                self._run(consumer.start())
            except (KafkaError, OSError) as exc:
                self._run(consumer.stop())
                raise self._unreachable(exc) from exc
            self._consumer = consumer
        return self._consumer

    def _at(self) -> str:
        return f"{self.access.bootstrap} ({self.access.describe()})"

    def _text(self, text: str) -> str:
        return self.access.redact(text)

    def _unreachable(self, exc: Exception) -> KafkaUnusable:
        return KafkaUnusable(self._text(f"cannot reach Kafka at {self._at()}: {exc}"))

    def _metadata(self) -> Any:
        """A kafka-python consumer for the topic's partitions and offsets (which never
        creates the topic, as a subscription may)."""
        if self._lookup is None:
            from kafka import KafkaConsumer
            from kafka.errors import KafkaError

            try:
                self._lookup = KafkaConsumer(
                    **self.access.kafka_python(),
                    enable_auto_commit=False,
                    group_id=None,
                    request_timeout_ms=int(self.timeout_s * 1000) + 1000,
                    bootstrap_timeout_ms=5_000,
                )
            except KafkaError as exc:
                raise self._unreachable(exc) from exc
        return self._lookup

    def ranges(self) -> list[PartitionRange]:
        """Each partition's offsets to read (cached)."""
        if self._ranges is not None:
            return self._ranges
        from kafka import TopicPartition
        from kafka.errors import KafkaError

        lookup = self._metadata()
        try:
            parts = lookup.partitions_for_topic(self.topic)
            if not parts:
                raise KafkaUnusable(f"no topic {self.topic} at {self._at()}")
            tps = [TopicPartition(self.topic, p) for p in sorted(parts)]
            first = lookup.beginning_offsets(tps)
            last = lookup.end_offsets(tps)
            since = self._at_times(tps, self.since_ms, last)
            until = self._at_times(tps, None if self.until_ms is None else self.until_ms + 1, last)
        except KafkaError as exc:
            raise KafkaUnusable(self._text(f"reading {self.topic} at {self._at()}: {exc}")) from exc
        ranges = []
        for tp in tps:
            start = max(first[tp], self.start.get(tp.partition, since.get(tp, first[tp])))
            end = min(last[tp], self.end.get(tp.partition, until.get(tp, last[tp])))
            ranges.append(PartitionRange(tp.partition, start, max(start, end)))
        self._ranges = ranges
        return ranges

    def _at_times(self, tps: list[Any], ms: int | None, last: dict[Any, int]) -> dict[Any, int]:
        """Per partition, the first offset whose message time is at or after ``ms`` (the
        end offset when none is)."""
        if ms is None:
            return {}
        found = self._metadata().offsets_for_times(dict.fromkeys(tps, ms))
        return {tp: (found[tp].offset if found.get(tp) is not None else last[tp]) for tp in tps}

    @property
    def total(self) -> int:
        return sum(r.end - r.start for r in self.ranges())

    def describe(self) -> str:
        parts = ",".join(f"{r.partition}:{r.start}-{r.end}" for r in self.ranges())
        return f"{self.topic} offsets {parts or '(none)'}"

    def runs(self) -> Iterator[Run]:
        from aiokafka.errors import KafkaError
        from aiokafka.structs import TopicPartition

        consumer = self._open()
        keys = self.keys
        try:
            for part in self.ranges():
                if part.end <= part.start:
                    continue
                tp = TopicPartition(self.topic, part.partition)
                self._run(_assigned(consumer, tp, part.start))
                where = f"{self.topic} partition {part.partition} offset"
                position = part.start
                while position < part.end:
                    batches = self._run(
                        consumer.getmany(
                            tp, timeout_ms=int(self.timeout_s * 1000), max_records=20_000
                        )
                    )
                    records = batches.get(tp, [])
                    if not records:
                        raise KafkaUnusable(
                            f"{self.topic} partition {part.partition}: nothing read in "
                            f"{self.timeout_s:g} s at offset {position} of {part.end}"
                        )
                    position = records[-1].offset + 1
                    kept = [
                        r
                        for r in records
                        if r.offset < part.end and (keys is None or r.key in keys)
                    ]
                    if not kept:
                        continue
                    lines = [r.value or b"" for r in kept]
                    offsets = [r.offset for r in kept]
                    decoded = decode_lines(lines, where, 0, offsets)
                    for events, rejection in decoded.runs():
                        if events:
                            yield events
                        if rejection is not None:
                            yield rejection
        except KafkaError as exc:
            raise KafkaUnusable(self._text(f"reading {self.topic} at {self._at()}: {exc}")) from exc

    def close(self) -> None:
        if self._lookup is not None:
            self._lookup.close()
            self._lookup = None
        if self._consumer is not None:
            self._run(self._consumer.stop())
            self._consumer = None
        if self._loop is not None:
            self._loop.close()
            self._loop = None


async def _assigned(consumer: Any, tp: Any, offset: int) -> None:
    """``consumer`` on partition ``tp`` alone, from ``offset`` (in its loop, as aiokafka
    wants)."""
    consumer.assign([tp])
    consumer.seek(tp, offset)
