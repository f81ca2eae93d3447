"""Faust's consumer, delivering a fetched message without four new tasks when it need not wait.

Faust hands every fetched message to its streams with
``wait_first(callback(message), suspend_flow.wait())``: four tasks (the
delivery, and one waiting for each of: the flow suspended, the consumer
stopped, the consumer crashed), an ``asyncio.wait`` and three cancellations
per message, so that a delivery stuck on a full stream buffer or on flow
control can be abandoned when a rebalance suspends the flow. In the worker
that was about a third of the main thread, for a delivery that almost never
waits.

:class:`SteppedDeliveryConsumer` runs the delivery coroutine synchronously up to
its first suspension. Almost always it finishes there (the message is in the
stream's buffer); the drain loop then gives the event loop one turn, as
Faust's race does for every message. If the delivery has to wait, the rest of
it becomes a task raced exactly as Faust races it. While the flow is
suspended, or the consumer is stopping or has crashed, Faust's path is taken
unchanged. The drain loop itself (read offsets, commits) stays Faust's; only
this one ``wait_first`` call is answered differently.

A faster drain loop makes a race in Faust's first seek after a start likely
(a restarted worker lost messages in 2 of 4 crash tests):
:meth:`SteppedDeliveryConsumer.perform_seek` and
:meth:`SteppedDeliveryConsumer._add_gap` close it; docs/pipeline.md tells the
story ("Delivering a message").
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import Any

import faust
from faust.transport.drivers import aiokafka as aiokafka_driver
from faust.types import TP, Message, TransportT
from mode.services import WaitArgT, WaitResults
from mode.utils.times import Seconds

log = logging.getLogger("tablewatch.worker")


class _Delivery:
    """A message's delivery to its streams (the consumer callback's coroutine), recognisable."""

    __slots__ = ("coro",)

    def __init__(self, coro: Coroutine[Any, Any, None]) -> None:
        self.coro = coro

    def __await__(self) -> Generator[Any, None, None]:
        return self.coro.__await__()


class _Rest:
    """Awaitable continuing a coroutine already stepped once (what ``yield from`` does)."""

    __slots__ = ("_coro", "_pending")

    def __init__(self, coro: Coroutine[Any, Any, Any], pending: Any) -> None:
        self._coro = coro
        self._pending = pending  # what its first step yielded (a future to wait for)

    def __await__(self) -> Generator[Any, Any, Any]:
        coro, pending = self._coro, self._pending
        while True:
            try:
                sent = yield pending
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as exc:  # cancellation: pass it on to the delivery
                try:
                    pending = coro.throw(exc)
                except StopIteration as done:
                    return done.value
            else:
                try:
                    pending = coro.send(sent)
                except StopIteration as done:
                    return done.value


async def _finish(coro: Coroutine[Any, Any, Any], pending: Any) -> Any:
    return await _Rest(coro, pending)


class SteppedDeliveryConsumer(aiokafka_driver.Consumer):
    """The aiokafka consumer of Faust, delivering by a synchronous first step (module text)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        deliver: Callable[[Message], Awaitable[None]] = self.callback
        self.callback = lambda message: _Delivery(deliver(message))  # type: ignore[arg-type]
        self.offset_gaps = 0  # holes found in the app's strict topics (see _add_gap)
        self.acks_refused = 0  # Faust's own acks of strict-topic messages (see ack)
        self._acking_processed = False

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

    async def wait_first(self, *coros: WaitArgT, timeout: Seconds = None) -> WaitResults:  # type: ignore[assignment]
        delivery = coros[0] if len(coros) == 2 and timeout is None else None
        if not isinstance(delivery, _Delivery) or self._must_race():
            return await super().wait_first(*coros, timeout=timeout)
        flow_wait = coros[1]
        if asyncio.iscoroutine(flow_wait):
            flow_wait.close()  # not needed: the flow is not suspended now
        coro = delivery.coro
        try:
            pending = coro.send(None)
        except StopIteration:
            await asyncio.sleep(0)  # the event loop's turn, as Faust's race gives one
            return WaitResults([delivery], [None], False)
        rest = asyncio.ensure_future(_finish(coro, pending))
        return await super().wait_first(rest, self.suspend_flow.wait())

    async def perform_seek(self) -> None:
        """Seek to the committed offsets with the flow stopped.

        On a first assignment Faust resumes the partitions, then seeks them to
        their committed offsets with the flow running, so the drain loop may be
        delivering a batch fetched before the seek. The seek sets its read offsets
        back to the committed ones; the rest of that old batch then looks like a
        jump ahead, which Faust takes for a gap in the log and marks as processed,
        so the commit passes messages never processed (seen here: a restarted
        worker lost messages). With the flow stopped, the drain loop drops the
        rest of the old batch and reads again from the committed offsets; what
        was delivered twice is skipped by the processor (at or below the offset
        its table last applied).
        """
        resume = self.flow_active
        self.stop_flow()
        try:
            await super().perform_seek()
            await self._rewind_uncommitted()
        finally:
            if resume:
                self.resume_flow()

    async def _rewind_uncommitted(self) -> None:
        """Send the strict topics' partitions with no committed offset back to their start.

        aiokafka's ``seek_to_committed`` moves only partitions committed past 0;
        any other keeps the position its fetch had reached, so the messages of
        that fetch which the stopped flow dropped never came again (seen in a
        crash test, session 6: a worker killed before its first commit, and its
        successor lost thousands of events). Such a partition goes back to
        offset 0, where ``auto_offset_reset=earliest`` started it; what is
        delivered twice is skipped by the processor.
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

    def _must_race(self) -> bool:
        """Flow suspended, consumer stopping or crashed: Faust's race decides."""
        return self.suspend_flow.is_set() or self._stopped.is_set() or self._crashed.is_set()


class SteppedDeliveryTransport(aiokafka_driver.Transport):
    Consumer = SteppedDeliveryConsumer


class SteppedDeliveryApp(faust.App):
    """A Faust app whose consumer delivers messages by a synchronous first step."""

    strict_topics: frozenset[str] = frozenset()  # topics whose offsets have no holes

    def _new_transport(self) -> TransportT:
        return SteppedDeliveryTransport(self.conf.broker_consumer, self)
