"""The worker's processing step, without Faust: bytes in; rows, messages, snapshots and acks out.

Like a snuba consumer's processor, it is a plain object that can be tested
without a broker: :meth:`LiveProcessor.handle` takes one Kafka message, and
:meth:`LiveProcessor.drain` hands over everything to write in one batch. A
message is acknowledged (its offset may be committed) only after the batch
that covers it is written, and a round's messages only once the round is
judged: a worker killed mid-round receives the round again from Kafka.

What each message becomes (refused, delivered again, a duplicate, chained)
is :func:`tablewatch.message_fate.message_fate`'s, the function by which
``verify --kafka`` recomputes the chains too.

No message stops it: one it cannot decode, judge or store is dead-lettered
with the reason and its coordinates, its table gets an EVENT_NOT_PROCESSED
finding, and the processor goes on (:meth:`LiveProcessor.refuse`). Each
value is checked against its store column before its row joins a batch, and
every outcome's rows are built and checked as one, so a round whose rows
cannot be stored is set aside alone. What the store still refuses at write
time is found by the batch writer (``batch_writer.py``), which calls
:meth:`LiveProcessor.refuse` for those messages.

Every event row it writes is chained (:mod:`tablewatch.integrity.chain`): its
table's chain head is saved with the table's state and restored with it, so a
message delivered again after a crash or a rebalance is chained exactly as the
first time, and one applied before the saved state is neither applied nor
written again. A duplicate the table ignores (an event_id it has seen) is not
stored. With a signing key, a checkpoint of a table's chain is signed every
``CheckpointPolicy.every_events`` events and, for events not yet covered,
every ``every_minutes``: also for a table no event reached since a restart, once
the worker hands it over (:meth:`LiveProcessor.adopt`) at a checkpoint round
(:meth:`LiveProcessor.checkpoint_round`), which also signs the floor manifest of
the tables it holds. Each checkpoint and manifest goes into the batch's
``external`` lines too, which the worker writes outside the store
(:mod:`tablewatch.integrity.manifest`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import msgspec

from tablewatch.integrity.chain import ChainHead
from tablewatch.integrity.checkpoints import CheckpointPolicy, advance, sign
from tablewatch.integrity.keys import Signer
from tablewatch.integrity.manifest import ManifestSigner, checkpoint_record, entry_of
from tablewatch.message_fate import Chained, Redelivered, Refused, TableView, message_fate
from tablewatch.processors.poison import Origin, dead_letter_record, peek_ids, readable_id
from tablewatch.processors.state_codec import (
    chain_snapshot,
    is_chain_only,
    restore,
    restore_chain,
    snapshot,
)
from tablewatch.rules.audit import Auditor
from tablewatch.rules.checks import event_not_processed
from tablewatch.rules.config import TableConfig
from tablewatch.rules.events import AnyEvent, ms_to_ts
from tablewatch.rules.findings import Finding
from tablewatch.rules.judge import RoundResult
from tablewatch.rules.table import TableState
from tablewatch.store.errors import describe
from tablewatch.store.rows import (
    FINDINGS,
    ROUNDS,
    SETTLEMENTS,
    EventRow,
    FindingRow,
    RoundRow,
    SettlementRow,
    chained,
    finding_row,
    round_rows,
    row_problem,
)
from tablewatch.topics import EVENTS, finding_message, table_key

log = logging.getLogger("tablewatch.worker")
Token = TypeVar("Token")
LoadSnapshot = Callable[[str], bytes | None]
_JSON = msgspec.json.Encoder()
STAGES = ("decode", "judge", "store")  # where a message failed: ProcessorCounters.refused keys
DEFAULT_POLICY = CheckpointPolicy()


@dataclass(frozen=True, slots=True)
class Span:
    """The rows and messages one outcome (a judged round, a table-level finding, a refusal's
    finding) added to a batch: from the previous span's ends up to these. The batch
    writer sets aside what the store refuses by span (``batch_writer.py``)."""

    origin: Origin
    rounds: int
    settlements: int
    findings: int
    round_messages: int
    finding_messages: int
    refusal: bool = False  # an EVENT_NOT_PROCESSED finding: refused itself, nothing more is


@dataclass(slots=True)
class FlushBatch(Generic[Token]):
    """What one flush writes: ClickHouse rows, output messages, table snapshots, then acks."""

    events: list[tuple[object, ...]] = field(default_factory=list)
    rounds: list[tuple[object, ...]] = field(default_factory=list)
    settlements: list[tuple[object, ...]] = field(default_factory=list)
    findings: list[tuple[object, ...]] = field(default_factory=list)
    checkpoints: list[tuple[object, ...]] = field(default_factory=list)  # signed, of chains
    # the checkpoints and manifests as lines for outside the store (integrity.manifest)
    external: list[bytes] = field(default_factory=list)
    round_messages: list[tuple[bytes, bytes]] = field(default_factory=list)  # (key, value)
    finding_messages: list[tuple[bytes, bytes]] = field(default_factory=list)
    dead_letters: list[tuple[bytes | None, bytes]] = field(default_factory=list)
    snapshots: dict[str, bytes] = field(default_factory=dict)
    acks: list[Token] = field(default_factory=list)
    judged: list[RoundResult] = field(default_factory=list)
    table_findings: list[Finding] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)  # which outcome each row belongs to

    def __len__(self) -> int:
        return (
            len(self.events) + len(self.dead_letters) + len(self.acks) + len(self.checkpoints)
            + len(self.external)
        )  # fmt: skip

    def add_span(self, origin: Origin, refusal: bool = False) -> None:
        """Close the rows and messages added since the last span as one outcome's."""
        self.spans.append(
            Span(
                origin,
                len(self.rounds),
                len(self.settlements),
                len(self.findings),
                len(self.round_messages),
                len(self.finding_messages),
                refusal,
            )
        )


@dataclass(slots=True)
class _Built:
    """The rows and messages of one outcome, built and checked before any joins a batch."""

    round_row: RoundRow | None
    settlement_rows: tuple[SettlementRow, ...]
    finding_rows: tuple[FindingRow, ...]
    round_message: tuple[bytes, bytes] | None
    finding_messages: list[tuple[bytes, bytes]]
    findings: tuple[Finding, ...]

    def problem(self) -> str | None:
        if self.round_row is not None:
            problem = row_problem(ROUNDS, self.round_row)
            if problem:
                return problem
        for table, rows in (
            (SETTLEMENTS, self.settlement_rows),
            (FINDINGS, self.finding_rows),
        ):  # fmt: skip
            for row in rows:
                problem = row_problem(table, row)
                if problem:
                    return problem
        return None


def _build(outcome: RoundResult | Finding, judged_ms: int) -> _Built:
    if isinstance(outcome, RoundResult):
        rows = round_rows(outcome, judged_ms)
        message = (table_key(outcome.table_id), _JSON.encode(_round_message(outcome)))
        findings: tuple[Finding, ...] = outcome.findings
        round_row: RoundRow | None = rows.round_row
        settlement_rows, finding_rows = rows.settlement_rows, rows.finding_rows
    else:
        findings, round_row, message = (outcome,), None, None
        settlement_rows, finding_rows = (), (finding_row(outcome, judged_ms),)
    start = outcome.start_event_id if isinstance(outcome, RoundResult) else ""
    pairs = zip(findings, finding_rows, strict=True)
    messages = [finding_message(f, start, str(row[0])) for f, row in pairs]
    return _Built(round_row, settlement_rows, finding_rows, message, messages, findings)


def _what(outcome: RoundResult | Finding) -> str:
    if isinstance(outcome, RoundResult):
        return f"round {outcome.round_id}"
    return f"{outcome.check} finding"


@dataclass(slots=True)
class ProcessorCounters:
    events: int = 0
    rejected: int = 0  # refused by the decoder (refused["decode"])
    errors: int = 0  # failures of the worker's own code (logged with their traceback)
    redelivered: int = 0
    findings_by_check: dict[str, int] = field(default_factory=dict)
    # messages dead-lettered, by the stage that failed: decode, judge, store
    refused: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STAGES, 0))
    states_not_saved: int = 0  # table snapshots that could not be encoded
    states_not_restored: int = 0  # saved states that could not be read back
    checkpoints: int = 0  # checkpoints signed
    manifests: int = 0  # floor manifests signed
    adopted: int = 0  # tables taken on at a checkpoint round before any event of theirs came


class LiveProcessor(Generic[Token]):
    def __init__(
        self,
        configs: Mapping[str, TableConfig],
        load_snapshot: LoadSnapshot,
        *,
        silence_ms: int = 15 * 60_000,
        clock: Callable[[], float] = time.time,
        topic: str = EVENTS,
        signer: Signer | None = None,
        checkpoints: CheckpointPolicy = DEFAULT_POLICY,
        writer: str = "worker",
    ) -> None:
        self._load = load_snapshot
        self.topic = topic  # the events topic: its name is part of a message's coordinates
        self.auditor = Auditor(configs, self._restore)
        self.silence_ms = silence_ms
        self.clock = clock
        self.counters = ProcessorCounters()
        self._batch: FlushBatch[Token] = FlushBatch()
        self._waiting: dict[str, list[Token]] = {}  # tokens of each table's open round
        self._last_seen: dict[str, float] = {}  # table_id -> wall clock of its last event
        # table_id -> offset of its last message applied (by this process or in its saved state)
        self._offsets: dict[str, int] = {}
        self._unsaved: set[str] = set()  # tables between rounds whose snapshot is not taken yet
        # table_id -> partition its messages come from; a table is in it once seen (restored)
        self._partition: dict[str, int] = {}
        self.signer = signer  # None: chains without checkpoints
        self.checkpoint_policy = checkpoints
        self._chains: dict[str, ChainHead] = {}  # table_id -> its chain after its last row
        self._unsigned: set[str] = set()  # tables with chained rows no checkpoint covers
        # the floor manifests, numbered per process (``writer`` names this one)
        self.manifests = None if signer is None else ManifestSigner(signer, writer)

    def _restore(self, table_id: str, config: TableConfig) -> TableState | None:
        data = self._load(table_id)
        if not data:
            return None
        self._restore_chain(table_id, data)
        try:
            if is_chain_only(data):  # saved while the table had no configuration
                return None
            table, offset = restore(data, config)
        except Exception:  # a saved state this code cannot read: the table starts afresh
            log.exception("the saved state of %s could not be restored", table_id)
            self.counters.states_not_restored += 1
            return None
        log.info("restored %s: offset %s, seq %s", table_id, offset, table.last_seq)
        if offset is not None:
            self._offsets[table_id] = offset
        return table

    def _restore_chain(self, table_id: str, data: bytes | None) -> None:
        """The table's chain head from its saved state (an empty chain without one)."""
        head = ChainHead()
        if data:
            try:
                head = restore_chain(data)
            except Exception:  # counted with the state (states_not_restored)
                log.exception("the chain head saved for %s could not be read", table_id)
        if not head.signed_at:  # a new chain; or saved before the time was kept: due now
            due_s = 0.0 if head.position == head.signed else self.checkpoint_policy.every_minutes
            head.signed_at = self.clock() - due_s * 60
        self._chains[table_id] = head
        if head.position > head.signed:  # events no checkpoint covers yet, before a restart
            self._unsigned.add(table_id)

    # ---- one message ---------------------------------------------------------------------

    def handle(self, raw: bytes, partition: int, offset: int, token: Token) -> None:
        """Fold one message. Whatever its bytes, this returns: a message that cannot be
        decoded, judged or stored is dead-lettered (:meth:`refuse`) and acknowledged."""
        try:
            self._handle(raw, partition, offset, token)
        except Exception as exc:  # the worker's own code failed: never stop on a message
            log.exception("processing partition %s offset %s failed", partition, offset)
            self.counters.errors += 1
            try:
                self.refuse(Origin(partition, offset, raw), "judge", describe(exc))
            finally:
                self._batch.acks.append(token)

    def handle_batch(self, messages: Iterable[tuple[bytes, int, int, Token]]) -> None:
        """Fold a fetched batch: (bytes, partition, offset, token) in offset order per
        partition; each as :meth:`handle` folds one."""
        handle = self.handle
        for raw, partition, offset, token in messages:
            handle(raw, partition, offset, token)

    def _handle(self, raw: bytes, partition: int, offset: int, token: Token) -> None:
        now = self.clock()
        self.counters.events += 1
        fate = message_fate(raw, partition, offset, int(now * 1000), self._view)
        if isinstance(fate, Chained):  # acknowledged once its table is between rounds
            self._apply(fate, raw, partition, offset, token, now)
            return
        if isinstance(fate, Refused):
            origin = Origin(partition, offset, raw, fate.table_id, fate.event_id)
            self.refuse(origin, fate.stage, fate.reason, field=fate.field)
        elif isinstance(fate, Redelivered):  # its row is stored, and chained
            self.counters.redelivered += 1
        else:  # a Duplicate: the table counts it (its saved state says how many), ignores it
            self.auditor.feed(fate.event)
        self._batch.acks.append(token)

    def _apply(
        self, fate: Chained, raw: bytes, partition: int, offset: int, token: Token, now: float
    ) -> None:
        """Chain and store the event's row, fold the event (which remembers its event_id in
        the table's window) and take what it completed; its message waits for its round."""
        event, row = fate.event, fate.row
        try:
            outcomes = self.auditor.feed(event)
        except Exception as exc:
            log.exception("judging partition %s offset %s failed", partition, offset)
            self._chain(row, partition, offset)
            self._not_judged(_origin(event, partition, offset, raw), exc, token, now)
            return
        table_id = event.table_id
        self._chain(row, partition, offset)
        self._last_seen[table_id] = now
        self._offsets[table_id] = offset
        self._waiting.setdefault(table_id, []).append(token)
        if outcomes:
            self._take(outcomes, now, _origin(event, partition, offset, raw))
        self._maybe_persist(table_id)

    def _not_judged(self, origin: Origin, exc: Exception, token: Token, now: float) -> None:
        """Folding the message failed: dead-letter it, and drop the round its table had open
        (it may be half-folded; its later events are reported as outside any round), so
        that the table goes on from a state that can be judged and saved."""
        table_id = origin.table_id or ""
        reason = describe(exc)
        table = self.auditor.table(table_id)
        if table is not None and table.open_round is not None:
            dropped = table.open_round.round_id
            table.open_round = None
            table.attached = []
            table.remember((), (dropped,))
            reason += f"; round {dropped}, open, was dropped unjudged"
        self._last_seen[table_id] = now
        self._offsets[table_id] = origin.offset
        self._waiting.setdefault(table_id, []).append(token)
        self.refuse(origin, "judge", reason)
        self._maybe_persist(table_id)

    def _view(self, table_id: str, partition: int) -> TableView:
        """What the fate of the table's message rests on (:func:`message_fate`): the window
        of the table's state, restored on first sight, and the offset of the last message
        it applied (by this process, or before its saved state was taken). Its snapshot
        as of its last persist point is taken first, before its next event moves it."""
        if table_id not in self._partition:
            self._partition[table_id] = partition
            # restores the saved state, if any, with its chain head
            if self.auditor.ensure_table(table_id) is None or table_id not in self._chains:
                self._restore_chain(table_id, self._load(table_id))  # no configuration, or new
            self._chains[table_id].partition = partition
        if table_id in self._unsaved:
            self._save(table_id)
        table = self.auditor.table(table_id)
        return TableView(None if table is None else table.window, self._offsets.get(table_id))

    def _chain(self, row: EventRow, partition: int, offset: int) -> None:
        """Add the event's row to the batch at the next position of its table's chain,
        unless it was chained before (a message delivered again: its row is stored)."""
        table_id = row[0]
        head = self._chains.get(table_id)
        if head is None:  # never: _view restored it
            head = self._chains[table_id] = ChainHead(partition=partition)
        elif head.offset is not None and offset <= head.offset:
            return
        position, prev, digest = head.extend(table_id, row[2], row[3], row[6], partition, offset)
        self._batch.events.append(chained(row, position, prev, digest))
        if self.signer is None:
            return
        if position % self.checkpoint_policy.every_events == 0:
            self._sign(table_id, head)
        else:
            self._unsigned.add(table_id)

    def _sign(self, table_id: str, head: ChainHead) -> None:
        signer = self.signer
        if signer is None:
            return
        now = self.clock()
        try:
            checkpoint = sign(table_id, head, signer, int(now * 1000))
        except Exception:  # never stop on a checkpoint: the next one covers these events
            log.exception("signing a checkpoint of %s failed", table_id)
            return
        self._batch.checkpoints.append(checkpoint.row())
        self._batch.external.append(checkpoint_record(checkpoint))
        advance(head, checkpoint, now)
        self._unsigned.discard(table_id)
        self.counters.checkpoints += 1
        table = self.auditor.table(table_id)
        if table is None or table.open_round is None:
            self._unsaved.add(table_id)  # its saved state says what was signed

    def sign_due(self) -> int:
        """Sign a checkpoint of each table whose chain has events no checkpoint covers and
        whose last checkpoint is ``every_minutes`` old; returns how many."""
        if self.signer is None or not self._unsigned:
            return 0
        now = self.clock()
        due_s = self.checkpoint_policy.every_minutes * 60
        signed = 0
        for table_id in list(self._unsigned):
            head = self._chains.get(table_id)
            if head is None or head.position <= head.signed:
                self._unsigned.discard(table_id)
            elif now - head.signed_at >= due_s:
                self._sign(table_id, head)
                signed += 1
        return signed

    def adopt(self, table_id: str, partition: int) -> bool:
        """Take on a table of ``partition`` whose saved state this process has but no event of
        which came since it started (a quiet table after a restart or a rebalance), as its
        first event would: its state and chain restored, so that its events no checkpoint
        covers are signed when due. False if it was known already."""
        if table_id in self._partition:
            return False
        self._partition[table_id] = partition
        if self.auditor.ensure_table(table_id) is None or table_id not in self._chains:
            self._restore_chain(table_id, self._load(table_id))
        self._chains[table_id].partition = partition
        self.counters.adopted += 1
        return True

    def checkpoint_round(self, partitions: set[int]) -> int:
        """Sign what is due (:meth:`sign_due`), then the floor manifest of every table of
        ``partitions`` (its chain's head and last checkpoint); returns the checkpoints
        signed. Nothing without a signing key."""
        if self.manifests is None:
            return 0
        signed = self.sign_due()
        entries = [
            entry_of(
                table_id, head.checkpoint_no, head.position, head.hash_hex,
                head.checkpoint_link.hex(),
            )
            for table_id, head in self._chains.items()
            if self._partition.get(table_id) in partitions and head.position
        ]  # fmt: skip
        now_ms = int(self.clock() * 1000)
        try:
            line = self.manifests.sign(partitions, entries, now_ms)
        except Exception:  # never stop on a manifest: the next round signs one
            log.exception("signing the floor manifest failed")
            return signed
        self._batch.external.append(line)
        self.counters.manifests += 1
        return signed

    def sign_now(self, partitions: set[int]) -> int:
        """Sign every table of ``partitions`` whose events no checkpoint covers, due or not
        (before they are handed over); returns how many."""
        signed = 0
        for table_id in list(self._unsigned):
            head = self._chains.get(table_id)
            if head is None or self._partition.get(table_id) not in partitions:
                continue
            if head.position > head.signed:
                self._sign(table_id, head)
                signed += 1
        return signed

    def close_silent_rounds(self) -> int:
        """Judge rounds with no event for ``silence_ms`` as incomplete; returns how many."""
        now = self.clock()
        closed = 0
        for table in self.auditor.table_states():
            last = self._last_seen.get(table.table_id, now)
            if table.open_round is None or (now - last) * 1000 < self.silence_ms:
                continue
            table_id, round_id = table.table_id, table.open_round.round_id
            origin = Origin(
                self._partition.get(table_id, -1),
                self._offsets.get(table_id, -1),
                None,
                table_id,
                note=f"the silence timer closing round {round_id}",
            )
            minutes = self.silence_ms / 60_000
            try:
                outcomes = table.finish(
                    f"no round_end within {minutes:g} minutes of its last event"
                )
            except Exception as exc:
                log.exception("judging the silent round %s of %s failed", round_id, table_id)
                table.open_round = None
                table.attached = []
                table.remember((), (round_id,))
                self.refuse(origin, "judge", f"{describe(exc)}; round {round_id} dropped unjudged")
                outcomes = []
            if outcomes:
                self._take(self.auditor.count(outcomes), now, origin)
            self._maybe_persist(table_id)
            closed += 1
        return closed

    def _take(self, outcomes: list[RoundResult | Finding], now: float, origin: Origin) -> None:
        """Add each outcome's rows and messages to the batch, built and checked first: an
        outcome whose rows cannot be stored is set aside, and ``origin`` refused for it."""
        judged_ms = int(now * 1000)
        batch = self._batch
        failed = []
        for outcome in outcomes:
            try:
                built = _build(outcome, judged_ms)
                problem = built.problem()
            except Exception as exc:
                log.exception("building the rows of %s failed", _what(outcome))
                problem = f"its rows could not be built: {describe(exc)}"
            if problem is not None:
                failed.append(f"{_what(outcome)} not stored: {problem}")
                continue
            if built.round_row is not None and built.round_message is not None:
                batch.rounds.append(built.round_row)
                batch.settlements.extend(built.settlement_rows)
                batch.round_messages.append(built.round_message)
                if isinstance(outcome, RoundResult):
                    batch.judged.append(outcome)
            else:
                batch.table_findings.extend(built.findings)
            batch.findings.extend(built.finding_rows)
            batch.finding_messages.extend(built.finding_messages)
            batch.add_span(origin)
            by_check = self.counters.findings_by_check
            for finding in built.findings:
                by_check[finding.check] = by_check.get(finding.check, 0) + 1
        if failed:
            self.refuse(origin, "store", "; ".join(failed))

    # ---- a message not processed -----------------------------------------------------------

    def refuse(
        self,
        origin: Origin,
        stage: str,
        reason: str,
        *,
        field: str | None = None,
        batch: FlushBatch[Token] | None = None,
    ) -> None:
        """Dead-letter the message at ``origin`` (``stage``: decode, judge or store) and raise
        EVENT_NOT_PROCESSED for its table when its table_id can be read; into ``batch``
        (default: the one being gathered), whose write delivers both before its acks. The
        caller acknowledges the message."""
        batch = self._batch if batch is None else batch
        now_ms = int(self.clock() * 1000)
        if origin.raw is not None and (origin.table_id is None or origin.event_id is None):
            table_id, event_id = peek_ids(origin.raw)
            origin = Origin(
                origin.partition,
                origin.offset,
                origin.raw,
                origin.table_id or table_id,
                origin.event_id or event_id,
                origin.note,
            )
        counters = self.counters
        counters.refused[stage] = counters.refused.get(stage, 0) + 1
        if stage == "decode":
            counters.rejected += 1
        where = origin.where(self.topic)
        log.error("not processed (%s): %s: %s", stage, where, reason)
        received_at = ms_to_ts(now_ms)
        batch.dead_letters.append(
            dead_letter_record(
                topic=self.topic,
                origin=origin,
                stage=stage,
                reason=reason,
                field=field,
                received_at=received_at,
            )
        )
        table_id = readable_id(origin.table_id)
        if table_id is None:
            return
        finding = event_not_processed.finding(
            table_id, where, origin.event_id, stage, reason, received_at
        )
        row = finding_row(finding, now_ms, origin=origin.key(self.topic))
        problem = row_problem(FINDINGS, row)
        if problem is not None:  # cannot happen: ids are readable, the rest is ours
            log.error("the finding of %s cannot be stored: %s", where, problem)
            return
        batch.findings.append(row)
        batch.finding_messages.append(finding_message(finding, "", str(row[0])))
        batch.table_findings.append(finding)
        batch.add_span(origin, refusal=True)
        by_check = counters.findings_by_check
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
        if table is not None or table_id in self._chains:
            self._unsaved.add(table_id)  # (a table with no configuration: its chain alone)
        self._batch.acks.extend(self._waiting.pop(table_id, []))

    def _save(self, table_id: str) -> None:
        self._unsaved.discard(table_id)
        table = self.auditor.table(table_id)
        head = self._chains.get(table_id)
        if table is None:
            if head is not None and head.offset is not None:
                self._batch.snapshots[table_id] = chain_snapshot(table_id, head)
            return
        offset = self._offsets.get(table_id)
        try:
            self._batch.snapshots[table_id] = snapshot(table, offset, head)
        except Exception as exc:
            log.exception("the state of %s could not be saved", table_id)
            self._not_saved(table_id, offset, exc)

    def _not_saved(self, table_id: str, offset: int | None, exc: Exception) -> None:
        """The table's state cannot be encoded: it goes back to its last saved state (what a
        restarted worker would restore), and the message after which it could not be saved
        is refused. Its rows and the rounds it judged are written as usual."""
        self.counters.states_not_saved += 1
        partition = self._partition.get(table_id, -1)
        offset = -1 if offset is None else offset
        raw = next(
            (row[6] for row in reversed(self._batch.events)
             if row[7] == partition and row[8] == offset and isinstance(row[6], bytes)),
            None,
        )  # fmt: skip
        head = self._chains.get(table_id)
        self.auditor.forget(table_id)
        self._offsets.pop(table_id, None)
        self.auditor.ensure_table(table_id)  # the last saved state, or a new one
        if head is not None:  # the chain goes on from its last row, which is stored
            self._chains[table_id] = head
        self.refuse(
            Origin(partition, offset, raw, table_id),
            "store",
            f"the table's state after it could not be saved ({describe(exc)}): the table "
            "goes on from its last saved state",
        )

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
                self._waiting, self._last_seen, self._offsets, self._partition, self._chains
            )  # fmt: skip
            for values in per_table:
                values.pop(table_id, None)
            self._unsaved.discard(table_id)
            self._unsigned.discard(table_id)
        return dropped

    # ---- handing over ------------------------------------------------------------------------

    def pending(self) -> int:
        return len(self._batch)

    def drain(self) -> FlushBatch[Token]:
        self.sign_due()
        for table_id in list(self._unsaved):
            self._save(table_id)
        batch, self._batch = self._batch, FlushBatch()
        return batch

    def open_rounds(self) -> int:
        return sum(1 for t in self.auditor.table_states() if t.open_round is not None)


def _round_message(result: RoundResult) -> dict[str, object]:
    return {
        "table_id": result.table_id,
        "round_id": result.round_id,
        "start_event_id": result.start_event_id,
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


def _origin(event: AnyEvent, partition: int, offset: int, raw: bytes) -> Origin:
    return Origin(partition, offset, raw, event.table_id, event.event_id)
