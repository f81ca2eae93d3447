"""Fakes of the aiokafka clients the worker's loop, changelog and commit step use."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from aiokafka.errors import CommitFailedError
from aiokafka.structs import OffsetAndMetadata, TopicPartition

EVENTS = "table-events"


@dataclass
class FakeConsumer:
    """The events consumer: its assignment, the group's committed offsets, its seeks."""

    assigned: set[TopicPartition] = field(default_factory=set)
    committed_offsets: dict[TopicPartition, int] = field(default_factory=dict)
    commits: list[dict[int, int]] = field(default_factory=list)
    seeks: list[tuple[int, int]] = field(default_factory=list)
    refuse: bool = False  # the group refuses commits (a rebalance)
    paused: set[TopicPartition] = field(default_factory=set)
    paused_while_restoring: set[TopicPartition] = field(default_factory=set)

    def assignment(self) -> set[TopicPartition]:
        return set(self.assigned)

    async def commit(self, offsets: Mapping[TopicPartition, OffsetAndMetadata]) -> None:
        if self.refuse:
            raise CommitFailedError("the group has already rebalanced")
        self.commits.append({tp.partition: meta.offset for tp, meta in offsets.items()})
        for tp, meta in offsets.items():
            self.committed_offsets[tp] = meta.offset

    async def committed(self, tp: TopicPartition) -> int | None:
        self.paused_while_restoring |= self.paused  # what was paused while asked
        return self.committed_offsets.get(tp)

    def seek(self, tp: TopicPartition, offset: int) -> None:
        self.seeks.append((tp.partition, offset))

    def pause(self, *partitions: TopicPartition) -> None:
        self.paused |= set(partitions)

    def resume(self, *partitions: TopicPartition) -> None:
        self.paused -= set(partitions)


@dataclass(frozen=True)
class Record:
    offset: int
    key: bytes | None
    value: bytes | None


@dataclass
class FakeReader:
    """The changelog's reader: each partition's records, served a few at a time."""

    log: dict[TopicPartition, list[Record]]
    per_fetch: int = 2
    positions: dict[TopicPartition, int] = field(default_factory=dict)

    def assign(self, partitions: list[TopicPartition]) -> None:
        self.positions = dict.fromkeys(partitions, 0)

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def seek_to_beginning(self, *partitions: TopicPartition) -> bool:
        for tp in partitions:
            self.positions[tp] = 0
        return True

    async def end_offsets(self, partitions: list[TopicPartition]) -> dict[TopicPartition, int]:
        return {tp: len(self.log.get(tp, [])) for tp in partitions}

    async def position(self, tp: TopicPartition) -> int:
        return self.positions[tp]

    async def getmany(
        self, *partitions: TopicPartition, timeout_ms: int = 0
    ) -> dict[TopicPartition, list[Any]]:
        out = {}
        for tp in partitions:
            start = self.positions[tp]
            records = self.log.get(tp, [])[start : start + self.per_fetch]
            if records:
                out[tp] = records
                self.positions[tp] = start + len(records)
        return out


@dataclass
class FakeProducer:
    """Records each send; a send's delivery waits for ``deliver`` (set: at once)."""

    sent: list[tuple[str, int | None, bytes | None, bytes | None]] = field(default_factory=list)
    deliver: asyncio.Event = field(default_factory=asyncio.Event)
    delivered: int = 0

    async def send(
        self, topic: str, value: bytes | None = None, key: bytes | None = None,
        partition: int | None = None,
    ) -> asyncio.Future[None]:  # fmt: skip
        self.sent.append((topic, partition, key, value))
        return asyncio.ensure_future(self._delivery())

    async def _delivery(self) -> None:
        await self.deliver.wait()
        self.delivered += 1
