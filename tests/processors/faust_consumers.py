"""The worker's Faust consumers without a broker, for unit tests of their overrides.

A consumer is built on an app that is never started; what it would ask of the
broker (its assignment, the committed offsets, seeks, commits) is answered and
recorded by a :class:`FakeBroker`. The rest (acks, gaps, the offset a commit
would reach, the flow, ``wait_first``) is Faust's own code, run as the worker runs it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping
from typing import Any, TypeVar

from faust.types import TP, Message
from faust.types.tuples import ConsumerMessage

from tablewatch.processors.commit_guards import CommitGuardedConsumer
from tablewatch.processors.stepped_delivery import SteppedDeliveryApp
from tablewatch.topics import EVENTS as EVENTS_TOPIC

EVENTS = EVENTS_TOPIC  # the app's strict topic, as the worker's events topic
OTHER = "some-changelog"  # any other topic: Faust's own rules apply

C = TypeVar("C", bound=CommitGuardedConsumer)
T = TypeVar("T")


class FakeBroker:
    """The broker as one consumer sees it: an assignment and committed offsets."""

    def __init__(self, assignment: Iterable[TP], committed: Mapping[TP, int | None]) -> None:
        self.assignment = set(assignment)
        self.committed = dict(committed)  # what seek_to_committed finds
        self.commits: list[dict[TP, int]] = []
        self.seeks: list[dict[TP, int]] = []  # seek_wait's arguments
        self.flow_active_at: list[tuple[str, bool]] = []  # (call, the consumer's flow_active)
        self.fail_seek = False
        self._consumer: CommitGuardedConsumer | None = None

    def attach(self, consumer: CommitGuardedConsumer) -> None:
        self._consumer = consumer
        setattr(consumer, "assignment", lambda: set(self.assignment))  # noqa: B010
        setattr(consumer, "seek_to_committed", self._seek_to_committed)  # noqa: B010
        setattr(consumer, "seek_wait", self._seek_wait)  # noqa: B010
        setattr(consumer, "_commit", self._commit)  # noqa: B010

    def _flow(self, call: str) -> None:
        assert self._consumer is not None
        self.flow_active_at.append((call, self._consumer.flow_active))

    async def _seek_to_committed(self) -> Mapping[TP, int | None]:
        self._flow("seek_to_committed")
        await asyncio.sleep(0)
        if self.fail_seek:
            raise ConnectionError("broker gone")
        return dict(self.committed)

    async def _seek_wait(self, partitions: Mapping[TP, int]) -> None:
        self._flow("seek_wait")
        self.seeks.append(dict(partitions))

    async def _commit(self, offsets: Mapping[TP, int]) -> bool:
        self.commits.append(dict(offsets))
        return True


async def _deliver_nowhere(message: Message) -> None:
    return None


async def _nothing(partitions: Any) -> None:
    return None


def consumer_on(
    cls: type[C],
    broker: FakeBroker,
    deliver: Callable[[Message], Awaitable[None]] = _deliver_nowhere,
) -> C:
    """A consumer of ``cls`` (the app's strict topic: :data:`EVENTS`) handing messages to
    ``deliver``; built inside a running event loop, as Faust builds it."""
    app = SteppedDeliveryApp("tablewatch-unit", broker="kafka://127.0.0.1:1", store="memory://")
    app.strict_topics = frozenset({EVENTS})
    # acks count on both topics, as on the worker's (its topics are declared with acks)
    setattr(app.topics, "acks_enabled_for", lambda topic: True)  # noqa: B010

    async def flush() -> None:  # Faust flushes its producer before a commit
        return None

    setattr(app.producer, "flush", flush)  # noqa: B010
    consumer = cls(
        app.transport,
        callback=deliver,
        on_partitions_revoked=_nothing,
        on_partitions_assigned=_nothing,
    )
    broker.attach(consumer)
    return consumer


def message(topic: str, partition: int, offset: int) -> ConsumerMessage:
    return ConsumerMessage(topic, partition, offset, 0.0, 0, None, b"T1", b"{}", None)


def run(scenario: Coroutine[Any, Any, T]) -> T:
    """Run a scenario; a fake no longer reached (Faust changed) must not hang the suite."""
    return asyncio.run(asyncio.wait_for(scenario, timeout=10))
