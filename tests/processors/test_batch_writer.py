"""The worker's batch writer: the order of a batch's writes, batches a rebalance gave up on,
rows the store refuses and a store that is down."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping

from clickhouse_connect.driver.exceptions import DatabaseError, DataError

from tablewatch.processors.batch_writer import BatchWriter, Sinks
from tablewatch.processors.processor import FlushBatch, LiveProcessor
from tablewatch.rules.config import parse_config
from tablewatch.sim.floor import Floor
from tests.processors.test_processor import kafka_log


class Recorder:
    """Sinks that log each step; snapshot deliveries wait for ``deliver`` to be set."""

    def __init__(self) -> None:
        self.steps: list[str] = []
        self.deliver = asyncio.Event()
        self.deliver.set()
        self.rows_written = asyncio.Event()

    def sinks(self) -> Sinks[str]:
        return Sinks(self.insert_rows, self.send_messages, self.save_snapshots, self.release)

    async def insert_rows(self, batch: FlushBatch[str]) -> None:
        self.steps.append(f"rows {batch.events}")
        self.rows_written.set()

    async def send_messages(self, batch: FlushBatch[str]) -> None:
        self.steps.append(f"messages {batch.round_messages}")

    async def save_snapshots(self, snapshots: Mapping[str, bytes]) -> None:
        self.steps.append(f"snapshots sent {sorted(snapshots)}")
        await self.deliver.wait()
        self.steps.append("snapshots delivered")

    def release(self, acks: list[str]) -> None:
        self.steps.append(f"acks {acks}")


def batch(name: str) -> FlushBatch[str]:
    return FlushBatch(
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

        async def slow_rows(b: FlushBatch[str]) -> None:
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


# ---- what the store refuses, and a store that is down -----------------------------------------


class StoreDown(OSError):
    pass


class Store:
    """A fake store: keeps every row inserted; refuses an insert holding a row ``bad`` picks
    (a data error, as clickhouse-connect raises for a value its column cannot hold), and
    fails the first ``down`` inserts as a store that cannot be reached."""

    def __init__(self, bad: Callable[[str, tuple[object, ...]], bool], down: int = 0) -> None:
        self.bad = bad
        self.down = down
        self.rows: dict[str, list[tuple[object, ...]]] = {
            "events": [], "rounds": [], "settlements": [], "findings": [],
        }  # fmt: skip
        self.inserts = 0
        self.probes = 0
        self.probe_down = 0

    async def insert_rows(self, batch: FlushBatch[Token]) -> None:
        self.inserts += 1
        if self.down:
            self.down -= 1
            raise StoreDown("connection refused")
        parts = {"events": batch.events, "rounds": batch.rounds,
                 "settlements": batch.settlements, "findings": batch.findings}  # fmt: skip
        for table, rows in parts.items():
            for row in rows:
                if self.bad(table, row):
                    raise DataError(f"Unable to create native array for column of {table}")
        for table, rows in parts.items():
            self.rows[table] += rows

    async def probe(self) -> None:
        self.probes += 1
        if self.probe_down:
            self.probe_down -= 1
            raise StoreDown("connection refused")


class Sent:
    def __init__(self) -> None:
        self.steps: list[str] = []
        self.letters: list[dict[str, object]] = []
        self.round_messages: list[dict[str, object]] = []
        self.finding_messages: list[dict[str, object]] = []
        self.acks: list[Token] = []
        self.fail_sends = 0

    async def send_messages(self, batch: FlushBatch[Token]) -> None:
        if self.fail_sends:
            self.fail_sends -= 1
            raise StoreDown("broker unreachable")
        self.steps.append("messages")
        self.letters += [json.loads(v) for _, v in batch.dead_letters]
        self.round_messages += [json.loads(v) for _, v in batch.round_messages]
        self.finding_messages += [json.loads(v) for _, v in batch.finding_messages]

    async def save_snapshots(self, snapshots: Mapping[str, bytes]) -> None:
        self.steps.append("snapshots")

    def release(self, acks: list[Token]) -> None:
        self.steps.append("acks")
        self.acks += acks


Token = tuple[int, int]


def floor_batch() -> tuple[LiveProcessor[Token], FlushBatch[Token], list[tuple[int, int, bytes]]]:
    """One batch of a whole small floor, as the processor cuts it."""
    floor = Floor(tables=3, rounds=45, seed=11, error_rate=0.2, jackpot_rate=0.05)
    configs = parse_config(floor.config)
    processor: LiveProcessor[Token] = LiveProcessor(configs, lambda _: None)
    log = kafka_log(floor)
    for partition, offset, value in log:
        processor.handle(value, partition, offset, (partition, offset))
    return processor, processor.drain(), log


def write(
    store: Store, sent: Sent, batch: FlushBatch[Token], processor: LiveProcessor[Token]
) -> BatchWriter[Token]:
    sinks = Sinks(
        store.insert_rows, sent.send_messages, sent.save_snapshots, sent.release, store.probe
    )
    writer: BatchWriter[Token] = BatchWriter(
        sinks,
        refuse=lambda b, origin, reason: processor.refuse(origin, "store", reason, batch=b),
        retry_first_s=0.001,
        retry_max_s=0.01,
    )
    asyncio.run(writer.write(batch, writer.generation))
    return writer


def test_rows_the_store_refuses_are_set_aside_and_the_rest_written() -> None:
    """One event row and one round the fake store cannot take: each is found by splitting
    the batch, its message refused (dead letter and finding, written in the same batch),
    the round's messages not sent; every other row is stored and every message acked."""
    processor, batch, log = floor_batch()
    bad_event = batch.events[100]
    bad_round = batch.rounds[7]
    bad_key = (bad_round[0], bad_round[1])
    round_findings = [r for r in batch.findings if (r[1], r[2]) == bad_key]
    good_rows = len(batch.events) - 1, len(batch.rounds) - 1

    def bad(table: str, row: tuple[object, ...]) -> bool:
        return (table == "events" and row is bad_event) or (table == "rounds" and row is bad_round)

    store, sent = Store(bad), Sent()
    writer = write(store, sent, batch, processor)
    assert (len(store.rows["events"]), len(store.rows["rounds"])) == good_rows
    assert bad_event not in store.rows["events"] and bad_round not in store.rows["rounds"]
    stored_findings = {str(r[0]) for r in store.rows["findings"]}
    assert not {str(r[0]) for r in round_findings} & stored_findings  # its findings with it
    assert sent.steps == ["messages", "snapshots", "acks"]
    assert sorted(sent.acks) == sorted((p, o) for p, o, _ in log)
    assert writer.isolated == 1 and writer.rows_set_aside == 2
    # the round's messages are not sent; the refusals are
    assert not any((m["table_id"], m["round_id"]) == bad_key for m in sent.round_messages)
    assert len(sent.round_messages) == len(store.rows["rounds"])
    refused = {(r["partition"], r["offset"]) for r in sent.letters}
    assert (bad_event[7], bad_event[8]) in refused
    assert len(sent.letters) == 2 and all(r["stage"] == "store" for r in sent.letters)
    assert all("the store refused" in str(r["reason"]) for r in sent.letters)
    not_processed = [r for r in store.rows["findings"] if r[4] == "EVENT_NOT_PROCESSED"]
    assert len(not_processed) == 2  # stored, in the same write
    produced = [m for m in sent.finding_messages if m["check"] == "EVENT_NOT_PROCESSED"]
    assert len(produced) == 2
    # each message names its stored row (the id rests on the Kafka coordinates)
    assert sorted(str(m["finding_id"]) for m in produced) == sorted(
        str(r[0]) for r in not_processed
    )
    assert processor.counters.refused["store"] == 2


def test_a_store_that_is_down_is_waited_out_and_nothing_is_set_aside() -> None:
    processor, batch, log = floor_batch()
    store, sent = Store(lambda table, row: False, down=5), Sent()
    writer = write(store, sent, batch, processor)
    assert store.inserts == 6 and writer.retries["rows"] == 5
    assert len(store.rows["events"]) == len(batch.events) == len(log)
    assert sent.letters == [] and writer.isolated == 0
    assert sorted(sent.acks) == sorted((p, o) for p, o, _ in log)


def test_a_store_going_down_while_the_rows_at_fault_are_looked_for_is_waited_out() -> None:
    processor, batch, _ = floor_batch()
    bad_event = batch.events[3]
    store = Store(lambda table, row: row is bad_event)
    sent = Sent()
    calls = [0]
    insert = store.insert_rows

    async def flaky(b: FlushBatch[Token]) -> None:
        calls[0] += 1
        if calls[0] in (3, 4):  # halfway through the search
            raise StoreDown("connection reset")
        await insert(b)

    store.insert_rows = flaky  # type: ignore[method-assign, assignment]
    writer = write(store, sent, batch, processor)
    assert writer.retries["rows"] == 2
    assert [(r["partition"], r["offset"]) for r in sent.letters] == [(bad_event[7], bad_event[8])]
    assert len(store.rows["events"]) >= len(batch.events) - 1
    assert bad_event not in store.rows["events"]


def test_when_the_probe_fails_the_store_is_down_not_the_rows() -> None:
    processor, batch, _ = floor_batch()
    bad_event = batch.events[3]
    refusing = [True]
    store = Store(lambda table, row: refusing[0] and row is bad_event)
    store.probe_down = 1
    probe = store.probe

    async def probe_then_heal() -> None:
        try:
            await probe()
        finally:
            refusing[0] = False  # the "bad" row was the store's trouble: it goes in now

    store.probe = probe_then_heal  # type: ignore[method-assign]
    sent = Sent()
    writer = write(store, sent, batch, processor)
    assert sent.letters == [] and writer.rows_set_aside == 0
    assert bad_event in store.rows["events"]


def test_a_batch_whose_every_part_fails_alone_is_tried_again_before_it_is_set_aside() -> None:
    processor, batch, _ = floor_batch()
    few: FlushBatch[Token] = FlushBatch(events=batch.events[:3], acks=batch.acks[:3])
    store, sent = Store(lambda table, row: True), Sent()
    writer = write(store, sent, few, processor)
    assert writer.retries["rows"] == 3  # looks like the store's fault, for a while
    assert len(sent.letters) == 3 and store.rows["events"] == []


def test_a_batch_too_wide_for_one_insert_goes_in_parts() -> None:
    """The engine refuses an insert block spanning more than 100 months (a data error of the
    block, not of any row): the halves go in, nothing is set aside."""
    processor, batch, _ = floor_batch()
    store = Store(lambda table, row: False)
    insert = store.insert_rows

    async def partitions(b: FlushBatch[Token]) -> None:
        if len(b.events) > 50:
            raise DatabaseError(
                "Code: 252. DB::Exception: Too many partitions for single INSERT block"
            )
        await insert(b)

    store.insert_rows = partitions  # type: ignore[method-assign, assignment]
    sent = Sent()
    writer = write(store, sent, batch, processor)
    assert sorted(map(str, store.rows["events"])) == sorted(map(str, batch.events))
    assert sent.letters == [] and writer.rows_set_aside == 0 and writer.isolated == 1


def test_messages_the_broker_does_not_take_are_sent_again() -> None:
    processor, batch, log = floor_batch()
    store, sent = Store(lambda table, row: False), Sent()
    sent.fail_sends = 2
    writer = write(store, sent, batch, processor)
    assert writer.retries["messages"] == 2
    assert sent.steps == ["messages", "snapshots", "acks"]
    assert sorted(sent.acks) == sorted((p, o) for p, o, _ in log)


def test_a_write_failing_on_something_unforeseen_is_done_again_and_the_task_goes_on() -> None:
    async def scenario() -> tuple[list[str], int]:
        recorder = Recorder()
        failures = [1]

        def release(acks: list[str]) -> None:
            if failures[0]:
                failures[0] -= 1
                raise RuntimeError("a bug")
            recorder.release(acks)

        writer = BatchWriter(
            Sinks(recorder.insert_rows, recorder.send_messages, recorder.save_snapshots, release),
            retry_first_s=0.001,
        )
        runner = asyncio.create_task(writer.run())
        await writer.put(batch("b1"))
        await writer.put(batch("b2"))
        assert await writer.settle(timeout_s=5)
        runner.cancel()
        return recorder.steps, writer.retries["batch"]

    steps, retries = asyncio.run(scenario())
    assert retries == 1
    assert [s for s in steps if s.startswith("acks")] == ["acks ['b1-ack']", "acks ['b2-ack']"]
