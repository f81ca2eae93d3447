"""Writing the worker's batches, one at a time and in order, and what a rebalance leaves of them.

A batch is written in five awaited steps: ClickHouse rows, then the
``rounds``/``findings``/dead-letter messages, then the tables' snapshots
(the changelog messages acknowledged by the broker), then the restore fence
of its partitions (:mod:`.restore_fence`), then the acks. So a message's ack,
and with it Kafka's committed offset, never passes anything it caused, and
never passes the snapshot of its table nor its partition's fence.

Why the snapshots are awaited here: Faust writes a table's changelog through
a buffer, and its commit flushes that buffer first, but the flush gives up
after 0.1 s without a send and the commit goes on. A committed offset could
then pass a snapshot still in the buffer, and after a rebalance the next
owner of the partition restored the older snapshot and never saw the events
in between: a ``SEQUENCE_GAP`` finding that was not the table's, and a stub
count check that missed.

Generations: a rebalance that takes partitions away waits for the batches cut
before it, within a limit (the group does not wait forever). Whatever it
stops waiting for belongs to an older generation: those batches still write
their rows and messages (idempotent, keyed by stable ids) but no snapshot and
no ack, because the processor has forgotten their tables and the next owner
restores the last snapshot written and reads the rest of the partition again.
A snapshot written after that would roll the table's saved state back under
the next owner.

What the store refuses: every row is checked against its columns before it
joins a batch (``processor.py``), so an insert should not fail on its data;
if one does, the failure is told apart (:func:`tablewatch.store.errors.is_data_error`).
The store's own trouble (down, unreachable, overloaded) is waited out: the
batch is written again with a growing pause (0.5 s doubling to 30 s), as
long as it takes, and nothing is set aside for it. A data error splits the
batch in halves, each written on its own, down to the rows at fault: a
message's event row, or one outcome's rows (a round with its lines and
findings; see ``processor.Span``). Those are set aside and their messages
refused (dead letter, EVENT_NOT_PROCESSED finding), a set-aside round's
``rounds``/``findings`` messages are not sent, and the rest of the batch is
written. Rows written twice on the way are harmless: the tables are
idempotent. Kafka sends (output topics, snapshots) that fail are sent again
the same way.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from tablewatch.processors.poison import Origin
from tablewatch.processors.processor import FlushBatch, Span
from tablewatch.store.errors import describe, is_data_error
from tablewatch.store.rows import EVENT_COLUMNS

log = logging.getLogger("tablewatch.worker")
Token = TypeVar("Token")


@dataclass(frozen=True, slots=True)
class Sinks(Generic[Token]):
    """Where a batch goes, each step awaited before the next."""

    insert_rows: Callable[[FlushBatch[Token]], Awaitable[None]]  # ClickHouse
    send_messages: Callable[[FlushBatch[Token]], Awaitable[None]]  # output topics, delivered
    save_snapshots: Callable[[Mapping[str, bytes]], Awaitable[None]]  # changelog, delivered
    release: Callable[[list[Token]], object]  # the commit (awaited when it is a coroutine)
    # a cheap statement on the store: tells "the store is down" from "these rows are bad"
    probe: Callable[[], Awaitable[None]] | None = None
    # after the snapshots, before the acks: the restore fence of the acks' partitions
    fence: Callable[[list[Token]], Awaitable[None]] | None = None


# Refuse the message at ``origin``, whose rows the store refused, into the batch (its dead
# letter, and its finding's row and message): LiveProcessor.refuse with stage "store".
Refuse = Callable[[FlushBatch[Token], Origin, str], object]
RETRY_FIRST_S = 0.5
RETRY_MAX_S = 30.0
SUSPECT_ALL = 3  # times a batch whose every part fails alone is written again before


class _StoreDown(Exception):
    """An insert failed for the store's sake while the rows at fault were looked for."""


@dataclass(slots=True)
class _Part:
    """Rows written together or not at all: one message's event row, or one outcome's."""

    origin: Origin | None  # None: rows no span accounts for
    events: list[tuple[object, ...]] = field(default_factory=list)
    rounds: list[tuple[object, ...]] = field(default_factory=list)
    settlements: list[tuple[object, ...]] = field(default_factory=list)
    findings: list[tuple[object, ...]] = field(default_factory=list)
    checkpoints: list[tuple[object, ...]] = field(default_factory=list)
    event: int | None = None  # its index in batch.events
    span: int | None = None  # its index in batch.spans


class BatchWriter(Generic[Token]):
    def __init__(
        self,
        sinks: Sinks[Token],
        max_waiting: int = 4,
        *,
        refuse: Refuse[Token] | None = None,
        retry_first_s: float = RETRY_FIRST_S,
        retry_max_s: float = RETRY_MAX_S,
    ) -> None:
        self.sinks = sinks
        self.refuse = refuse
        self.retry_first_s = retry_first_s
        self.retry_max_s = retry_max_s
        self.generation = 0
        self._queue: asyncio.Queue[tuple[int, FlushBatch[Token]]] = asyncio.Queue(max_waiting)
        self.flushes = 0
        self.write_seconds = 0.0
        self.stale = 0  # batches written after a rebalance stopped waiting for them
        self.retries: dict[str, int] = {"rows": 0, "messages": 0, "snapshots": 0, "batch": 0}
        self.isolated = 0  # batches the store refused, split to find the rows at fault
        self.rows_set_aside = 0  # parts (a message's event row, an outcome's rows) refused

    def waiting(self) -> int:
        return self._queue.qsize()

    async def put(self, batch: FlushBatch[Token]) -> None:
        """Queue a batch of the current generation (waits while the writer is behind)."""
        await self._queue.put((self.generation, batch))

    async def run(self) -> None:
        """Write the queued batches in order, forever. A write that fails on something not
        foreseen is logged and done again from its start (every step is idempotent): the
        task never ends, or no ack would ever be released again."""
        while True:
            generation, batch = await self._queue.get()
            try:
                attempt = 0
                while True:
                    try:
                        await self.write(batch, generation)
                        break
                    except Exception as exc:
                        log.exception("writing a batch failed")
                        await self._pause("batch", exc, attempt)
                        attempt += 1
            finally:
                self._queue.task_done()

    async def write(self, batch: FlushBatch[Token], generation: int) -> None:
        started = time.perf_counter()
        await self._write_rows(batch)
        await self._retrying("messages", lambda: self.sinks.send_messages(batch))
        if generation == self.generation and batch.snapshots:
            await self._retrying(
                "snapshots",
                lambda: self.sinks.save_snapshots(batch.snapshots),
                stop=lambda: generation != self.generation,
            )
        fence = self.sinks.fence
        if generation == self.generation and fence is not None and batch.acks:
            await self._retrying(
                "snapshots",
                lambda: fence(batch.acks),
                stop=lambda: generation != self.generation,
            )
        # a rebalance may have given up on this batch while the snapshots were sent
        if generation == self.generation:
            released = self.sinks.release(batch.acks)
            if inspect.isawaitable(released):
                await released
        else:
            self.stale += 1
            log.warning(
                "a batch of %d messages was written after the rebalance that revoked its "
                "partitions: its rows and messages are written, its snapshots and acks are not",
                len(batch),
            )
        self.flushes += 1
        self.write_seconds += time.perf_counter() - started

    async def settle(self, timeout_s: float) -> bool:
        """Wait until every queued batch is written; False if ``timeout_s`` passed first.

        Either way the generation ends here: a batch still waiting is written
        without its snapshots and acks (see the module docstring).
        """
        try:
            await asyncio.wait_for(self._queue.join(), timeout=timeout_s)
            return True
        except TimeoutError:
            return False
        finally:
            self.generation += 1

    def abandon(self) -> None:
        """End the generation now (the worker leaves the group): the batches queued or being
        written still write their rows and messages, no snapshot, fence or commit."""
        self.generation += 1

    # ---- what the store or the broker refuses ---------------------------------------------

    async def _pause(self, step: str, exc: BaseException, attempt: int) -> None:
        delay = min(self.retry_max_s, self.retry_first_s * 2**attempt)
        self.retries[step] = self.retries.get(step, 0) + 1
        log.warning("writing %s failed (%s); again in %.1f s", step, describe(exc), delay)
        await asyncio.sleep(delay)

    async def _retrying(
        self,
        step: str,
        send: Callable[[], Awaitable[None]],
        stop: Callable[[], bool] = lambda: False,
    ) -> None:
        """``send()`` until it succeeds (or ``stop()`` says it is no longer wanted)."""
        attempt = 0
        while True:
            try:
                await send()
                return
            except Exception as exc:
                await self._pause(step, exc, attempt)
                attempt += 1
            if stop():
                return

    async def _write_rows(self, batch: FlushBatch[Token]) -> None:
        """Insert the batch's rows; wait out the store's failures; set aside rows it refuses."""
        attempt = suspect = 0
        while True:
            try:
                await self.sinks.insert_rows(batch)
                return
            except Exception as exc:
                if not is_data_error(exc):
                    await self._pause("rows", exc, attempt)
                    attempt += 1
                    continue
                log.warning("the store refused a batch's rows (%s): isolating", describe(exc))
                refused: BaseException = exc
            parts = _parts(batch)
            self.isolated += 1
            try:
                failed = await self._isolate(parts) if len(parts) > 1 else [(parts[0], refused)]
                if failed and self.sinks.probe is not None:
                    await self.sinks.probe()  # rows at fault, or a store that fails everything?
            except Exception as down:
                await self._pause("rows", down, attempt)
                attempt += 1
                continue
            if len(failed) == len(parts) > 1 and suspect < SUSPECT_ALL:
                suspect += 1  # every part failing alone looks like the store's fault
                await self._pause("rows", failed[0][1], attempt)
                attempt += 1
                continue
            if failed:
                await self._set_aside(batch, failed)
            return

    async def _isolate(self, parts: list[_Part]) -> list[tuple[_Part, BaseException]]:
        """The parts the store refuses, each alone, found by writing halves."""
        middle = len(parts) // 2
        failed: list[tuple[_Part, BaseException]] = []
        for half in (parts[:middle], parts[middle:]):
            try:
                await self.sinks.insert_rows(_batch_of(half))
                continue
            except Exception as exc:
                if not is_data_error(exc):
                    raise _StoreDown(describe(exc)) from exc
                if len(half) == 1:
                    failed.append((half[0], exc))
                    continue
            failed += await self._isolate(half)
        return failed

    async def _set_aside(
        self, batch: FlushBatch[Token], failed: list[tuple[_Part, BaseException]]
    ) -> None:
        """Take the refused parts out of ``batch`` (their rows and messages), refuse their
        messages into it, and insert the rows of those refusals (their findings)."""
        self.rows_set_aside += len(failed)
        events = {p.event for p, _ in failed if p.event is not None}
        spans = {p.span for p, _ in failed if p.span is not None}
        reasons: dict[Origin, list[str]] = {}
        for part, exc in failed:
            what = "its event row" if part.event is not None else "the rows it completed"
            if part.origin is None or (part.span is not None and batch.spans[part.span].refusal):
                log.error("rows set aside with no message to refuse for them: %s", describe(exc))
                continue
            reasons.setdefault(part.origin, []).append(f"{what}: {describe(exc)}")
        _drop(batch, events, spans)
        before = len(batch.findings)
        for origin, why in reasons.items():
            reason = "the store refused " + "; ".join(why)
            if self.refuse is not None:
                self.refuse(batch, origin, reason)
            else:
                log.error("not stored: partition %s offset %s: %s",
                          origin.partition, origin.offset, reason)  # fmt: skip
        refusals = batch.findings[before:]
        if not refusals:
            return
        try:
            await self._retrying_store(_batch_of([_Part(None, findings=refusals)]))
        except Exception as exc:  # never: the rows of a refusal are plain and checked
            log.error("the findings of refused messages were not stored: %s", describe(exc))

    async def _retrying_store(self, rows: FlushBatch[Token]) -> None:
        """Insert ``rows``, waiting out the store's failures; a data error is raised."""
        attempt = 0
        while True:
            try:
                await self.sinks.insert_rows(rows)
                return
            except Exception as exc:
                if is_data_error(exc):
                    raise
                await self._pause("rows", exc, attempt)
                attempt += 1


def _origin_of_row(row: tuple[object, ...]) -> Origin | None:
    """The message of a ``raw_events`` row (rows.EVENT_COLUMNS), or None for another shape."""
    if len(row) != len(EVENT_COLUMNS):
        return None
    table_id, event_id, payload, partition, offset = row[0], row[1], row[6], row[7], row[8]
    if not (isinstance(partition, int) and isinstance(offset, int)):
        return None
    raw = bytes(payload) if isinstance(payload, (bytes, bytearray, memoryview)) else None
    return Origin(
        partition,
        offset,
        raw,
        table_id if isinstance(table_id, str) else None,
        event_id if isinstance(event_id, str) else None,
    )


def _parts(batch: FlushBatch[Token]) -> list[_Part]:
    """The batch's rows as parts: each event row, each span's rows, any rows after the
    last span (none in the worker's batches: every outcome closes a span), and the
    checkpoints (no message to refuse for them: one the store refused is logged)."""
    parts = [
        _Part(_origin_of_row(row), events=[row], event=i) for i, row in enumerate(batch.events)
    ]
    if batch.checkpoints:
        parts.append(_Part(None, checkpoints=list(batch.checkpoints)))
    previous = _end_of(FlushBatch())
    for index, span in enumerate([*batch.spans, _end_of(batch)]):
        part = _Part(
            span.origin if index < len(batch.spans) else None,
            rounds=batch.rounds[previous.rounds : span.rounds],
            settlements=batch.settlements[previous.settlements : span.settlements],
            findings=batch.findings[previous.findings : span.findings],
            span=index if index < len(batch.spans) else None,
        )
        if part.rounds or part.settlements or part.findings:
            parts.append(part)
        previous = span
    return parts


def _end_of(batch: FlushBatch[Token]) -> Span:
    return Span(
        Origin(-1, -1, None),
        len(batch.rounds),
        len(batch.settlements),
        len(batch.findings),
        len(batch.round_messages),
        len(batch.finding_messages),
    )


def _batch_of(parts: list[_Part]) -> FlushBatch[Token]:
    batch: FlushBatch[Token] = FlushBatch()
    for part in parts:
        batch.events += part.events
        batch.rounds += part.rounds
        batch.settlements += part.settlements
        batch.findings += part.findings
        batch.checkpoints += part.checkpoints
    return batch


def _drop(batch: FlushBatch[Token], events: set[int], spans: set[int]) -> None:
    """Take event rows and spans (their rows and output messages) out of ``batch``."""
    if events:
        batch.events = [row for i, row in enumerate(batch.events) if i not in events]
    if not spans:
        return
    rounds: list[tuple[object, ...]] = []
    settlements: list[tuple[object, ...]] = []
    findings: list[tuple[object, ...]] = []
    round_messages: list[tuple[bytes, bytes]] = []
    finding_messages: list[tuple[bytes, bytes]] = []
    kept: list[Span] = []
    start = _end_of(FlushBatch())
    for index, span in enumerate([*batch.spans, _end_of(batch)]):
        if index not in spans:
            rounds += batch.rounds[start.rounds : span.rounds]
            settlements += batch.settlements[start.settlements : span.settlements]
            findings += batch.findings[start.findings : span.findings]
            round_messages += batch.round_messages[start.round_messages : span.round_messages]
            finding_messages += batch.finding_messages[
                start.finding_messages : span.finding_messages
            ]
            if index < len(batch.spans):
                ends = (len(rounds), len(settlements), len(findings), len(round_messages))
                kept.append(Span(span.origin, *ends, len(finding_messages), span.refusal))
        start = span
    batch.rounds, batch.settlements, batch.findings = rounds, settlements, findings
    batch.round_messages, batch.finding_messages = round_messages, finding_messages
    batch.spans = kept
