"""Eager delivery: a delivery that need not wait runs without a task; one that waits is
raced against the flow being suspended, as Faust does it."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from mode import Service

from tablewatch.processors.eager_delivery import EagerDrainConsumer, _finish


class _Waiter(Service):
    """A started-enough mode service, for its ``wait_first``."""


def _consumer(callback: Any) -> Any:
    service = _Waiter()
    return SimpleNamespace(
        callback=callback, suspend_flow=asyncio.Event(), wait_first=service.wait_first
    )


def _message(name: str) -> Any:
    return name  # the consumer only passes it on to its callback


def test_a_delivery_that_need_not_wait_creates_no_task() -> None:
    async def main() -> tuple[list[str], int]:
        delivered: list[str] = []

        async def callback(message: str) -> None:
            delivered.append(message)

        consumer = _consumer(callback)
        created = 0
        loop = asyncio.get_running_loop()
        factory = loop.get_task_factory()

        def counting(loop: asyncio.AbstractEventLoop, coro: Any, **kw: Any) -> asyncio.Task[Any]:
            nonlocal created
            created += 1
            return asyncio.Task(coro, loop=loop, **kw)

        loop.set_task_factory(counting)
        try:
            for message in ("m1", "m2", "m3"):
                await EagerDrainConsumer._deliver(consumer, _message(message))
        finally:
            loop.set_task_factory(factory)
        return delivered, created

    delivered, created = asyncio.run(main())
    assert delivered == ["m1", "m2", "m3"]
    assert created == 0


def test_a_waiting_delivery_finishes_when_its_buffer_frees() -> None:
    async def main() -> list[str]:
        delivered: list[str] = []
        room = asyncio.Event()

        async def callback(message: str) -> None:
            await room.wait()  # a full stream buffer
            delivered.append(message)

        consumer = _consumer(callback)
        delivering = asyncio.ensure_future(EagerDrainConsumer._deliver(consumer, _message("m1")))
        await asyncio.sleep(0.01)
        assert delivered == [] and not delivering.done()
        room.set()
        await asyncio.wait_for(delivering, 1)
        return delivered

    assert asyncio.run(main()) == ["m1"]


def test_a_waiting_delivery_is_abandoned_when_the_flow_is_suspended() -> None:
    async def main() -> tuple[list[str], bool]:
        delivered: list[str] = []
        cancelled = False

        async def callback(message: str) -> None:
            nonlocal cancelled
            try:
                await asyncio.Event().wait()  # never has room
                delivered.append(message)
            except asyncio.CancelledError:
                cancelled = True
                raise

        consumer = _consumer(callback)
        delivering = asyncio.ensure_future(EagerDrainConsumer._deliver(consumer, _message("m1")))
        await asyncio.sleep(0.01)
        consumer.suspend_flow.set()  # a rebalance starts
        await asyncio.wait_for(delivering, 1)
        await asyncio.sleep(0.01)  # the abandoned delivery sees its cancellation
        return delivered, cancelled

    assert asyncio.run(main()) == ([], True)


def test_the_rest_of_a_stepped_coroutine_returns_its_value_and_takes_errors() -> None:
    async def main() -> tuple[int, str]:
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        async def double() -> int:
            return 2 * await future

        coro = double()
        first = coro.send(None)  # suspended on the future
        rest = asyncio.ensure_future(_finish(coro, first))
        future.set_result(21)
        value = await rest

        failing: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        async def fails() -> int:
            try:
                return await failing
            except ValueError as exc:
                return -len(str(exc))

        coro2 = fails()
        rest2 = asyncio.ensure_future(_finish(coro2, coro2.send(None)))
        failing.set_exception(ValueError("bad"))
        return value, str(await rest2)

    assert asyncio.run(main()) == (42, "-3")
