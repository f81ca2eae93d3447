"""The patterns companion: the events topic folded into pattern findings, its state one checkpoint.

The companion reads the events topic as the worker does (its own reader, every
partition) and judges it again with its own :class:`~tablewatch.rules.audit.Auditor`:
the same events in each table's order give the same rounds (what replay shows every
day). Each judged round's figures (:meth:`FloorFolds.round_of`) wait in a
:class:`RoundOrder` until the companion's watermark is the horizon past their end, and
are then read by the folds in that order: the order a replay reads them in.

The watermark (:meth:`Companion.watermark`) is the time the topic is read to: the
earliest of the latest event times read in the partitions that still hold messages not
read, however far ahead the reader has read another partition (a companion catching up
on hours of the topic reads the rounds in the same order as one that kept up). Read to
its end everywhere, it is the latest event time read, or the wall clock less
:data:`DEFAULT_QUIET_MS` once the floor has been quiet that long.

A message's fate is the worker's (:func:`~tablewatch.message_fate.message_fate`): what
the worker refuses is not judged here either; the table's own window ignores duplicates.

State, saved as one checkpoint (:meth:`Companion.save`, :meth:`Companion.load`): each
partition's next offset; each table's state between rounds
(:mod:`tablewatch.processors.state_codec`'s snapshot, taken before the event that
opened its round) with the messages of its open round, folded again on load; the rounds
waiting in order; the folds' statistics. The findings made before a checkpoint are stored
before it; a companion stopped between the two reads again from the checkpoint before
and makes the same findings again, with the same ids.

No I/O here: the reader (:mod:`tablewatch.patterns.companion_loop`) gives the messages and
stores what comes out.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Final

import msgspec

from tablewatch.message_fate import Refused, TableView, message_fate
from tablewatch.patterns.finding import PatternFinding
from tablewatch.patterns.floor_folds import DEFAULT_HORIZON_MS, FloorFolds, RoundOrder
from tablewatch.patterns.hold_band import Figures
from tablewatch.patterns.pattern_round import PatternRound
from tablewatch.processors.state_codec import restore, snapshot
from tablewatch.rules.audit import Auditor
from tablewatch.rules.events import ts_to_ms
from tablewatch.rules.round_result import RoundResult
from tablewatch.rules.table import TableState
from tablewatch.rules.table_config import TableConfig

CHECKPOINT_VERSION: Final = 1
DEFAULT_QUIET_MS: Final = 5 * 60_000  # the topic read to its end this long: nothing earlier comes
_ANY = TableView(window=None)  # the table's own window ignores its duplicates when it folds


class Checkpoint(msgspec.Struct):
    version: int
    offsets: dict[int, int]  # partition -> the next offset to read
    partition_ms: dict[int, int]  # partition -> the latest event time read
    tables: dict[str, bytes]  # table -> its state between rounds (state_codec)
    open_events: dict[str, list[tuple[int, int, bytes]]]  # table -> its open round's messages
    order: bytes
    folds: bytes
    rounds: int
    refused: int


_ENCODER = msgspec.msgpack.Encoder()
_CHECKPOINT = msgspec.msgpack.Decoder(Checkpoint)


class CheckpointUnreadable(ValueError):
    """A saved checkpoint this version cannot read."""


class Companion:
    """Messages in, pattern findings out (see the module's docstring)."""

    def __init__(
        self,
        configs: Mapping[str, TableConfig],
        horizon_ms: int = DEFAULT_HORIZON_MS,
        figures: Figures | None = None,
        quiet_ms: int | None = DEFAULT_QUIET_MS,
    ) -> None:
        self.configs = configs
        self._saved: dict[str, bytes] = {}  # tables restored from a checkpoint, once
        self.auditor = Auditor(configs, restore=self._restore)
        self.folds = FloorFolds(configs, figures)
        self.order = RoundOrder(horizon_ms)
        self.offsets: dict[int, int] = {}
        self.partition_ms: dict[int, int] = {}  # the latest event time read in each partition
        self.quiet_ms = quiet_ms
        self.rounds = 0  # rounds the folds have read
        self.refused = 0  # messages the worker refuses too
        self._before_open: dict[str, bytes] = {}  # table -> its state before its open round
        self._open: dict[str, list[tuple[int, int, bytes]]] = {}  # (partition, offset, bytes)

    def feed(self, partition: int, offset: int, raw: bytes) -> None:
        """Fold one message (each partition's in offset order)."""
        self.offsets[partition] = offset + 1
        self._fold(raw, partition, offset)

    def watermark(self, behind: Collection[int], now_ms: int | None = None) -> int | None:
        """The time the events topic is read to: the earliest of the latest event times read
        in the partitions ``behind`` (those with messages not read yet); with none behind,
        the latest read anywhere, or ``now_ms`` less :attr:`quiet_ms` when later (nothing
        more is expected from before then). Never past ``now_ms`` (a controller's clock
        ahead moves nothing). None: a partition behind has not been read yet."""
        times = self.partition_ms
        mark: int | None
        if behind:
            if any(p not in times for p in behind):
                return None
            mark = min(times[p] for p in behind)
        else:
            mark = max(times.values(), default=None)
            if now_ms is not None and self.quiet_ms is not None:
                mark = max(mark or 0, now_ms - self.quiet_ms)
        if mark is not None and now_ms is not None:
            mark = min(mark, now_ms)
        return mark

    def release(self, behind: Collection[int], now_ms: int | None = None) -> list[PatternFinding]:
        """The findings of the rounds the watermark (:meth:`watermark`) lets the folds read."""
        mark = self.watermark(behind, now_ms)
        return [] if mark is None else self.read(self.order.ready(mark))

    def flush(self) -> list[PatternFinding]:
        """Read every round waiting (the end of the input): the findings."""
        return self.read(self.order.drain())

    def read(self, rounds: list[PatternRound]) -> list[PatternFinding]:
        found: list[PatternFinding] = []
        for rnd in rounds:
            self.rounds += 1
            found += self.folds.take(rnd)
        return found

    def _fold(self, raw: bytes, partition: int, offset: int, restoring: bool = False) -> None:
        fate = message_fate(raw, partition, offset, 0, lambda table_id, p: _ANY)
        if isinstance(fate, Refused):
            self.refused += 1
            return
        event = fate.event
        table_id = event.table_id
        if not restoring:
            ms = ts_to_ms(event.ts)
            if ms > self.partition_ms.get(partition, ms - 1):
                self.partition_ms[partition] = ms
        table = self.auditor.ensure_table(table_id)
        if table is None:  # no configuration: nothing judged
            return
        if table.open_round is None and table_id not in self._before_open:
            self._before_open[table_id] = snapshot(table)
        outcomes = self.auditor.feed(event)
        if table.open_round is None:
            self._before_open.pop(table_id, None)
            self._open.pop(table_id, None)
        else:
            self._open.setdefault(table_id, []).append((partition, offset, raw))
        for outcome in outcomes:
            if isinstance(outcome, RoundResult):
                self.order.add(self.folds.round_of(outcome))

    def _restore(self, table_id: str, config: TableConfig) -> TableState | None:
        data = self._saved.pop(table_id, None)
        return None if data is None else restore(data, config)[0]

    def save(self) -> bytes:
        """The checkpoint: everything :meth:`load` needs to go on as if never stopped."""
        tables: dict[str, bytes] = {}
        for table in self.auditor.table_states():
            before = self._before_open.get(table.table_id)
            if table.open_round is None:
                tables[table.table_id] = snapshot(table)
            elif before is not None:
                tables[table.table_id] = before
        tables.update(self._saved)  # restored tables not seen since
        return _ENCODER.encode(
            Checkpoint(
                version=CHECKPOINT_VERSION,
                offsets=dict(self.offsets),
                partition_ms=dict(self.partition_ms),
                tables=tables,
                open_events={t: list(raws) for t, raws in self._open.items()},
                order=self.order.save(),
                folds=self.folds.save(),
                rounds=self.rounds,
                refused=self.refused,
            )
        )

    def load(self, data: bytes) -> None:
        """Go on from a checkpoint :meth:`save` gave (on a new companion)."""
        try:
            checkpoint = _CHECKPOINT.decode(data)
        except msgspec.DecodeError as exc:
            raise CheckpointUnreadable(f"patterns checkpoint: {exc}") from exc
        if checkpoint.version != CHECKPOINT_VERSION:
            raise CheckpointUnreadable(
                f"patterns checkpoint: version {checkpoint.version}, this reads "
                f"{CHECKPOINT_VERSION}"
            )
        self.offsets = dict(checkpoint.offsets)
        self.partition_ms = dict(checkpoint.partition_ms)
        self._saved = {t: s for t, s in checkpoint.tables.items() if t in self.configs}
        self.order.load(checkpoint.order)
        self.folds.load(checkpoint.folds)
        self.rounds = checkpoint.rounds
        self.refused = checkpoint.refused
        for messages in checkpoint.open_events.values():
            for partition, offset, raw in messages:  # an open round's: none of them ends it
                self._fold(raw, partition, offset, restoring=True)
