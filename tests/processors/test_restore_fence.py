"""The restore fence: where a partition is read from after its tables are restored, the
offset each batch fences, and the fence written between the snapshots and the acks."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping

import pytest
from aiokafka import TopicPartition
from faust.types import TP

from tablewatch.processors.ack_order import InOrderAcks
from tablewatch.processors.batch_writer import BatchWriter, Sinks
from tablewatch.processors.commit_guards import CommitGuardedConsumer
from tablewatch.processors.processor import FlushBatch
from tablewatch.processors.restore_fence import (
    decode_fence,
    encode_fence,
    fence_key,
    is_fence_key,
    restore_plan,
)
from tests.processors.faust_consumers import EVENTS, OTHER, FakeBroker, consumer_on, run


@pytest.mark.parametrize(
    ("fenced", "committed", "resume"),
    [
        (99, 250, 100),  # behind: the snapshots cover up to 99, the commit is at 250
        (249, 250, None),  # equal: the snapshots cover every message before the commit
        (300, 250, None),  # ahead: messages 250-300 come again and are skipped
        (None, 250, None),  # no fence restored: a partition never fenced
        (99, None, None),  # nothing committed: the partition is read from its start anyway
        (-1, 250, 0),  # a fence that could not be read: the partition from its start
        (-1, 0, None),
    ],
)
def test_restore_plan(fenced: int | None, committed: int | None, resume: int | None) -> None:
    assert restore_plan(fenced, committed) == resume


def test_fence_keys_are_no_table_and_name_their_partition() -> None:
    assert fence_key(3) == b"\x00fence:3"
    assert is_fence_key(fence_key(0)) and is_fence_key(fence_key(11))
    assert not is_fence_key(b"LIR-05") and not is_fence_key("\x00fence:3")
    assert decode_fence(encode_fence(6729), 3) == 6729


@pytest.mark.parametrize("value", [b"", b"-4", b"12a", "12", None])
def test_a_fence_that_is_not_an_offset_is_refused_naming_partition_and_value(
    value: object,
) -> None:
    with pytest.raises(ValueError) as refused:
        decode_fence(value, 5)
    message = str(refused.value)
    assert message.startswith("restore fence of partition 5: value ")
    assert repr(value) in message and message.endswith("not a non-negative offset")


def test_through_is_where_each_partition_is_acknowledged_once_the_tickets_are() -> None:
    acked: list[str] = []
    acks: InOrderAcks[str] = InOrderAcks(acked.append)
    p0 = [acks.track(0, offset, f"p0-{offset}") for offset in (10, 11, 12, 13)]
    p1 = [acks.track(1, offset, f"p1-{offset}") for offset in (40, 41)]
    p2 = [acks.track(2, 7, "p2-7")]
    acks.release([p0[2]])  # released, waiting behind 10 and 11
    # 10 and 11 join the released 12; 13 waits. 41 waits behind 40. 2 has no ticket here.
    assert acks.through([p0[0], p0[1], p1[1]]) == {0: 12}
    assert acks.through([p1[0]]) == {1: 40}
    assert acks.through([p1[0], p1[1], *p2]) == {1: 41, 2: 7}
    assert acks.through([]) == {}
    assert acked == [] and acks.waiting() == 7  # nothing acknowledged by asking
    acks.release([p0[0], p0[1]])
    assert acked == ["p0-10", "p0-11", "p0-12"]
    assert acks.through([p0[3]]) == {0: 13}


class Recorder:
    def __init__(self) -> None:
        self.steps: list[str] = []
        self.deliver = asyncio.Event()
        self.deliver.set()

    def sinks(self) -> Sinks[str]:
        return Sinks(
            self.insert_rows, self.send_messages, self.save_snapshots, self.release,
            fence=self.fence,
        )  # fmt: skip

    async def insert_rows(self, batch: FlushBatch[str]) -> None:
        self.steps.append("rows")

    async def send_messages(self, batch: FlushBatch[str]) -> None:
        self.steps.append("messages")

    async def save_snapshots(self, snapshots: Mapping[str, bytes]) -> None:
        self.steps.append(f"snapshots {sorted(snapshots)}")

    async def fence(self, acks: list[str]) -> None:
        self.steps.append(f"fence sent {acks}")
        await self.deliver.wait()
        self.steps.append("fence delivered")

    def release(self, acks: list[str]) -> None:
        self.steps.append(f"acks {acks}")


def batch(name: str, snapshots: bool = True) -> FlushBatch[str]:
    return FlushBatch(
        events=[(name,)], snapshots={"T1": name.encode()} if snapshots else {}, acks=[name]
    )


def test_the_fence_is_written_after_the_snapshots_and_before_the_acks() -> None:
    """Every batch with acks fences them (a batch of refusals alone, with no snapshot, too);
    the acks wait until the broker has the fence."""

    async def scenario() -> list[str]:
        recorder = Recorder()
        recorder.deliver.clear()
        writer = BatchWriter(recorder.sinks())
        runner = asyncio.create_task(writer.run())
        await writer.put(batch("b1"))
        await writer.put(batch("b2", snapshots=False))
        await asyncio.sleep(0.05)
        assert recorder.steps[-1] == "fence sent ['b1']"  # no ack before the fence is in
        recorder.deliver.set()
        assert await writer.settle(timeout_s=5)
        runner.cancel()
        return recorder.steps

    assert asyncio.run(scenario()) == [
        "rows", "messages", "snapshots ['T1']", "fence sent ['b1']", "fence delivered",
        "acks ['b1']",
        "rows", "messages", "fence sent ['b2']", "fence delivered", "acks ['b2']",
    ]  # fmt: skip


def test_a_batch_a_rebalance_gave_up_on_writes_no_fence() -> None:
    """The first batch's fence hangs past the rebalance's wait; the second is still queued:
    neither releases acks, the second sends no fence (one written after the next owner
    restored the partition could stand for snapshots it never wrote)."""

    async def scenario() -> list[str]:
        recorder = Recorder()
        recorder.deliver.clear()
        writer = BatchWriter(recorder.sinks())
        runner = asyncio.create_task(writer.run())
        await writer.put(batch("b1"))
        await writer.put(batch("b2"))
        assert not await writer.settle(timeout_s=0.1)
        recorder.deliver.set()
        assert await writer.settle(timeout_s=5)
        runner.cancel()
        return recorder.steps

    assert asyncio.run(scenario()) == [
        "rows", "messages", "snapshots ['T1']", "fence sent ['b1']", "fence delivered",
        "rows", "messages",
    ]  # fmt: skip


def test_partitions_restored_older_than_their_commit_are_read_again_from_their_fence(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """After the seek to the committed offsets: partition 0's fence is behind its commit (read
    again from the message after it), 1's is at its commit, 2 has none, the other topic's
    partition is not the app's to fence (its fence would be far behind)."""
    p0, p1, p2, other = TP(EVENTS, 0), TP(EVENTS, 1), TP(EVENTS, 2), TP(OTHER, 0)
    broker = FakeBroker({p0, p1, p2, other}, {p0: 250, p1: 80, p2: 40, other: 900})
    fences = {0: 99, 1: 79}

    async def scenario() -> CommitGuardedConsumer:
        consumer = consumer_on(CommitGuardedConsumer, broker)
        consumer.app.restored_fence = fences.get  # type: ignore[attr-defined]
        await consumer.perform_seek()
        return consumer

    with caplog.at_level(logging.WARNING, logger="tablewatch.worker"):
        consumer = run(scenario())
    assert broker.seeks == [{TopicPartition(EVENTS, 0): 100}]
    assert consumer.restores_fenced == 1
    assert broker.flow_active_at == [("seek_to_committed", False), ("seek_wait", False)]
    assert "states are of offset 99, its committed offset is 250: read again from 100" in (
        caplog.text
    )
