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

The consumer is built on :class:`~.commit_guards.CommitGuardedConsumer`: a
faster drain loop makes a race in Faust's first seek after a start likely, and
the guards keep the commit from passing what that race (or Faust's own acks of
skipped messages) would leave unprocessed. ``wait_first`` and the consumer
callback are Faust's and mode's private parts (versions pinned in
``pyproject.toml``, signatures checked by
``tests/processors/test_faust_private_api.py``); docs/pipeline.md
("Delivering a message") tells how the two fit.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import Any

import faust
from faust.transport.drivers import aiokafka as aiokafka_driver
from faust.types import Message, TransportT
from mode.services import WaitArgT, WaitResults
from mode.utils.times import Seconds

from tablewatch.processors.commit_guards import CommitGuardedConsumer


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


class SteppedDeliveryConsumer(CommitGuardedConsumer):
    """The aiokafka consumer of Faust (with the commit guards), delivering by a synchronous
    first step (module text)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        deliver: Callable[[Message], Awaitable[None]] = self.callback
        self.callback = lambda message: _Delivery(deliver(message))  # type: ignore[arg-type]

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

    def _must_race(self) -> bool:
        """Flow suspended, consumer stopping or crashed: Faust's race decides."""
        return self.suspend_flow.is_set() or self._stopped.is_set() or self._crashed.is_set()


class SteppedDeliveryTransport(aiokafka_driver.Transport):
    Consumer = SteppedDeliveryConsumer


class SteppedDeliveryApp(faust.App):
    """A Faust app whose consumer delivers messages by a synchronous first step, and whose
    commits never pass an unprocessed message of ``strict_topics``."""

    # topics whose offsets have no holes: the commit guards' (see .commit_guards)
    strict_topics: frozenset[str] = frozenset()
    # partition -> its restore fence, read after the seek to the committed offsets
    # (.restore_fence); None: no fence, partitions are read from their committed offsets
    restored_fence: Callable[[int], int | None] | None = None

    def _new_transport(self) -> TransportT:
        return SteppedDeliveryTransport(self.conf.broker_consumer, self)
