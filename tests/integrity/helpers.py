"""A modelled deployment for the chain's tests: Kafka as a log of partitions, the store as
ReplacingMergeTree tables keep their rows (one per key, the last written), the changelog."""

from __future__ import annotations

import time
import zlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tablewatch.integrity.checkpoints import Checkpoint, CheckpointPolicy
from tablewatch.integrity.keys import Signer
from tablewatch.integrity.verify import Outside, StoredEvent, TableReport, verify_table
from tablewatch.processors.processor import FlushBatch, LiveProcessor
from tablewatch.rules.config import TableConfig
from tablewatch.rules.decode import encode_event
from tablewatch.sim.floor import Floor
from tests.processors.test_processor import feed
from tests.sim.floors import FIRST_TWO

Message = tuple[int, int, bytes]  # partition, offset, value
PARTITIONS = 4
EVERY_100 = CheckpointPolicy(100, 5.0)


def small_floor(tables: int = 4, rounds: int = 150, seed: int = 7) -> Floor:
    return Floor(tables, rounds, seed, error_rate=0.15, jackpot_rate=0.05, games=FIRST_TWO)


def kafka_log(events: Iterable[bytes], table_of: Iterable[str]) -> list[Message]:
    offsets = [0] * PARTITIONS
    log = []
    for raw, table_id in zip(events, table_of, strict=True):
        partition = zlib.crc32(table_id.encode()) % PARTITIONS
        log.append((partition, offsets[partition], raw))
        offsets[partition] += 1
    return log


def floor_log(floor: Floor) -> list[Message]:
    events = list(floor.events())
    return kafka_log((encode_event(e) for e in events), (e.table_id for e in events))


@dataclass
class FakeDeployment:
    """What is durable: event rows by (table_id, ts, event_id), checkpoints, snapshots, acks."""

    events: dict[tuple[Any, ...], tuple[Any, ...]] = field(default_factory=dict)
    checkpoints: set[tuple[Any, ...]] = field(default_factory=set)
    snapshots: dict[str, bytes] = field(default_factory=dict)
    acked: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))

    def write(self, batch: FlushBatch[tuple[int, int]]) -> None:
        for row in batch.events:
            self.events[(row[0], row[3], row[1])] = row  # a ReplacingMergeTree key, last wins
        self.checkpoints |= set(batch.checkpoints)
        self.snapshots.update(batch.snapshots)
        for partition, offset in batch.acks:
            self.acked[partition].add(offset)

    def committed(self, partition: int) -> int:
        offset = 0
        while offset in self.acked[partition]:
            offset += 1
        return offset

    def rows_of(self, table_id: str) -> list[tuple[Any, ...]]:
        rows = [r for r in self.events.values() if r[0] == table_id]
        return sorted(rows, key=lambda r: (int(r[10]), int(r[9])))

    def tables(self) -> list[str]:
        return sorted({str(r[0]) for r in self.events.values()})

    def verify(self, signer: Signer | None = None) -> dict[str, TableReport]:
        keys = {signer.key_id: signer.public_key} if signer else {}
        now_ms = int(time.time() * 1000)
        out = {}
        for table_id in self.tables():
            rows = self.rows_of(table_id)
            chained = [stored(r) for r in rows if r[10]]
            cps = [Checkpoint(*c) for c in self.checkpoints if c[0] == table_id]
            outside = Outside(rows=len(rows) - len(chained))
            out[table_id] = verify_table(
                table_id, chained, cps, keys, outside=outside, now_ms=now_ms
            )
        return out


def stored(row: Sequence[Any]) -> StoredEvent:
    r = row
    return StoredEvent(
        r[10],
        r[11],
        r[12],
        r[1],
        r[2],
        r[3],
        r[4],
        r[5],
        r[6],
        r[7],
        r[8],
        r[9],
    )


def run(
    configs: dict[str, TableConfig],
    log: list[Message],
    deployment: FakeDeployment,
    *,
    crash_after: int | None = None,
    flush_every: int = 97,
    signer: Signer | None = None,
    policy: CheckpointPolicy = EVERY_100,
) -> LiveProcessor[tuple[int, int]]:
    """A worker from the committed offsets until the end of ``log`` (or killed after
    ``crash_after`` messages: its batch not drained is lost)."""
    processor: LiveProcessor[tuple[int, int]] = LiveProcessor(
        configs, deployment.snapshots.get, signer=signer, checkpoints=policy
    )
    return feed(processor, log, deployment, crash_after=crash_after, flush_every=flush_every)
    deployment.write(processor.drain())
    return processor
