"""Faust's consumer with eager delivery: a fetched message reaches its stream without new tasks.

Faust hands every fetched message to its streams through
``Service.wait_first(callback(message), suspend_flow.wait())``: four tasks and
an ``asyncio.wait`` per message, so that a delivery blocked on a full stream
buffer (or on flow control during a rebalance) can be abandoned when the flow
is suspended. Measured in the worker, that is about 45 µs of the ~250 µs a
message cost, for a delivery that almost never has to wait.

:class:`EagerDrainConsumer` first runs the delivery coroutine synchronously,
up to its first suspension (what Python 3.12's eager tasks do). Almost always
it finishes there: the message is in the stream's buffer. Only if it has to
wait is the rest of it wrapped in a task and raced against the flow being
suspended and the consumer stopping or crashing, exactly as Faust does.
Everything else in the drain loop (read offsets, gaps, ``broker_commit_every``)
is Faust's behaviour, restated.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Generator
from typing import Any, cast

import faust
from faust.transport.consumer import CONSUMER_FETCHING
from faust.transport.drivers import aiokafka as aiokafka_driver
from faust.types import TP, Message, ServiceT, TransportT
from mode import Service

_YIELD_EVERY = 100  # messages delivered between two turns given to the event loop


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


class EagerDrainConsumer(aiokafka_driver.Consumer):
    """The aiokafka consumer, delivering each message eagerly (see the module's text)."""

    async def _deliver(self, message: Message) -> None:
        if self.suspend_flow.is_set():
            await self.wait_first(self.callback(message), self.suspend_flow.wait())
            return
        delivery = self.callback(message)
        if not asyncio.iscoroutine(delivery):
            await self.wait_first(delivery, self.suspend_flow.wait())
            return
        coro = cast(Coroutine[Any, Any, None], delivery)
        try:
            pending = coro.send(None)
        except StopIteration:
            return  # delivered without waiting
        rest = asyncio.ensure_future(_finish(coro, pending))
        await self.wait_first(rest, self.suspend_flow.wait())

    async def _drain_messages(self, fetcher: ServiceT) -> None:  # pragma: no cover - needs Kafka
        consumer_stopped = cast(Service, self)._stopped.is_set
        fetcher_stopped = cast(Service, fetcher)._stopped.is_set
        read_offsets = self._read_offset
        acks_enabled_for = self.app.topics.acks_enabled_for
        since_yield = 0
        try:
            while not (consumer_stopped() or fetcher_stopped()):
                self.diag.set_flag(CONSUMER_FETCHING)
                records = self.getmany(timeout=1.0)
                await asyncio.sleep(0)  # getmany may return at once, many times over
                if self.should_stop:
                    continue
                tp: TP
                async for tp, message in records:
                    since_yield += 1
                    if since_yield > _YIELD_EVERY:
                        await asyncio.sleep(0)
                        since_yield = 0
                    offset = message.offset
                    read = read_offsets[tp]
                    if read is not None and offset < read:
                        continue  # already delivered (Faust drops these too)
                    if read and offset - read > 1 and acks_enabled_for(message.topic):
                        await self._add_gap(tp, read + 1, offset)
                    commit_every = self._commit_every
                    if commit_every is not None and self._n_acked >= commit_every:
                        self._n_acked = 0
                        await self.commit()
                    await self._deliver(message)
                    read_offsets[tp] = offset
                self.diag.unset_flag(CONSUMER_FETCHING)
        except self.consumer_stopped_errors:
            if self.transport.app.should_stop:
                return
            raise
        except asyncio.CancelledError:
            if self.transport.app.should_stop:
                return
            raise
        except Exception as exc:
            self.log.exception("Drain messages raised: %r", exc)
            raise
        finally:
            self.diag.unset_flag(CONSUMER_FETCHING)


class EagerDrainTransport(aiokafka_driver.Transport):
    Consumer = EagerDrainConsumer


class App(faust.App):
    """A Faust app whose consumer delivers messages eagerly."""

    def _new_transport(self) -> TransportT:
        return EagerDrainTransport(self.conf.broker_consumer, self)
