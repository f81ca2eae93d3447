"""The worker's batch writer: the order of a batch's writes, and batches a rebalance gave up on."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from tablewatch.processors.batch_writer import BatchWriter, Sinks
from tablewatch.processors.processor import Batch


class Recorder:
    """Sinks that log each step; snapshot deliveries wait for ``deliver`` to be set."""

    def __init__(self) -> None:
        self.steps: list[str] = []
        self.deliver = asyncio.Event()
        self.deliver.set()
        self.rows_written = asyncio.Event()

    def sinks(self) -> Sinks[str]:
        return Sinks(self.insert_rows, self.send_messages, self.save_snapshots, self.release)

    async def insert_rows(self, batch: Batch[str]) -> None:
        self.steps.append(f"rows {batch.events}")
        self.rows_written.set()

    async def send_messages(self, batch: Batch[str]) -> None:
        self.steps.append(f"messages {batch.round_messages}")

    async def save_snapshots(self, snapshots: Mapping[str, bytes]) -> None:
        self.steps.append(f"snapshots sent {sorted(snapshots)}")
        await self.deliver.wait()
        self.steps.append("snapshots delivered")

    def release(self, acks: list[str]) -> None:
        self.steps.append(f"acks {acks}")


def batch(name: str) -> Batch[str]:
    return Batch(
        events=[(name,)],
        round_messages=[(b"T1", name.encode())],
        snapshots={"T1": name.encode()},
        acks=[f"{name}-ack"],
    )


def test_a_batch_is_written_rows_messages_snapshots_then_acks() -> None:
    async def scenario() -> list[str]:
        recorder = Recorder()
        writer = BatchWriter(recorder.sinks())
        runner = asyncio.create_task(writer.run())
        await writer.put(batch("b1"))
        assert await writer.settle(timeout_s=5)
        runner.cancel()
        return recorder.steps

    assert asyncio.run(scenario()) == [
        "rows [('b1',)]",
        "messages [(b'T1', b'b1')]",
        "snapshots sent ['T1']",
        "snapshots delivered",
        "acks ['b1-ack']",
    ]


def test_acks_wait_until_the_broker_has_the_snapshots() -> None:
    async def scenario() -> tuple[list[str], list[str]]:
        recorder = Recorder()
        recorder.deliver.clear()
        writer = BatchWriter(recorder.sinks())
        runner = asyncio.create_task(writer.run())
        await writer.put(batch("b1"))
        await asyncio.sleep(0.05)
        before = list(recorder.steps)
        recorder.deliver.set()
        assert await writer.settle(timeout_s=5)
        runner.cancel()
        return before, recorder.steps

    before, after = asyncio.run(scenario())
    assert before[-1] == "snapshots sent ['T1']"
    assert not any(step.startswith("acks") for step in before)
    assert after[-2:] == ["snapshots delivered", "acks ['b1-ack']"]


def test_batches_a_rebalance_gave_up_on_write_no_snapshot_and_no_ack() -> None:
    """The first batch's snapshots hang past the rebalance's wait; the second is still
    queued. Both write rows and messages; neither releases acks; the second sends no
    snapshot. A batch of the next generation is written whole."""

    async def scenario() -> tuple[bool, list[str], int]:
        recorder = Recorder()
        recorder.deliver.clear()
        writer = BatchWriter(recorder.sinks())
        runner = asyncio.create_task(writer.run())
        await writer.put(batch("b1"))
        await writer.put(batch("b2"))
        settled = await writer.settle(timeout_s=0.1)
        recorder.deliver.set()
        await writer.put(batch("b3"))
        assert await writer.settle(timeout_s=5)
        runner.cancel()
        return settled, recorder.steps, writer.stale

    settled, steps, stale = asyncio.run(scenario())
    assert not settled
    assert steps == [
        "rows [('b1',)]",
        "messages [(b'T1', b'b1')]",
        "snapshots sent ['T1']",
        "snapshots delivered",
        "rows [('b2',)]",
        "messages [(b'T1', b'b2')]",
        "rows [('b3',)]",
        "messages [(b'T1', b'b3')]",
        "snapshots sent ['T1']",
        "snapshots delivered",
        "acks ['b3-ack']",
    ]
    assert stale == 2


def test_a_rebalance_during_the_rows_stops_the_snapshots() -> None:
    async def scenario() -> list[str]:
        recorder = Recorder()
        writer = BatchWriter(recorder.sinks())

        async def slow_rows(b: Batch[str]) -> None:
            await recorder.insert_rows(b)
            await asyncio.sleep(0.3)

        writer.sinks = Sinks(
            slow_rows, recorder.send_messages, recorder.save_snapshots, recorder.release
        )
        runner = asyncio.create_task(writer.run())
        await writer.put(batch("b1"))
        await recorder.rows_written.wait()
        assert not await writer.settle(timeout_s=0.05)
        await asyncio.sleep(0.5)
        runner.cancel()
        return recorder.steps

    assert asyncio.run(scenario()) == ["rows [('b1',)]", "messages [(b'T1', b'b1')]"]
