"""Every pattern fold of a floor together, and the one order they read rounds in.

:class:`FloorFolds` holds the four folds (advantage play, a dealer's errors, the hold
band, the meter's rate) for one set of table configurations; :meth:`FloorFolds.round_of`
takes a judged round's figures once (:func:`~tablewatch.patterns.pattern_round.pattern_round`,
with the table's hold figures) and :meth:`FloorFolds.take` gives them to each fold, in
that order, returning the findings in that order.

The folds' statistics depend on the order of the rounds (a dealer's rate is against
the floor's so far; a player's rounds span tables), so live and replay read them in one
order: :class:`RoundOrder`, by the round's end time, then table, round id and start
event. A replay has every round before it reads any (:meth:`RoundOrder.drain`); the live
companion reads the rounds that ended ``horizon_ms`` or more before its watermark, the
time every partition of the events topic has been read to
(:meth:`RoundOrder.ready`, :mod:`tablewatch.patterns.companion`). A round that reaches
the companion after a later one was read (a table whose events were held up longer than
the horizon) is read when it comes, out of order, and counted (:attr:`RoundOrder.late`):
of such rounds, and only of them, live and replay may read in different orders.

Both save their state as msgpack (:meth:`FloorFolds.save`, :meth:`RoundOrder.save`):
typed structures decoded as such, never objects rebuilt from the bytes.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from typing import Final

import msgspec

from tablewatch.patterns.advantage_play import AdvantagePlay
from tablewatch.patterns.dealer_errors import DealerErrors
from tablewatch.patterns.finding import PatternFinding
from tablewatch.patterns.hold_band import Figures, HoldBand, registry_figures
from tablewatch.patterns.meter_rate import MeterRate
from tablewatch.patterns.pattern_round import PatternRound, pattern_round
from tablewatch.rules.round_result import RoundResult
from tablewatch.rules.table_config import TableConfig

DEFAULT_HORIZON_MS: Final = 60_000
RoundKey = tuple[int, str, str, str]  # PatternRound.key

_ENCODER = msgspec.msgpack.Encoder()


class _FoldsState(msgspec.Struct):
    advantage: bytes
    dealers: bytes
    hold: bytes
    meter: bytes


_FOLDS = msgspec.msgpack.Decoder(_FoldsState)


class FloorFolds:
    """The four folds of one floor (see the module's docstring)."""

    def __init__(self, configs: Mapping[str, TableConfig], figures: Figures | None = None) -> None:
        self.advantage = AdvantagePlay()
        self.dealers = DealerErrors(configs)
        self.hold = HoldBand(configs, figures or registry_figures())
        self.meter = MeterRate(configs)

    def round_of(self, result: RoundResult) -> PatternRound:
        """The figures of ``result`` every fold reads."""
        return pattern_round(result, self.hold.figures_of(result.table_id))

    def take(self, rnd: PatternRound) -> list[PatternFinding]:
        """The findings ``rnd`` completes, fold by fold."""
        return [
            *self.advantage.take(rnd),
            *self.dealers.take(rnd),
            *self.hold.take(rnd),
            *self.meter.take(rnd),
        ]

    def save(self) -> bytes:
        return _ENCODER.encode(
            _FoldsState(
                self.advantage.save(), self.dealers.save(), self.hold.save(), self.meter.save()
            )
        )

    def load(self, data: bytes) -> None:
        state = _FOLDS.decode(data)
        self.advantage.load(state.advantage)
        self.dealers.load(state.dealers)
        self.hold.load(state.hold)
        self.meter.load(state.meter)


class _OrderState(msgspec.Struct):
    waiting: list[PatternRound]
    last: tuple[int, str, str, str] | None
    late: int


_ORDER = msgspec.msgpack.Decoder(_OrderState)


class RoundOrder:
    """The rounds waiting to be read, in the order the folds read them."""

    def __init__(self, horizon_ms: int = DEFAULT_HORIZON_MS) -> None:
        if horizon_ms < 0:
            raise ValueError(f"patterns: horizon {horizon_ms} ms is negative")
        self.horizon_ms = horizon_ms
        self._heap: list[tuple[RoundKey, int, PatternRound]] = []
        self._added = 0  # ties (the same key twice) keep the order they came in
        self._last: RoundKey | None = None  # the key of the round read last
        self.late = 0  # rounds that came after a later round had been read

    def __len__(self) -> int:
        return len(self._heap)

    def add(self, rnd: PatternRound) -> None:
        key = rnd.key
        if self._last is not None and key < self._last:
            self.late += 1
        self._added += 1
        heapq.heappush(self._heap, (key, self._added, rnd))

    def ready(self, watermark_ms: int) -> list[PatternRound]:
        """The rounds that ended ``horizon_ms`` or more before ``watermark_ms``, in order
        (and any that came late), taken out."""
        return self._until(watermark_ms - self.horizon_ms)

    def drain(self) -> list[PatternRound]:
        """Every round waiting, in order, taken out (the end of a replay's input)."""
        return self._until(None)

    def _until(self, end_ms: int | None) -> list[PatternRound]:
        heap = self._heap
        out: list[PatternRound] = []
        while heap and (
            end_ms is None
            or heap[0][0][0] <= end_ms
            or (self._last is not None and heap[0][0] < self._last)
        ):
            key, _, rnd = heapq.heappop(heap)
            out.append(rnd)
            if self._last is None or key > self._last:
                self._last = key
        return out

    def save(self) -> bytes:
        waiting = [rnd for _, _, rnd in sorted(self._heap, key=lambda item: item[:2])]
        return _ENCODER.encode(_OrderState(waiting, self._last, self.late))

    def load(self, data: bytes) -> None:
        state = _ORDER.decode(data)
        self._heap = [(rnd.key, n, rnd) for n, rnd in enumerate(state.waiting)]
        self._added = len(self._heap)
        self._last = state.last
        self.late = state.late
