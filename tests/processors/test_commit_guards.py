"""The commit guards of the worker's consumer: the committed offset of the events topic never
passes a message the worker has not processed (``processors/commit_guards.py``).

No broker: the consumer's broker calls are fakes (tests/processors/faust_consumers.py);
acks, gaps and the offset a commit reaches are Faust's own code.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from aiokafka import TopicPartition
from faust.types import TP

from tablewatch.processors.commit_guards import CommitGuardedConsumer, RevocationSafeConsumerThread
from tests.processors.faust_consumers import EVENTS, OTHER, FakeBroker, consumer_on, message, run

P0, P1, P2 = TP(EVENTS, 0), TP(EVENTS, 1), TP(EVENTS, 2)
OTHER0 = TP(OTHER, 0)


# perform_seek: the seek Faust does on a first assignment, with the flow stopped


def test_the_seek_to_the_committed_offsets_runs_with_the_flow_stopped() -> None:
    broker = FakeBroker({P0, P1}, {P0: 79, P1: 12})

    async def scenario() -> CommitGuardedConsumer:
        consumer = consumer_on(CommitGuardedConsumer, broker)
        assert consumer.flow_active
        await consumer.perform_seek()
        return consumer

    consumer = run(scenario())
    assert broker.flow_active_at == [("seek_to_committed", False)]
    assert consumer.flow_active and not consumer.suspend_flow.is_set()  # resumed after it
    # and Faust's own bookkeeping of the seek is done: it reads on from the committed offsets
    assert consumer._read_offset[P0] == 79 and consumer._committed_offset[P0] == 79
    assert broker.seeks == []  # every partition has a committed offset: nothing rewound


def test_a_flow_stopped_before_the_seek_stays_stopped() -> None:
    broker = FakeBroker({P0}, {P0: 79})

    async def scenario() -> bool:
        consumer = consumer_on(CommitGuardedConsumer, broker)
        consumer.stop_flow()  # as in a rebalance
        await consumer.perform_seek()
        return consumer.flow_active

    assert run(scenario()) is False


def test_the_flow_resumes_when_the_seek_fails() -> None:
    broker = FakeBroker({P0}, {P0: 79})
    broker.fail_seek = True

    async def scenario() -> bool:
        consumer = consumer_on(CommitGuardedConsumer, broker)
        with pytest.raises(ConnectionError):
            await consumer.perform_seek()
        return consumer.flow_active

    assert run(scenario()) is True


def test_partitions_with_no_committed_offset_are_read_again_from_0(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """aiokafka's seek moves only partitions committed past 0: the others would keep the
    position their fetch had reached, and what the stopped flow dropped would not come again."""
    broker = FakeBroker({P0, P1, P2, OTHER0}, {P0: 79, P1: None, P2: 0, OTHER0: None})

    async def scenario() -> None:
        consumer = consumer_on(CommitGuardedConsumer, broker)
        await consumer.perform_seek()

    with caplog.at_level(logging.INFO, logger="tablewatch.worker"):
        run(scenario())
    assert broker.seeks == [{TopicPartition(EVENTS, 1): 0, TopicPartition(EVENTS, 2): 0}]
    assert all(type(tp) is TopicPartition for tp in broker.seeks[0])  # what aiokafka seeks
    assert broker.flow_active_at == [("seek_to_committed", False), ("seek_wait", False)]
    assert "no committed offset, read from 0" in caplog.text


# _add_gap: a hole in the events topic is never marked as processed


def _commit_after_a_hole(topic: str) -> tuple[FakeBroker, CommitGuardedConsumer]:
    """Offsets 0-79 and 860 processed and acked, 80-859 missing from the fetch."""
    tp = TP(topic, 1)
    broker = FakeBroker({tp}, {})

    async def scenario() -> CommitGuardedConsumer:
        consumer = consumer_on(CommitGuardedConsumer, broker)
        for offset in [*range(80), 860]:
            consumer.ack_processed(message(topic, 1, offset))
        await consumer._add_gap(tp, 80, 859)  # what the drain loop calls on the jump
        await consumer.commit()
        return consumer

    return broker, run(scenario())


def test_a_hole_in_the_events_topic_is_never_marked_processed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.ERROR, logger="tablewatch.worker"):
        broker, consumer = _commit_after_a_hole(EVENTS)
    assert broker.commits == [{TP(EVENTS, 1): 80}]  # the commit waits at the hole
    assert consumer.offset_gaps == 1
    assert "offsets 80-859 skipped" in caplog.text


def test_a_hole_in_another_topic_is_faust_gap() -> None:
    """Compacted topics and transaction markers leave holes: there Faust's handling stays."""
    broker, consumer = _commit_after_a_hole(OTHER)
    assert broker.commits == [{TP(OTHER, 1): 861}]
    assert consumer.offset_gaps == 0


# ack: Faust's own acks on the events topic are refused, the worker's are taken


def test_faust_ack_of_a_skipped_events_message_is_refused() -> None:
    """Faust acks a message its stream skipped (an older generation's, or one arriving while
    the flow is suspended): that must not let the commit pass the copy read again."""
    broker = FakeBroker({P0}, {})

    async def scenario() -> CommitGuardedConsumer:
        consumer = consumer_on(CommitGuardedConsumer, broker)
        for offset in range(3):
            consumer.ack_processed(message(EVENTS, 0, offset))
        skipped = message(EVENTS, 0, 3)
        assert skipped.ack(consumer) is False  # Faust's path: Message.ack -> consumer.ack
        await consumer.commit()
        consumer.ack_processed(message(EVENTS, 0, 3))  # the copy read again, processed
        assert message(EVENTS, 0, 4).ack(consumer) is False  # refused again after the worker's
        await consumer.commit()
        return consumer

    consumer = run(scenario())
    assert broker.commits == [{P0: 3}, {P0: 4}]
    assert consumer.acks_refused == 2


def test_faust_acks_on_other_topics_are_faust_own() -> None:
    broker = FakeBroker({OTHER0}, {})

    async def scenario() -> CommitGuardedConsumer:
        consumer = consumer_on(CommitGuardedConsumer, broker)
        assert message(OTHER, 0, 0).ack(consumer) is True
        await consumer.commit()
        return consumer

    consumer = run(scenario())
    assert broker.commits == [{OTHER0: 1}]
    assert consumer.acks_refused == 0


# RevocationSafeConsumerThread: a commit whose partitions a rebalance revoked during
# Faust's producer flush


class _AioKafkaConsumer:
    """aiokafka's consumer as the thread's commit sees it: it refuses an empty commit."""

    def __init__(self) -> None:
        self.commits: list[dict[TopicPartition, int]] = []

    async def commit(self, offsets: dict[TopicPartition, Any]) -> None:
        if not offsets:
            raise ValueError(offsets)  # what aiokafka's commit_structure_validate does
        self.commits.append({tp: meta.offset for tp, meta in offsets.items()})


def _thread_assigned(assignment: set[TP]) -> tuple[RevocationSafeConsumerThread, _AioKafkaConsumer]:
    broker = FakeBroker(assignment, {})
    consumer = consumer_on(CommitGuardedConsumer, broker)
    thread = consumer._new_consumer_thread()
    assert isinstance(thread, RevocationSafeConsumerThread)
    aiokafka_consumer = _AioKafkaConsumer()
    setattr(thread, "_ensure_consumer", lambda: aiokafka_consumer)  # noqa: B010
    setattr(thread, "assignment", lambda: set(assignment))  # noqa: B010
    return thread, aiokafka_consumer


def test_a_commit_of_revoked_partitions_only_is_no_commit_and_no_crash() -> None:
    async def scenario() -> tuple[bool, _AioKafkaConsumer, BaseException | None]:
        thread, aiokafka_consumer = _thread_assigned({P2})
        committed = await thread._commit({P0: 5, P1: 9})
        return committed, aiokafka_consumer, thread.crash_reason

    committed, aiokafka_consumer, crash_reason = run(scenario())
    assert crash_reason is None  # Faust crashes the consumer (and the worker) on aiokafka's error
    assert committed is False
    assert aiokafka_consumer.commits == []


def test_a_commit_with_partitions_still_assigned_commits_those() -> None:
    async def scenario() -> tuple[bool, _AioKafkaConsumer]:
        thread, aiokafka_consumer = _thread_assigned({P2})
        return await thread._commit({P0: 5, P2: 7}), aiokafka_consumer

    committed, aiokafka_consumer = run(scenario())
    assert committed is True
    assert aiokafka_consumer.commits == [{TopicPartition(EVENTS, 2): 7}]
