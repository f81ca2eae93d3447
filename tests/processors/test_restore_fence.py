"""The restore fence and the changelog: where a partition is read from after its tables are
restored, the changelog read to its end and written, and the fence written between the
snapshots and the commit."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest
from aiokafka import TopicPartition
from kafka.partitioner.default import murmur2

from tablewatch.processors.batch_writer import BatchWriter, Sinks
from tablewatch.processors.changelog import Changelog
from tablewatch.processors.commit_step import Ticket
from tablewatch.processors.consumer_loop import EventsLoop
from tablewatch.processors.processor import FlushBatch, LiveProcessor
from tablewatch.processors.restore_fence import (
    decode_fence,
    encode_fence,
    fence_key,
    is_fence_key,
    restore_plan,
)
from tests.processors.kafka_fakes import (
    EVENTS,
    FakeConsumer,
    FakeProducer,
    FakeReader,
    Record,
)

CHANGELOG = "worker-tablewatch-table-state-changelog"


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


def loop_on(consumer: FakeConsumer, reader: FakeReader) -> EventsLoop:
    changelog = Changelog(CHANGELOG, 3, FakeProducer())
    processor: LiveProcessor[Ticket] = LiveProcessor({}, lambda t: changelog.get(t.encode()))

    async def nothing(*_: object) -> None:
        return None

    return EventsLoop(
        consumer,
        reader,
        EVENTS,
        processor,
        changelog,
        max_records=100,
        poll_ms=100,
        flush_due=lambda: False,
        flush=nothing,
        partitions_revoked=nothing,
    )


def test_partitions_restored_older_than_their_commit_are_read_again_from_their_fence(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """On assignment: partition 0's fence (99) is behind its commit (250): read again from
    100; 1's is at its commit; 2 has none. The partitions are paused while restored (no
    message is folded before its table's state is read) and the loop is ready after."""
    tps = [TopicPartition(EVENTS, p) for p in (0, 1, 2)]
    consumer = FakeConsumer(set(tps), {tps[0]: 250, tps[1]: 80, tps[2]: 40})
    log = {
        TopicPartition(CHANGELOG, 0): [Record(0, fence_key(0), b"99")],
        TopicPartition(CHANGELOG, 1): [Record(0, fence_key(1), b"79")],
    }
    loop = loop_on(consumer, FakeReader(log))
    assert loop.readiness() == "starting"
    with caplog.at_level(logging.WARNING, logger="tablewatch.worker"):
        asyncio.run(loop.assigned(set(tps)))
    assert consumer.seeks == [(0, 100)]
    assert consumer.paused_while_restoring == set(tps) and consumer.paused == set()
    assert loop.restores_fenced == 1
    assert loop.commits.committed == {0: 250, 1: 80, 2: 40}
    assert loop.readiness() == "ok" and loop.partitions == {0, 1, 2}
    assert "states are of offset 99, its committed offset is 250: read again from 100" in (
        caplog.text
    )


def test_the_changelog_is_read_to_its_end_latest_record_of_each_key_kept() -> None:
    """Several fetches, a key saved twice, a tombstone, a fence that is not an offset (the
    partition is read again from 0)."""
    tp = TopicPartition(CHANGELOG, 1)
    records = [
        Record(0, b"T1", b"old"), Record(1, b"T2", b"two"), Record(2, b"T1", b"new"),
        Record(3, b"T3", b"three"), Record(4, b"T3", None), Record(5, fence_key(1), b"x"),
    ]  # fmt: skip
    changelog = Changelog(CHANGELOG, 3, FakeProducer())
    asyncio.run(changelog.restore(FakeReader({tp: records}), {1}))
    held = {key: value for _, key, value in changelog.items()}
    assert held == {b"T1": b"new", b"T2": b"two", fence_key(1): b"x"}
    assert changelog.records_restored == 6
    assert changelog.fence(1) == -1 and changelog.fence(2) is None
    changelog.drop({1})
    assert list(changelog.items()) == []


def test_snapshots_go_to_their_tables_partition_and_are_held_once_delivered() -> None:
    """A snapshot's partition is its key's (murmur2, as the events'); ``save`` returns only
    once the broker has every record, and only then does the worker hold the new state."""

    async def scenario() -> None:
        producer = FakeProducer()
        changelog = Changelog(CHANGELOG, 6, producer)
        saving = asyncio.create_task(changelog.save({"LIR-05": b"s1", "LIR-06": b"s2"}))
        await asyncio.sleep(0.05)
        assert not saving.done() and changelog.get(b"LIR-05") is None
        producer.deliver.set()
        await saving
        assert changelog.get(b"LIR-05") == b"s1"
        expected = {(key, (murmur2(key) & 0x7FFFFFFF) % 6) for key in (b"LIR-05", b"LIR-06")}
        assert {(key, p) for _, p, key, _ in producer.sent} == expected
        await changelog.save_fences({4: 1234})
        assert producer.sent[-1] == (CHANGELOG, 4, fence_key(4), b"1234")
        assert changelog.fence(4) == 1234

    asyncio.run(scenario())


def test_a_worker_leaving_the_group_writes_no_snapshot_fence_or_commit_after() -> None:
    """The loop stops (the group hands its partitions over at once): the batch queued then
    writes its rows and messages only; its partitions' next owner may have read the
    changelog already."""

    async def scenario() -> list[str]:
        recorder = Recorder()
        writer = BatchWriter(recorder.sinks())
        await writer.put(batch("b1"))
        writer.abandon()
        runner = asyncio.create_task(writer.run())
        assert await writer.settle(timeout_s=5)
        runner.cancel()
        return recorder.steps

    assert asyncio.run(scenario()) == ["rows", "messages"]


class ScriptedConsumer(FakeConsumer):
    """A consumer whose fetches are given, then the loop is stopped."""

    def __init__(self, fetches: list[dict[TopicPartition, list[Any]]]) -> None:
        super().__init__()
        self.fetches = fetches

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    def subscribe(self, topics: list[str], listener: object) -> None:
        return None

    async def getmany(self, timeout_ms: int, max_records: int) -> dict[TopicPartition, list[Any]]:
        if not self.fetches:
            raise asyncio.CancelledError
        return self.fetches.pop(0)


@dataclass(frozen=True)
class Fetched:
    offset: int
    value: bytes | None
    timestamp: int = 0


def test_a_fetch_of_a_partition_not_restored_yet_is_not_handed_over() -> None:
    """aiokafka's assignment is live before the assignment callback ends: a fetch of a
    partition still being restored is sent back to its first message, not folded (its
    tables would run from nothing); a restored partition's fetch is handed over."""
    restored, restoring = TopicPartition(EVENTS, 0), TopicPartition(EVENTS, 1)
    consumer = ScriptedConsumer(
        [{restored: [Fetched(5, b"{}"), Fetched(6, None)], restoring: [Fetched(40, b"{}")]}]
    )
    loop = loop_on(consumer, FakeReader({}))
    loop.partitions = {0}
    handed: list[tuple[int, int]] = []
    loop.processor.handle_batch = lambda messages: handed.extend(  # type: ignore[method-assign]
        (partition, offset) for _, partition, offset, _ in messages
    )
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(loop.run())
    assert handed == [(0, 5), (0, 6)]
    assert consumer.seeks == [(1, 40)]
    assert loop.commits.waiting() == 2  # tickets for the messages handed over only
