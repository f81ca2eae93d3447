"""The worker's consumer loop: ``table-events`` read in batches by a plain aiokafka consumer.

It runs as a task of the Faust app (which keeps the web views, timers and
tasks). One ``getmany`` call fetches up to ``flush_size`` messages; each gets
a ticket of the commit step (:mod:`.commit_step`) and the whole fetch goes to
the processor in one call per partition. The batch writer writes what the
processor drains and the commit step commits, in that order, and nothing else
commits (``enable_auto_commit=False``).

Rebalances (a :class:`aiokafka.ConsumerRebalanceListener`, whose callbacks the
consumer awaits before the group goes on):

- revoked: what was judged of those partitions is cut, written and committed
  (within half the session timeout), then their tables, open rounds and
  tickets are forgotten (``Host.partitions_revoked``); the next owner restores
  the tables' last snapshots and reads the rest again from the committed offset;
- assigned: the partitions are paused (aiokafka's assignment is live before the
  callback, and a message folded before its table is restored would run it from
  nothing), the changelog's partitions are read to their end (:mod:`.changelog`),
  each partition's restore fence is compared with its committed offset
  (:func:`.restore_fence.restore_plan`) and the partition is read again from the
  message after its fence when the fence is behind; then the partitions resume.
  A fetch of a partition not yet restored is not handed over: the partition is sent
  back to its first message.

A partition with no committed offset is read from its start (``auto_offset_reset``
``earliest``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener
from aiokafka.structs import TopicPartition

from tablewatch.processors.changelog import Changelog
from tablewatch.processors.commit_step import CommitStep, Ticket
from tablewatch.processors.processor import LiveProcessor
from tablewatch.processors.restore_fence import restore_plan
from tablewatch.store.errors import describe

log = logging.getLogger("tablewatch.worker")
RESTORE_RETRY_MAX_S = 10.0


class _Listener(ConsumerRebalanceListener):  # type: ignore[misc]
    def __init__(self, loop: EventsLoop) -> None:
        self.loop = loop

    async def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        await self.loop.revoked(revoked)

    async def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        await self.loop.assigned(assigned)


class EventsLoop:
    """The consumer, its rebalances and what /health and /metrics read of them."""

    def __init__(
        self,
        consumer: AIOKafkaConsumer,
        reader: AIOKafkaConsumer,
        topic: str,
        processor: LiveProcessor[Ticket],
        changelog: Changelog,
        *,
        max_records: int,
        poll_ms: int,
        flush_due: Callable[[], bool],
        flush: Callable[[], Awaitable[None]],
        partitions_revoked: Callable[[set[int]], Awaitable[None]],
        stopping: Callable[[], object] = lambda: None,
    ) -> None:
        self.consumer = consumer
        self.reader = reader  # reads the changelog on assignment (no group)
        self.topic = topic
        self.processor = processor
        self.changelog = changelog
        self.commits = CommitStep(consumer, topic)
        self.max_records = max_records
        self.poll_ms = poll_ms
        self._flush_due = flush_due
        self._flush = flush
        self._partitions_revoked = partitions_revoked
        self._stopping = stopping
        self.state = "starting"  # what /health says until the first assignment
        self.rebalances = 0
        self.restores_fenced = 0  # partitions read again from their restore fence
        self.partitions: set[int] = set()  # assigned partitions of the events topic
        self.positions: dict[int, int] = {}  # partition -> last offset handed to the processor
        self.delay_s = 0.0  # the last message's time since it was produced

    async def run(self) -> None:
        """Consume until cancelled."""
        consumer = self.consumer
        await self.reader.start()
        await consumer.start()
        try:
            consumer.subscribe([self.topic], listener=_Listener(self))
            handle, track = self.processor.handle_batch, self.commits.track
            while True:
                fetched = await consumer.getmany(
                    timeout_ms=self.poll_ms, max_records=self.max_records
                )
                for tp, records in fetched.items():
                    partition = tp.partition
                    if partition not in self.partitions:  # not restored yet: read it again
                        consumer.seek(tp, records[0].offset)
                        continue
                    handle([
                        (r.value if r.value is not None else b"", partition, r.offset,
                         track(partition, r.offset))
                        for r in records
                    ])  # fmt: skip
                    last = records[-1]
                    self.positions[partition] = last.offset
                    self.delay_s = time.time() - last.timestamp / 1000
                if self._flush_due():
                    await self._flush()
        finally:
            # leaving the group hands the partitions over at once: what is being written
            # still goes to the store and the output topics, but no snapshot, fence or
            # commit (their next owner may have read the changelog already)
            self._stopping()
            self.partitions = set()
            await consumer.stop()
            await self.reader.stop()

    async def revoked(self, revoked: set[TopicPartition]) -> None:
        self.state = "rebalancing"
        self.rebalances += 1
        partitions = {tp.partition for tp in revoked if tp.topic == self.topic}
        self.partitions -= partitions
        if not partitions:
            return
        try:
            await self._partitions_revoked(partitions)
        finally:
            waiting = self.commits.forget(partitions)
            self.changelog.drop(partitions)
            for partition in partitions:
                self.positions.pop(partition, None)
            log.info("rebalance: partitions %s revoked, %d messages dropped",
                     sorted(partitions), waiting)  # fmt: skip

    async def assigned(self, assigned: set[TopicPartition]) -> None:
        self.state = "restoring state"
        tps = {tp for tp in assigned if tp.topic == self.topic}
        partitions = {tp.partition for tp in tps}
        # the assignment is live before this callback: nothing is fetched until restored
        self.consumer.pause(*tps)
        attempt = 0
        while True:
            try:
                await self._restore(tps)
                break
            except Exception as exc:  # the broker's trouble: nothing is consumed meanwhile
                delay = min(RESTORE_RETRY_MAX_S, 0.5 * 2**attempt)
                log.warning("restoring partitions %s failed (%s); again in %.1f s",
                            sorted(partitions), describe(exc), delay)  # fmt: skip
                attempt += 1
                await asyncio.sleep(delay)
        self.partitions = partitions
        self.consumer.resume(*tps)
        self.state = "ok" if partitions else "no partitions assigned"

    async def _restore(self, tps: set[TopicPartition]) -> None:
        """The changelog read, then each partition sent to its committed offset or, when its
        tables were saved before it, to the message after its fence."""
        await self.changelog.restore(self.reader, {tp.partition for tp in tps})
        for tp in sorted(tps):
            committed = await self.consumer.committed(tp)
            self.commits.assigned(tp.partition, committed)
            resume = restore_plan(self.changelog.fence(tp.partition), committed)
            if resume is not None:
                log.warning("partition %s of %s: its tables' states are of offset %d, its "
                            "committed offset is %s: read again from %d",
                            tp.partition, tp.topic, resume - 1, committed, resume)  # fmt: skip
                self.consumer.seek(tp, resume)
                self.restores_fenced += 1

    async def highwater(self, partition: int) -> int | None:
        """The partition's end offset: the last fetch's, or the broker's before any fetch."""
        tp = TopicPartition(self.topic, partition)
        high: int | None = self.consumer.highwater(tp)
        if high is None:
            try:
                high = (await self.consumer.end_offsets([tp])).get(tp)
            except Exception:  # unknown for now (not assigned any longer, broker away)
                return None
        return high

    def readiness(self) -> str:
        if self.state == "ok" and not self.partitions:
            return "no partitions assigned"
        return self.state


def consumer_settings(
    group_id: str, session_timeout_s: float, access: dict[str, Any]
) -> dict[str, Any]:
    """The events consumer's settings: the app's group, commits by the commit step only."""
    return {
        **access,
        "group_id": group_id,
        "enable_auto_commit": False,
        "auto_offset_reset": "earliest",
        "session_timeout_ms": int(session_timeout_s * 1000),
        "heartbeat_interval_ms": int(max(1.0, session_timeout_s / 10) * 1000),
    }
