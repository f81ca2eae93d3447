"""The worker's processing step, without Faust: bytes in; rows, messages, snapshots and acks out.

Like a snuba consumer's processor, it is a plain object that can be tested
without a broker: :meth:`LiveProcessor.handle` takes one Kafka message, and
:meth:`LiveProcessor.drain` hands over everything to write in one batch. A
message is acknowledged (its offset may be committed) only after the batch
that covers it is written, and a round's messages only once the round is
judged: a worker killed mid-round receives the round again from Kafka.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import msgspec

from tablewatch.ingest.batch import dead_letter
from tablewatch.processors.state_codec import restore, snapshot
from tablewatch.rules.audit import Auditor
from tablewatch.rules.config import TableConfig
from tablewatch.rules.decode import EventRejected, decode_event, peek_field
from tablewatch.rules.events import ms_to_ts
from tablewatch.rules.findings import Finding
from tablewatch.rules.judge import RoundResult
from tablewatch.rules.table import TableState
from tablewatch.store.rows import event_row, finding_row, round_rows

log = logging.getLogger("tablewatch.worker")
Token = TypeVar("Token")
LoadSnapshot = Callable[[str], bytes | None]
_JSON = msgspec.json.Encoder()


@dataclass(slots=True)
class Batch(Generic[Token]):
    """What one flush writes: ClickHouse rows, output messages, table snapshots, then acks."""

    events: list[tuple[object, ...]] = field(default_factory=list)
    rounds: list[tuple[object, ...]] = field(default_factory=list)
    settlements: list[tuple[object, ...]] = field(default_factory=list)
    findings: list[tuple[object, ...]] = field(default_factory=list)
    round_messages: list[tuple[bytes, bytes]] = field(default_factory=list)  # (key, value)
    finding_messages: list[tuple[bytes, bytes]] = field(default_factory=list)
    dead_letters: list[tuple[bytes | None, bytes]] = field(default_factory=list)
    snapshots: dict[str, bytes] = field(default_factory=dict)
    acks: list[Token] = field(default_factory=list)
    judged: list[RoundResult] = field(default_factory=list)
    table_findings: list[Finding] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.events) + len(self.dead_letters) + len(self.acks)


@dataclass(slots=True)
class Counters:
    events: int = 0
    rejected: int = 0
    errors: int = 0
    redelivered: int = 0
    findings_by_check: dict[str, int] = field(default_factory=dict)


class LiveProcessor(Generic[Token]):
    def __init__(
        self,
        configs: Mapping[str, TableConfig],
        load_snapshot: LoadSnapshot,
        *,
        silence_ms: int = 15 * 60_000,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._load = load_snapshot
        self.auditor = Auditor(configs, self._restore)
        self.silence_ms = silence_ms
        self.clock = clock
        self.counters = Counters()
        self._batch: Batch[Token] = Batch()
        self._waiting: dict[str, list[Token]] = {}  # tokens of each table's open round
        self._last_seen: dict[str, float] = {}  # table_id -> wall clock of its last event
        # table_id -> offset of its last message applied (by this process or in its saved state)
        self._offsets: dict[str, int] = {}
        self._unsaved: set[str] = set()  # tables between rounds whose snapshot is not taken yet
        # table_id -> partition its messages come from; a table is in it once seen (restored)
        self._partition: dict[str, int] = {}

    def _restore(self, table_id: str, config: TableConfig) -> TableState | None:
        data = self._load(table_id)
        if not data:
            return None
        table, offset = restore(data, config)
        log.info("restored %s: offset %s, seq %s", table_id, offset, table.last_seq)
        if offset is not None:
            self._offsets[table_id] = offset
        return table

    # ---- one message ---------------------------------------------------------------------

    def handle(self, raw: bytes, partition: int, offset: int, token: Token) -> None:
        """Fold one message. An unexpected error dead-letters the message instead of
        stopping the worker on it forever (it is logged and counted as ``errors``)."""
        try:
            self._handle(raw, partition, offset, token)
        except Exception as exc:
            log.exception("processing partition %s offset %s failed", partition, offset)
            self.counters.errors += 1
            failed = EventRejected(
                f"partition {partition} offset {offset}", None, None, f"processing error: {exc!r}"
            )
            self._batch.dead_letters.append(_dead_letter(raw, failed, self.clock()))
            self._batch.acks.append(token)

    def _handle(self, raw: bytes, partition: int, offset: int, token: Token) -> None:
        now = self.clock()
        self.counters.events += 1
        try:
            event = decode_event(raw, f"partition {partition} offset {offset}")
        except EventRejected as rejected:
            self.counters.rejected += 1
            self._batch.dead_letters.append(_dead_letter(raw, rejected, now))
            self._batch.acks.append(token)
            return
        self._batch.events.append(event_row(raw, event, partition, offset, int(now * 1000)))
        if self._applied_before(event.table_id, partition, offset):
            self.counters.redelivered += 1  # applied already (here or in the saved state)
            self._batch.acks.append(token)
            return
        if event.table_id in self._unsaved:
            self._save(event.table_id)  # its state as of its last persist point, before it moves
        duplicates = self.auditor.stats.duplicates
        outcomes = self.auditor.feed(event)
        if self.auditor.stats.duplicates > duplicates:
            self._batch.acks.append(token)
            return
        table_id = event.table_id
        self._last_seen[table_id] = now
        self._offsets[table_id] = offset
        self._waiting.setdefault(table_id, []).append(token)
        self._take(outcomes, now)
        self._maybe_persist(table_id)

    def _applied_before(self, table_id: str, partition: int, offset: int) -> bool:
        """Whether the message was applied already: by this process (Kafka delivered it
        again, e.g. after a seek) or before the saved state was taken."""
        if table_id not in self._partition:
            self._partition[table_id] = partition
            self.auditor.ensure_table(table_id)  # restores the saved state, if any
        last = self._offsets.get(table_id)
        return last is not None and offset <= last

    def close_silent_rounds(self) -> int:
        """Judge rounds with no event for ``silence_ms`` as incomplete; returns how many."""
        now = self.clock()
        closed = 0
        for table in self.auditor.table_states():
            last = self._last_seen.get(table.table_id, now)
            if table.open_round is None or (now - last) * 1000 < self.silence_ms:
                continue
            minutes = self.silence_ms / 60_000
            outcomes = table.finish(f"no round_end within {minutes:g} minutes of its last event")
            self._take(self.auditor.count(outcomes), now)
            self._maybe_persist(table.table_id)
            closed += 1
        return closed

    def _take(self, outcomes: list[RoundResult | Finding], now: float) -> None:
        judged_ms = int(now * 1000)
        batch = self._batch
        for outcome in outcomes:
            if isinstance(outcome, RoundResult):
                rows = round_rows(outcome, judged_ms)
                batch.rounds.append(rows.round_row)
                batch.settlements.extend(rows.settlement_rows)
                batch.findings.extend(rows.finding_rows)
                batch.judged.append(outcome)
                key = outcome.table_id.encode()
                batch.round_messages.append((key, _JSON.encode(_round_message(outcome))))
                findings: tuple[Finding, ...] = outcome.findings
            else:
                batch.findings.append(finding_row(outcome, judged_ms))
                batch.table_findings.append(outcome)
                findings = (outcome,)
            for finding in findings:
                batch.finding_messages.append(
                    (finding.table_id.encode(), _JSON.encode(finding.as_dict()))
                )
                by_check = self.counters.findings_by_check
                by_check[finding.check] = by_check.get(finding.check, 0) + 1

    def _maybe_persist(self, table_id: str) -> None:
        """Between rounds, the table's state is saved and its messages may be acknowledged.

        The snapshot itself is taken later, once: before the table's next event is
        applied or when the batch is drained, whichever comes first (a table has
        several persist points between two rounds). It lands in the batch that
        holds these acks either way.
        """
        table = self.auditor.table(table_id)
        if table is not None and table.open_round is not None:
            return
        if table is not None:
            self._unsaved.add(table_id)
        self._batch.acks.extend(self._waiting.pop(table_id, []))

    def _save(self, table_id: str) -> None:
        self._unsaved.discard(table_id)
        table = self.auditor.table(table_id)
        if table is not None:
            self._batch.snapshots[table_id] = snapshot(table, self._offsets.get(table_id))

    def forget(self, partitions: set[int]) -> list[str]:
        """Drop every table whose messages come from ``partitions`` (revoked in a rebalance),
        with its open round and waiting messages, as if this process had never seen it:
        whoever owns the partition next restores the table's saved state and reads its
        unacknowledged messages again. Call after :meth:`drain` (snapshots are taken
        there). Returns the tables dropped."""
        dropped = [t for t, p in self._partition.items() if p in partitions]
        for table_id in dropped:
            self.auditor.forget(table_id)
            per_table: tuple[dict[str, Any], ...] = (
                self._waiting, self._last_seen, self._offsets, self._partition
            )  # fmt: skip
            for values in per_table:
                values.pop(table_id, None)
            self._unsaved.discard(table_id)
        return dropped

    # ---- handing over ------------------------------------------------------------------------

    def pending(self) -> int:
        return len(self._batch)

    def drain(self) -> Batch[Token]:
        for table_id in list(self._unsaved):
            self._save(table_id)
        batch, self._batch = self._batch, Batch()
        return batch

    def open_rounds(self) -> int:
        return sum(1 for t in self.auditor.table_states() if t.open_round is not None)


def _round_message(result: RoundResult) -> dict[str, object]:
    return {
        "table_id": result.table_id,
        "round_id": result.round_id,
        "game": result.game,
        "start_ts": result.start_ts,
        "end_ts": result.end_ts,
        "seats": result.seats,
        "wagered": result.wagered,
        "paid": result.paid,
        "voided": result.voided,
        "complete": result.complete,
        "findings": [f.check for f in result.findings],
    }


def _dead_letter(raw: bytes, rejected: EventRejected, now: float) -> tuple[bytes | None, bytes]:
    """The same dead-letter record as the ingest writes (``source: "worker"``)."""
    letter = dead_letter(
        reason=rejected.reason,
        field=rejected.field,
        where=rejected.where,
        event_id=rejected.event_id,
        raw=raw,
        received_at=ms_to_ts(int(now * 1000)),
        source="worker",
        table_id=peek_field(raw, "table_id"),
    )
    return letter.key, letter.value
