"""The commit step (``processors/commit_step.py``): the one place that moves the committed
offsets, never past a message whose effects are not written."""

from __future__ import annotations

import asyncio
import logging

import pytest
from aiokafka.structs import TopicPartition

from tablewatch.processors.commit_step import CommitStep
from tests.processors.kafka_fakes import EVENTS, FakeConsumer


def step_on(*partitions: int) -> tuple[CommitStep, FakeConsumer]:
    consumer = FakeConsumer(assigned={TopicPartition(EVENTS, p) for p in partitions})
    return CommitStep(consumer, EVENTS), consumer


def test_the_commit_is_the_offset_after_the_highest_contiguous_released_message() -> None:
    """Released out of order (a round still open on another table holds message 11), the
    commit waits at 11; once 11 is released it jumps to after 13."""
    step, consumer = step_on(0)
    tickets = [step.track(0, offset) for offset in (10, 11, 12, 13)]

    async def scenario() -> None:
        await step.commit([tickets[0], tickets[2], tickets[3]])
        assert consumer.commits == [{0: 11}]
        assert step.waiting() == 3
        await step.commit([tickets[1]])

    asyncio.run(scenario())
    assert consumer.commits == [{0: 11}, {0: 14}]
    assert step.committed == {0: 14} and step.waiting() == 0


def test_nothing_released_in_order_commits_nothing() -> None:
    step, consumer = step_on(0, 1)
    first, second = step.track(0, 5), step.track(0, 6)
    asyncio.run(step.commit([second]))
    assert consumer.commits == [] and step.waiting() == 2
    asyncio.run(step.commit([first]))
    assert consumer.commits == [{0: 7}]


def test_each_partition_commits_on_its_own() -> None:
    step, consumer = step_on(0, 1)
    a = [step.track(0, o) for o in (0, 1)]
    b = [step.track(1, o) for o in (40, 41)]
    asyncio.run(step.commit([a[0], b[0], b[1]]))
    assert consumer.commits == [{0: 1, 1: 42}]


def test_through_is_where_each_partition_is_committed_once_the_tickets_are() -> None:
    step, consumer = step_on(0, 1, 2)
    p0 = [step.track(0, offset) for offset in (10, 11, 12, 13)]
    p1 = [step.track(1, offset) for offset in (40, 41)]
    p2 = [step.track(2, 7)]
    step.release([p0[2]])  # released, waiting behind 10 and 11
    # 10 and 11 join the released 12; 13 waits. 41 waits behind 40.
    assert step.through([p0[0], p0[1], p1[1]]) == {0: 12}
    assert step.through([p1[0]]) == {1: 40}
    assert step.through([p1[0], p1[1], *p2]) == {1: 41, 2: 7}
    assert step.through([]) == {}
    assert step.waiting() == 7 and consumer.commits == []  # asking moves nothing


def test_a_hole_in_the_offsets_is_counted_and_never_committed_past(
    caplog: pytest.LogCaptureFixture,
) -> None:
    step, consumer = step_on(0)
    with caplog.at_level(logging.ERROR, logger="tablewatch.worker"):
        tickets = [step.track(0, offset) for offset in (3, 4, 8, 9)]
    assert step.gaps == 1
    assert "partition 0 of table-events: offsets 5-7 skipped by the consumer" in caplog.text
    assert step.through(tickets) == {0: 4}
    asyncio.run(step.commit(tickets))
    assert consumer.commits == [{0: 5}]


def test_a_partition_no_longer_assigned_is_not_committed() -> None:
    """Revoked while its batch was written: its next owner reads it from the last commit."""
    step, consumer = step_on(0, 1)
    a, b = step.track(0, 1), step.track(1, 1)
    consumer.assigned.discard(TopicPartition(EVENTS, 1))
    asyncio.run(step.commit([a, b]))
    assert consumer.commits == [{0: 2}]


def test_a_commit_the_group_refuses_is_counted_and_does_not_stop_the_worker() -> None:
    step, consumer = step_on(0)
    consumer.refuse = True
    asyncio.run(step.commit([step.track(0, 1)]))
    assert step.refused == 1 and consumer.commits == [] and step.committed == {}


def test_a_forgotten_partition_drops_its_tickets_and_a_later_release_moves_nothing() -> None:
    step, consumer = step_on(0)
    ticket = step.track(0, 1)
    assert step.forget([0]) == 1 and step.waiting() == 0
    asyncio.run(step.commit([ticket]))
    assert consumer.commits == []


def test_an_assigned_partition_starts_from_its_committed_offset() -> None:
    step, _ = step_on(0)
    step.track(0, 1)
    step.assigned(0, 250)
    assert step.committed == {0: 250} and step.waiting() == 0
    step.track(0, 250)  # read from the commit: no hole against the old tickets
    assert step.gaps == 0
