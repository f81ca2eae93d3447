"""Writing the worker's batches, one at a time and in order, and what a rebalance leaves of them.

A batch is written in four awaited steps: ClickHouse rows, then the
``rounds``/``findings``/dead-letter messages, then the tables' snapshots
(the changelog messages acknowledged by the broker), then the acks. So a
message's ack, and with it Kafka's committed offset, never passes anything it
caused, and never passes the snapshot of its table.

Why the snapshots are awaited here: Faust writes a table's changelog through
a buffer, and its commit flushes that buffer first, but the flush gives up
after 0.1 s without a send and the commit goes on. A committed offset could
then pass a snapshot still in the buffer, and after a rebalance the next
owner of the partition restored the older snapshot and never saw the events
in between: a ``SEQUENCE_GAP`` finding that was not the table's, and a stub
count check that missed (CI, session 6).

Generations: a rebalance that takes partitions away waits for the batches cut
before it, within a limit (the group does not wait forever). Whatever it
stops waiting for belongs to an older generation: those batches still write
their rows and messages (idempotent, keyed by stable ids) but no snapshot and
no ack, because the processor has forgotten their tables and the next owner
restores the last snapshot written and reads the rest of the partition again.
A snapshot written after that would roll the table's saved state back under
the next owner.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from tablewatch.processors.processor import Batch

log = logging.getLogger("tablewatch.worker")
Token = TypeVar("Token")


@dataclass(frozen=True, slots=True)
class Sinks(Generic[Token]):
    """Where a batch goes, each step awaited before the next."""

    insert_rows: Callable[[Batch[Token]], Awaitable[None]]  # ClickHouse
    send_messages: Callable[[Batch[Token]], Awaitable[None]]  # output topics, delivered
    save_snapshots: Callable[[Mapping[str, bytes]], Awaitable[None]]  # changelog, delivered
    release: Callable[[list[Token]], object]  # the acks


class BatchWriter(Generic[Token]):
    def __init__(self, sinks: Sinks[Token], max_waiting: int = 4) -> None:
        self.sinks = sinks
        self.generation = 0
        self._queue: asyncio.Queue[tuple[int, Batch[Token]]] = asyncio.Queue(max_waiting)
        self.flushes = 0
        self.write_seconds = 0.0
        self.stale = 0  # batches written after a rebalance stopped waiting for them

    def waiting(self) -> int:
        return self._queue.qsize()

    async def put(self, batch: Batch[Token]) -> None:
        """Queue a batch of the current generation (waits while the writer is behind)."""
        await self._queue.put((self.generation, batch))

    async def run(self) -> None:
        """Write the queued batches in order, forever."""
        while True:
            generation, batch = await self._queue.get()
            try:
                await self.write(batch, generation)
            finally:
                self._queue.task_done()

    async def write(self, batch: Batch[Token], generation: int) -> None:
        started = time.perf_counter()
        await self.sinks.insert_rows(batch)
        await self.sinks.send_messages(batch)
        if generation == self.generation and batch.snapshots:
            await self.sinks.save_snapshots(batch.snapshots)
        # a rebalance may have given up on this batch while the snapshots were sent
        if generation == self.generation:
            self.sinks.release(batch.acks)
        else:
            self.stale += 1
            log.warning(
                "a batch of %d messages was written after the rebalance that revoked its "
                "partitions: its rows and messages are written, its snapshots and acks are not",
                len(batch),
            )
        self.flushes += 1
        self.write_seconds += time.perf_counter() - started

    async def settle(self, timeout_s: float) -> bool:
        """Wait until every queued batch is written; False if ``timeout_s`` passed first.

        Either way the generation ends here: a batch still waiting is written
        without its snapshots and acks (see the module docstring).
        """
        try:
            await asyncio.wait_for(self._queue.join(), timeout=timeout_s)
            return True
        except TimeoutError:
            return False
        finally:
            self.generation += 1
