"""Stepped delivery (``processors/stepped_delivery.py``): a fetched message is delivered
synchronously when its delivery does not wait, and by Faust's race otherwise.

The drain loop calls ``wait_first(callback(message), suspend_flow.wait())``; these tests make
that call on a consumer without a broker, with mode's race (``Service.wait_first``) spied on.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
from faust.types import TP, Message
from mode.services import Service, WaitResults

from tablewatch.processors.commit_guards import CommitGuardedConsumer
from tablewatch.processors.stepped_delivery import SteppedDeliveryApp, SteppedDeliveryConsumer
from tests.processors.faust_consumers import EVENTS, FakeBroker, consumer_on, message, run

Races = list[tuple[Any, ...]]


@pytest.fixture
def races(monkeypatch: pytest.MonkeyPatch) -> Races:
    """The calls of mode's race (Faust's path), each with the awaitables it was given."""
    calls: Races = []
    race = Service.wait_first

    async def spy(self: Service, *coros: Any, timeout: Any = None) -> WaitResults:
        calls.append(coros)
        return await race(self, *coros, timeout=timeout)

    monkeypatch.setattr(Service, "wait_first", spy)
    return calls


def _consumer(deliver: Callable[[Message], Coroutine[Any, Any, None]]) -> SteppedDeliveryConsumer:
    return consumer_on(SteppedDeliveryConsumer, FakeBroker({TP(EVENTS, 0)}, {}), deliver)


def _as_the_drain_loop(consumer: SteppedDeliveryConsumer) -> Coroutine[Any, Any, WaitResults]:
    """What Faust's drain loop awaits for each fetched message (here offset 5 of partition 0)."""
    return consumer.wait_first(
        consumer.callback(message(EVENTS, 0, 5)), consumer.suspend_flow.wait()
    )


def test_a_delivery_that_does_not_wait_is_made_at_once_without_the_race(races: Races) -> None:
    order: list[object] = []

    async def deliver(message: Message) -> None:
        order.append(("delivered", message.offset))

    async def scenario() -> tuple[WaitResults, Coroutine[Any, Any, Any]]:
        consumer = _consumer(deliver)
        asyncio.get_running_loop().call_soon(order.append, "the loop's next turn")
        flow_wait = consumer.suspend_flow.wait()
        results = await consumer.wait_first(consumer.callback(message(EVENTS, 0, 5)), flow_wait)
        order.append("returned")
        return results, flow_wait

    results, flow_wait = run(scenario())
    # delivered before the loop ran anything else; the loop had its turn before the return
    assert order == [("delivered", 5), "the loop's next turn", "returned"]
    assert races == []
    assert results.results == [None] and len(results.done) == 1 and not results.stopped
    assert inspect.getcoroutinestate(flow_wait) == inspect.CORO_CLOSED  # never left pending


def test_a_delivery_that_must_wait_is_finished_by_the_race(races: Races) -> None:
    order: list[str] = []

    async def scenario() -> WaitResults:
        room = asyncio.Event()  # the stream's buffer is full until it is set

        async def deliver(message: Message) -> None:
            order.append("started")
            await room.wait()
            order.append("finished")

        consumer = _consumer(deliver)
        waiting = asyncio.ensure_future(_as_the_drain_loop(consumer))
        for _ in range(5):
            await asyncio.sleep(0)
        assert not waiting.done() and order == ["started"]
        room.set()
        return await waiting

    results = run(scenario())
    assert order == ["started", "finished"]
    assert len(races) == 1 and len(races[0]) == 2  # the rest of the delivery, the flow's wait
    assert results.results == [None] and not results.stopped


def test_a_waiting_delivery_is_abandoned_when_the_flow_is_suspended(races: Races) -> None:
    """What the race is for: a rebalance suspends the flow while a delivery is stuck."""
    order: list[str] = []

    async def scenario() -> WaitResults:
        async def deliver(message: Message) -> None:
            order.append("started")
            try:
                await asyncio.Event().wait()  # never
            except asyncio.CancelledError:
                order.append("cancelled")
                raise

        consumer = _consumer(deliver)
        waiting = asyncio.ensure_future(_as_the_drain_loop(consumer))
        await asyncio.sleep(0)
        consumer.stop_flow()
        results = await waiting
        await asyncio.sleep(0)  # the cancelled delivery's turn to see it
        return results

    results = run(scenario())
    assert order == ["started", "cancelled"]
    assert results.results == [True] and not results.stopped  # the flow's wait won


@pytest.mark.parametrize("state", ["flow suspended", "stopping", "crashed"])
def test_faust_race_decides_while_the_flow_is_suspended_or_the_consumer_stops(
    state: str, races: Races
) -> None:
    async def deliver(message: Message) -> None:
        return None

    async def scenario() -> tuple[object, object]:
        consumer = _consumer(deliver)
        if state == "flow suspended":
            consumer.stop_flow()
        elif state == "stopping":
            consumer._stopped.set()
        else:
            consumer._crashed.set()
        delivery = consumer.callback(message(EVENTS, 0, 5))
        flow_wait = consumer.suspend_flow.wait()
        await consumer.wait_first(delivery, flow_wait)
        return delivery, flow_wait

    delivery, flow_wait = run(scenario())
    assert races == [(delivery, flow_wait)]  # Faust's path, with the drain loop's own awaitables


def test_other_waits_are_faust_own(races: Races) -> None:
    async def scenario() -> None:
        consumer = _consumer(_ignore)
        await consumer.wait_first(asyncio.sleep(0), timeout=1.0)
        await consumer.wait_first(asyncio.sleep(0), asyncio.sleep(0))
        await consumer.wait_first(consumer.callback(message(EVENTS, 0, 5)), timeout=1.0)

    run(scenario())
    assert len(races) == 3


def test_a_failing_delivery_fails_the_wait_as_in_faust_race(races: Races) -> None:
    async def deliver(message: Message) -> None:
        raise ValueError("no such stream")

    async def scenario() -> None:
        consumer = _consumer(deliver)
        await _as_the_drain_loop(consumer)

    with pytest.raises(ValueError, match="no such stream"):
        run(scenario())


def test_the_app_consumes_with_the_stepped_and_guarded_consumer() -> None:
    async def scenario() -> object:
        app = SteppedDeliveryApp("tablewatch-unit", broker="kafka://127.0.0.1:1", store="memory://")
        return app.consumer

    consumer = run(scenario())
    assert isinstance(consumer, SteppedDeliveryConsumer)
    assert isinstance(consumer, CommitGuardedConsumer)


async def _ignore(message: Message) -> None:
    return None
