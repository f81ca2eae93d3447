"""The commit step: the one place that moves the worker's committed offsets of the events topic.

Every message the consumer loop hands to the processor gets a :class:`Ticket`
(:meth:`CommitStep.track`); the processor hands it back in a batch once what
the message caused is in that batch (a round's messages once the round is
judged). The batch writer calls :meth:`CommitStep.commit` with a batch's
tickets as its last step, after the batch's rows, output messages, table
snapshots and restore fence are written and acknowledged (``batch_writer.py``).

The offset committed per partition is the one after the highest *contiguous*
released message: a message released while an earlier one of its partition
still waits (a round still open on another table) moves nothing, so the
committed offset never passes a message whose effects are not stored. A hole
in a partition's offsets (the events topic has none: no compaction, no
transactions) is logged and counted (``gaps``), and the commit stops before it
until the partition is assigned again (a restart reads from there).

A commit the group refuses (a rebalance took the partition: ``CommitFailedError``,
or it is no longer assigned) is not retried for those partitions: their next owner
reads from the last committed offset, and what it reads again is skipped by the
tables' saved offsets or stored again idempotently.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Awaitable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from aiokafka.errors import CommitFailedError, IllegalStateError, KafkaError
from aiokafka.structs import OffsetAndMetadata, TopicPartition

log = logging.getLogger("tablewatch.worker")


@dataclass(slots=True, eq=False)
class Ticket:
    """One message handed to the processor: done once ``released``."""

    partition: int
    offset: int
    released: bool = False


class Committer(Protocol):
    """What the step needs of an ``aiokafka.AIOKafkaConsumer``."""

    def assignment(self) -> set[TopicPartition]: ...

    def commit(self, offsets: Mapping[TopicPartition, OffsetAndMetadata]) -> Awaitable[None]: ...


@dataclass(slots=True)
class _Partition:
    waiting: deque[Ticket] = field(default_factory=deque)  # tracked, in offset order
    done: int | None = None  # the highest offset released with every earlier one
    last: int | None = None  # the highest offset tracked
    gap: int | None = None  # the first offset missing from the partition: never passed


class CommitStep:
    def __init__(self, consumer: Committer, topic: str) -> None:
        self.consumer = consumer
        self.topic = topic
        self._partitions: dict[int, _Partition] = {}
        self.committed: dict[int, int] = {}  # partition -> the offset the group reads next
        self.gaps = 0  # holes found in a partition's offsets
        self.commits = 0  # commit requests sent
        self.refused = 0  # commit requests the group refused (rebalance)
        self._unsent: set[int] = set()  # partitions whose last commit failed: sent again

    def track(self, partition: int, offset: int) -> Ticket:
        """A ticket for the message at ``offset``, handed to the processor with it."""
        state = self._partitions.get(partition)
        if state is None:
            state = self._partitions[partition] = _Partition()
        last = state.last
        if last is not None and offset != last + 1 and state.gap is None:
            self.gaps += 1
            state.gap = last + 1
            log.error("partition %d of %s: offsets %d-%d skipped by the consumer; not "
                      "committed past", partition, self.topic, last + 1, offset - 1)  # fmt: skip
        state.last = offset
        ticket = Ticket(partition, offset)
        state.waiting.append(ticket)
        return ticket

    def through(self, tickets: Iterable[Ticket]) -> dict[int, int]:
        """The offset through which each partition is done once ``tickets`` are released
        (only partitions that would advance); changes nothing. The restore fence's value."""
        mine = {id(ticket) for ticket in tickets}
        ahead: dict[int, int] = {}
        for partition, state in self._partitions.items():
            last = None
            for ticket in state.waiting:
                if not (ticket.released or id(ticket) in mine) or _past_gap(state, ticket):
                    break
                last = ticket.offset
            if last is not None:
                ahead[partition] = last
        return ahead

    def release(self, tickets: Iterable[Ticket]) -> set[int]:
        """Mark ``tickets`` done; returns the partitions whose done offset moved."""
        touched = set()
        for ticket in tickets:
            ticket.released = True
            touched.add(ticket.partition)
        moved = set()
        for partition in touched:
            state = self._partitions.get(partition)  # None: forgotten in a rebalance
            if state is None:
                continue
            queue = state.waiting
            while queue and queue[0].released and not _past_gap(state, queue[0]):
                state.done = queue.popleft().offset
                moved.add(partition)
        return moved

    async def commit(self, tickets: Iterable[Ticket]) -> None:
        """Release ``tickets`` and commit, for each partition that moved and is still
        assigned, the offset after its highest contiguous done message."""
        moved = self.release(tickets) | self._unsent
        if not moved:
            return
        assigned = self.consumer.assignment()
        offsets: dict[TopicPartition, OffsetAndMetadata] = {}
        for partition in moved:
            state = self._partitions.get(partition)
            done = None if state is None else state.done
            tp = TopicPartition(self.topic, partition)
            if done is not None and tp in assigned:
                offsets[tp] = OffsetAndMetadata(done + 1, "")
        if not offsets:
            return
        self.commits += 1
        try:
            await self.consumer.commit(offsets)
        except (CommitFailedError, IllegalStateError) as exc:
            self.refused += 1
            log.warning("commit of %s refused (%s): their next owner reads them from the "
                        "last committed offset", sorted(tp.partition for tp in offsets),
                        exc)  # fmt: skip
            return
        except KafkaError as exc:  # the next batch's commit covers these offsets too
            self.refused += 1
            log.warning("commit of %s failed (%s); the next one covers it",
                        sorted(tp.partition for tp in offsets), exc)  # fmt: skip
            self._unsent.update(tp.partition for tp in offsets)
            return
        self._unsent.clear()
        for tp, meta in offsets.items():
            self.committed[tp.partition] = meta.offset

    def assigned(self, partition: int, committed: int | None) -> None:
        """A partition assigned, whose committed offset is ``committed`` (None: nothing)."""
        self._partitions.pop(partition, None)
        self._unsent.discard(partition)
        if committed is None:
            self.committed.pop(partition, None)
        else:
            self.committed[partition] = committed

    def forget(self, partitions: Iterable[int]) -> int:
        """Drop the tickets of ``partitions`` (revoked: their next owner reads them again
        from the committed offset); returns how many were waiting."""
        dropped = 0
        for partition in partitions:
            state = self._partitions.pop(partition, None)
            if state is not None:
                dropped += len(state.waiting)
            self.committed.pop(partition, None)
            self._unsent.discard(partition)
        return dropped

    def waiting(self) -> int:
        """Messages tracked and not yet done."""
        return sum(len(state.waiting) for state in self._partitions.values())


def _past_gap(state: _Partition, ticket: Ticket) -> bool:
    return state.gap is not None and ticket.offset >= state.gap
