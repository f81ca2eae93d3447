"""Faust's consumer, never committing an offset of the events topic past a message not processed.

Faust commits, per partition, the highest offset below which every offset is
either acknowledged or marked as a gap in the log. Three of its own moves
could let that offset pass a message the worker never processed; the worker's
events topic (its *strict* topics, ``app.strict_topics``: idempotent,
non-transactional producers, no compaction, so no legitimate holes) is guarded
against each:

- :meth:`CommitGuardedConsumer.perform_seek`: on a first assignment Faust
  seeks the partitions to their committed offsets with the flow running; the
  rest of a batch fetched before the seek then looks like a jump ahead, which
  Faust marks as a gap. The seek runs with the flow stopped, and partitions
  with no committed offset are sent back to offset 0
  (:meth:`~CommitGuardedConsumer._rewind_uncommitted`); partitions whose
  restored tables are older than their committed offset are sent back to the
  message after their restore fence
  (:meth:`~CommitGuardedConsumer._rewind_to_fence`, :mod:`.restore_fence`).
- :meth:`CommitGuardedConsumer._add_gap`: a hole in a strict topic is logged
  and counted (``offset_gaps``), never marked as processed; the commit waits
  at it.
- :meth:`CommitGuardedConsumer.ack`: Faust's own acks of messages its stream
  skipped are refused on the strict topics (``acks_refused``); only the
  worker's :meth:`~CommitGuardedConsumer.ack_processed` acks there.

One more keeps a rebalance from stopping the worker:
:class:`RevocationSafeConsumerThread` answers a commit whose partitions were
all revoked while it waited (Faust checks the assignment, awaits its producer's
flush, and only then commits) with "nothing committed", where aiokafka would
raise on the empty commit and Faust would crash the worker.

These methods override private parts of Faust (versions pinned in
``pyproject.toml``, signatures checked by ``tests/processors/test_faust_private_api.py``).
docs/pipeline.md ("Delivering a message") says why each is needed.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from faust.transport.drivers import aiokafka as aiokafka_driver
from faust.types import TP, Message

from tablewatch.processors.restore_fence import restore_plan

log = logging.getLogger("tablewatch.worker")


class RevocationSafeConsumerThread(aiokafka_driver.AIOKafkaConsumerThread):
    """Faust's consumer thread, for which a commit of revoked partitions only is no commit."""

    async def _commit(self, offsets: Mapping[TP, int]) -> bool:
        assignment = self.assignment()
        if not any(tp in assignment for tp in offsets):
            # Faust filtered these against the assignment before its producer's flush;
            # a rebalance during the flush revoked them all. Their next owner reads
            # them again from the committed offset, as for any revoked partition.
            log.info("commit of revoked partitions only, not sent: %s", sorted(offsets))
            return False
        return bool(await super()._commit(offsets))


class CommitGuardedConsumer(aiokafka_driver.Consumer):
    """The aiokafka consumer of Faust, whose commits never pass an unprocessed message of the
    strict topics (module text)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.offset_gaps = 0  # holes found in the app's strict topics (see _add_gap)
        self.acks_refused = 0  # Faust's own acks of strict-topic messages (see ack)
        self.restores_fenced = 0  # partitions read again from their fence (see perform_seek)
        self._acking_processed = False

    def _new_consumer_thread(self) -> aiokafka_driver.AIOKafkaConsumerThread:
        return RevocationSafeConsumerThread(self, loop=self.loop, beacon=self.beacon)

    def ack(self, message: Message) -> bool:
        """Refuse Faust's own acks on the strict topics: only :meth:`ack_processed` acks.

        The worker's stream does not ack (``noack``), yet Faust still acks a
        message its stream *skips*: one of an older consumer generation (fetched
        before a rebalance, delivered after it) or one that arrives while the
        flow is suspended. Nothing processed such a message; if the partition
        stayed here, its ack could let the commit pass the same offset read
        again in the new generation before that copy is judged. Refused, the
        commit simply waits for the worker's own ack of that copy.
        """
        if not self._acking_processed and message.topic in self._strict_topics():
            self.acks_refused += 1
            return False
        return bool(super().ack(message))

    def ack_processed(self, message: Message) -> None:
        """The worker's ack: everything the message caused is written."""
        self._acking_processed = True
        try:
            message.ack(self)
        finally:
            self._acking_processed = False

    def _strict_topics(self) -> frozenset[str]:
        return getattr(self.app, "strict_topics", frozenset())

    async def perform_seek(self) -> None:
        """Seek to the committed offsets with the flow stopped.

        On a first assignment Faust resumes the partitions, then seeks them to
        their committed offsets with the flow running, so the drain loop may be
        delivering a batch fetched before the seek. The seek sets its read offsets
        back to the committed ones; the rest of that old batch then looks like a
        jump ahead, which Faust takes for a gap in the log and marks as processed,
        so the commit would pass messages never processed. With the flow stopped,
        the drain loop drops the rest of the old batch and reads again from the
        committed offsets; what was delivered twice is skipped by the processor
        (at or below the offset its table last applied).
        """
        resume = self.flow_active
        self.stop_flow()
        try:
            await super().perform_seek()
            await self._rewind_uncommitted()
            await self._rewind_to_fence()
        finally:
            if resume:
                self.resume_flow()

    async def _rewind_uncommitted(self) -> None:
        """Send the strict topics' partitions with no committed offset back to their start.

        aiokafka's ``seek_to_committed`` moves only partitions committed past 0;
        any other keeps the position its fetch had reached, so the messages of
        that fetch which the stopped flow dropped would never come again (a
        worker killed before its first commit, and its successor would lose
        them). Such a partition goes back to offset 0, where
        ``auto_offset_reset=earliest`` started it; what is delivered twice is
        skipped by the processor.
        """
        strict = self._strict_topics()
        uncommitted = [
            tp
            for tp in self.assignment()
            if tp.topic in strict and not self._committed_offset.get(tp)
        ]
        if uncommitted:
            log.info("partitions with no committed offset, read from 0: %s", sorted(uncommitted))
            await self.seek_wait({aiokafka_driver.ensure_aiokafka_TP(tp): 0 for tp in uncommitted})

    async def _rewind_to_fence(self) -> None:
        """Send the strict topics' partitions whose restored tables are older than their
        committed offset back to the message after their restore fence
        (:func:`~.restore_fence.restore_plan`): the messages between are folded again, or
        skipped by the tables that applied them (at or below their state's offset)."""
        fence = getattr(self.app, "restored_fence", None)
        if fence is None:
            return
        strict = self._strict_topics()
        seeks = {}
        for tp in self.assignment():
            if tp.topic not in strict:
                continue
            committed = self._committed_offset.get(tp)
            resume = restore_plan(fence(tp.partition), committed)
            if resume is not None:
                log.warning("partition %s of %s: its tables' states are of offset %d, its "
                            "committed offset is %s: read again from %d",
                            tp.partition, tp.topic, resume - 1, committed, resume)  # fmt: skip
                seeks[aiokafka_driver.ensure_aiokafka_TP(tp)] = resume
        if seeks:
            self.restores_fenced += len(seeks)
            await self.seek_wait(seeks)

    async def _add_gap(self, tp: TP, offset_from: int, offset_to: int) -> None:
        """Faust marks offsets missing from a fetch as processed (compacted topics and
        transaction markers leave such holes). The controllers' events are neither: a
        hole there means messages skipped, so it is logged and not marked, and the
        commit waits at it (a restart reads from there again)."""
        if tp.topic not in self._strict_topics():
            await super()._add_gap(tp, offset_from, offset_to)
            return
        self.offset_gaps += 1
        log.error("partition %s of %s: offsets %d-%d skipped by the consumer; not committed past",
                  tp.partition, tp.topic, offset_from, offset_to)  # fmt: skip
