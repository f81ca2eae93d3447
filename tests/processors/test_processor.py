"""The worker's processing step without a broker: same verdicts as the audit, safe acks, restarts.

Kafka is modelled as 4 partitions (a table always in one), offsets, and a
committed offset per partition = the first offset not yet acknowledged. A
"crash" loses everything in memory and not written by a flush; the new
processor restores table snapshots and gets every message again from the
committed offsets.
"""

from __future__ import annotations

import json
import zlib
from collections import defaultdict
from typing import Protocol

from tablewatch.processors.processor import FlushBatch, LiveProcessor
from tablewatch.rules.audit import Auditor
from tablewatch.rules.config import TableConfig, parse_config
from tablewatch.rules.decode import encode_event
from tablewatch.sim.floor import Floor
from tablewatch.store.rows import stored_finding_ids
from tablewatch.topics import EVENTS

Message = tuple[int, int, bytes]  # partition, offset, value
PARTITIONS = 4


def kafka_log(floor: Floor) -> list[Message]:
    offsets = [0] * PARTITIONS
    log = []
    for event in floor.events():
        partition = zlib.crc32(event.table_id.encode()) % PARTITIONS
        log.append((partition, offsets[partition], encode_event(event)))
        offsets[partition] += 1
    return log


class FakeDeployment:
    """The durable side: ClickHouse rows (as finding ids), the changelog table, acks."""

    def __init__(self) -> None:
        self.snapshots: dict[str, bytes] = {}
        self.finding_ids: set[str] = set()
        self.rounds: set[tuple[str, str]] = set()
        self.acked: dict[int, set[int]] = defaultdict(set)

    def write(self, batch: FlushBatch[tuple[int, int]]) -> None:
        self.finding_ids |= {str(row[0]) for row in batch.findings}
        self.rounds |= {(str(row[0]), str(row[1])) for row in batch.rounds}
        self.snapshots.update(batch.snapshots)
        for partition, offset in batch.acks:
            self.acked[partition].add(offset)

    def committed(self, partition: int) -> int:
        offset = 0
        while offset in self.acked[partition]:
            offset += 1
        return offset


class Durable(Protocol):
    """What a fake deployment offers the processor's loop: its writes and committed offsets."""

    def write(self, batch: FlushBatch[tuple[int, int]]) -> None: ...

    def committed(self, partition: int) -> int: ...


def feed(
    processor: LiveProcessor[tuple[int, int]],
    log: list[Message],
    deployment: Durable,
    *,
    crash_after: int | None = None,
    flush_every: int = 97,
) -> LiveProcessor[tuple[int, int]]:
    """``processor`` as a worker from the committed offsets until the end of ``log`` (or
    killed after ``crash_after`` messages: its batch not drained is lost)."""
    start = {p: deployment.committed(p) for p in range(PARTITIONS)}
    handled = 0
    for partition, offset, value in log:
        if offset < start[partition]:
            continue  # committed before: Kafka does not deliver it again
        processor.handle(value, partition, offset, (partition, offset))
        handled += 1
        if handled % flush_every == 0:
            deployment.write(processor.drain())
        if crash_after is not None and handled == crash_after:
            return processor  # killed: the undrained batch is lost
    deployment.write(processor.drain())
    return processor


def run(
    configs: dict[str, TableConfig],
    log: list[Message],
    deployment: FakeDeployment,
    *,
    crash_after: int | None = None,
    flush_every: int = 97,
) -> LiveProcessor[tuple[int, int]]:
    processor: LiveProcessor[tuple[int, int]] = LiveProcessor(configs, deployment.snapshots.get)
    return feed(processor, log, deployment, crash_after=crash_after, flush_every=flush_every)


def audited(configs: dict[str, TableConfig], floor: Floor) -> tuple[set[str], set[tuple[str, str]]]:
    auditor = Auditor(configs)
    outcomes = []
    for event in floor.events():
        outcomes += auditor.feed(event)  # no end-of-input closing: a live stream goes on
    ids = stored_finding_ids(outcomes)
    rounds = {(o.table_id, o.round_id) for o in outcomes if not hasattr(o, "check")}
    return ids, rounds


def floor() -> Floor:
    return Floor(tables=8, rounds=600, seed=21, error_rate=0.15, jackpot_rate=0.05)


def test_same_verdicts_as_the_audit() -> None:
    configs = parse_config(floor().config)
    log = kafka_log(floor())
    deployment = FakeDeployment()
    run(configs, log, deployment)
    want_ids, want_rounds = audited(configs, floor())
    assert deployment.finding_ids == want_ids
    assert deployment.rounds == want_rounds
    assert len(want_ids) > 50


def test_acks_never_pass_an_open_round() -> None:
    configs = parse_config(floor().config)
    log = kafka_log(floor())
    processor: LiveProcessor[tuple[int, int]] = LiveProcessor(configs, lambda _: None)
    by_token = {(p, o): v for p, o, v in log}
    for i, (partition, offset, value) in enumerate(log):
        processor.handle(value, partition, offset, (partition, offset))
        if i % 50 == 49:
            batch = processor.drain()
            open_rounds = {
                (t.table_id, t.open_round.round_id)
                for t in processor.auditor.table_states()
                if t.open_round is not None
            }
            for token in batch.acks:
                raw = by_token[token]
                for table_id, round_id in open_rounds:
                    assert not (
                        f'"table_id":"{table_id}"'.encode() in raw
                        and f'"round_id":"{round_id}"'.encode() in raw
                    ), f"acked {token} of the open round {round_id}"


def test_a_crash_loses_nothing_and_duplicates_nothing() -> None:
    configs = parse_config(floor().config)
    log = kafka_log(floor())
    want_ids, want_rounds = audited(configs, floor())
    for crash_after in (333, 1500, 4000, 9000):
        deployment = FakeDeployment()
        run(configs, log, deployment, crash_after=crash_after)
        run(configs, log, deployment)  # restarted: restores snapshots, re-reads uncommitted
        assert deployment.finding_ids == want_ids, f"crash after {crash_after} messages"
        assert deployment.rounds == want_rounds


def test_messages_delivered_again_in_the_same_process_are_skipped_by_offset() -> None:
    """A seek back to the committed offsets (Faust's, on an assignment) delivers messages
    this process has applied already: skipped, counted as redelivered, not as duplicates
    (which are a controller's re-sends), and the verdicts stay the audit's."""
    configs = parse_config(floor().config)
    log = kafka_log(floor())
    want_ids, want_rounds = audited(configs, floor())
    deployment = FakeDeployment()
    processor: LiveProcessor[tuple[int, int]] = LiveProcessor(configs, deployment.snapshots.get)
    cut = 2500
    for partition, offset, value in log[:cut]:
        processor.handle(value, partition, offset, (partition, offset))
    deployment.write(processor.drain())
    start = {p: deployment.committed(p) for p in range(PARTITIONS)}
    again = [m for m in log[:cut] if m[1] >= start[m[0]]]  # from the committed offsets
    assert again, "the cut should leave rounds open"
    for partition, offset, value in again + log[cut:]:
        processor.handle(value, partition, offset, (partition, offset))
    deployment.write(processor.drain())
    assert processor.counters.redelivered == len(again)
    assert processor.auditor.stats.duplicates == 0
    assert deployment.finding_ids == want_ids
    assert deployment.rounds == want_rounds
    for p in range(PARTITIONS):  # acknowledged without holes
        assert deployment.acked[p] == set(range(deployment.committed(p)))


def test_bad_message_goes_to_dead_letters_and_is_acked() -> None:
    configs = parse_config(floor().config)
    processor: LiveProcessor[str] = LiveProcessor(configs, lambda _: None)
    processor.handle(b'{"v":1,"type":"nonsense","table_id":"LIR-01"}', 0, 0, "t0")
    batch = processor.drain()
    assert batch.acks == ["t0"]
    assert len(batch.dead_letters) == 1
    assert b"unknown event type" in batch.dead_letters[0][1]
    assert processor.counters.rejected == 1
    # the same record as the ingest writes to the topic, keyed by the readable table_id
    key, value = batch.dead_letters[0]
    record = json.loads(value)
    assert key == b"LIR-01"
    assert set(record) == {
        "reason", "field", "where", "event_id", "table_id", "raw", "raw_encoding",
        "raw_bytes", "truncated", "received_at", "source",
        "stage", "topic", "partition", "offset",
    }  # fmt: skip
    assert (record["source"], record["where"], record["raw_encoding"]) == (
        "worker",
        "partition 0 offset 0",
        "utf-8",
    )
    assert (record["stage"], record["topic"], record["partition"], record["offset"]) == (
        "decode",
        EVENTS,
        0,
        0,
    )
    # its table gets a finding, stored and produced like any other
    assert [row[4] for row in batch.findings] == ["EVENT_NOT_PROCESSED"]
    assert [json.loads(v)["check"] for _, v in batch.finding_messages] == ["EVENT_NOT_PROCESSED"]


def test_silent_round_is_judged_incomplete() -> None:
    configs = parse_config(floor().config)
    now = [1_000.0]
    processor: LiveProcessor[int] = LiveProcessor(
        configs, lambda _: None, silence_ms=60_000, clock=lambda: now[0]
    )
    log = kafka_log(floor())
    table = next(v for _, _, v in log if b'"type":"round_start"' in v).split(b'"table_id":"')[1]
    table_id = table.split(b'"')[0]
    mine = [m for m in log if b'"table_id":"' + table_id + b'"' in m[2]]
    end = next(i for i, m in enumerate(mine) if b'"type":"round_end"' in m[2])
    for i, (partition, offset, value) in enumerate(mine[:end]):  # up to, not including, round_end
        processor.handle(value, partition, offset, i)
    assert processor.open_rounds() == 1
    now[0] += 59
    assert processor.close_silent_rounds() == 0
    now[0] += 2
    assert processor.close_silent_rounds() == 1
    batch = processor.drain()
    assert [f.check for r in batch.judged for f in r.findings] == ["ROUND_INCOMPLETE"]
    assert sorted(batch.acks) == list(range(end))


def test_partitions_revoked_and_given_back_lose_and_double_nothing() -> None:
    """A rebalance mid-stream: the worker writes its batch, forgets the revoked
    partitions' tables (open rounds included), and later gets them back: it must
    restore them from their snapshots and re-read from the committed offsets."""
    configs = parse_config(floor().config)
    log = kafka_log(floor())
    want_ids, want_rounds = audited(configs, floor())
    deployment = FakeDeployment()
    processor: LiveProcessor[tuple[int, int]] = LiveProcessor(configs, deployment.snapshots.get)
    revoked = {1, 2}
    cut = 3000
    for partition, offset, value in log[:cut]:
        processor.handle(value, partition, offset, (partition, offset))
    deployment.write(processor.drain())
    dropped = processor.forget(revoked)
    assert dropped and all(zlib.crc32(t.encode()) % PARTITIONS in revoked for t in dropped)
    assert all(processor.auditor.table(t) is None for t in dropped)
    # given back: Kafka delivers the revoked partitions again from their committed offsets
    start = {p: deployment.committed(p) for p in revoked}
    redelivered = [m for m in log[:cut] if m[0] in revoked and m[1] >= start[m[0]]]
    assert redelivered, "the cut should leave rounds open on the revoked partitions"
    for partition, offset, value in redelivered + log[cut:]:
        processor.handle(value, partition, offset, (partition, offset))
    deployment.write(processor.drain())
    assert deployment.finding_ids == want_ids
    assert deployment.rounds == want_rounds
