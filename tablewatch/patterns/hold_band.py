"""HOLD_OUT_OF_BAND: a table's hold over a shift against its game's exact edge, by CUSUM.

For each judged round, the house's win on the wagers the game prices (its
descriptor's ``hold``: the bets counted in each wager, its unit bet, whether a win
keeps the stake, as the hold rollups count them) is compared with what the
theoretical edge expects of the stakes, and standardized by the game's variance::

    z = (W - sum_w e_w U_w) / sqrt(sum_w s_w^2 Q_w)

``W`` the house's win in the round (cents), ``U_w`` the unit stakes of wager ``w``
(the hands whose unit line was settled and not returned), ``Q_w`` the sum of their
squares, ``e_w`` and ``s_w`` the wager's house edge and standard deviation per unit
under the table's pay tables (computed through the game registry,
:func:`registry_figures`). Under honest play ``z`` has mean 0 and variance 1 (hands
taken as independent). ``z`` is clipped to ``±hold_clip`` (a rare large payout moves the
sum by at most that much) and summed in a two-sided CUSUM::

    S+ = max(0, S+ + z - k)   (the house winning more than the edge allows)
    S- = max(0, S- - z - k)   (the house winning less: chips walking, a leak, a shortfall)

with ``k`` = ``hold_cusum_k`` and, on ``S+`` or ``S-`` passing ``h`` =
``hold_cusum_h``, one finding for the table, the shift and the direction. Both sums
start again at each shift boundary (``shift_hours`` from ``shift_start_hour`` UTC, by
the round's start). The false-alarm rate stated is Siegmund's approximation of the
CUSUM's in-control average run length for standard normal rounds
(:func:`average_run_length`); the rate measured on simulated honest floors is in
docs/patterns.md.

Voided rounds and rounds with no priced hand are not read.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final

import msgspec

from tablewatch.finding_money import dollars
from tablewatch.patterns.finding import PatternFinding, RoundKey
from tablewatch.patterns.pattern_round import Figure, PatternRound, pattern_round
from tablewatch.rules.config_patterns import PatternSettings
from tablewatch.rules.events import ms_to_ts, ts_to_ms
from tablewatch.rules.game_rules import ExactEdge, MonteCarloEdge, RowsEdge
from tablewatch.rules.round_result import RoundResult
from tablewatch.rules.table_config import TableConfig

CHECK: Final = "HOLD_OUT_OF_BAND"
STATISTIC: Final = "CUSUM of standardized house win"
HOUR_MS: Final = 3_600_000
EVIDENCE_ROUNDS: Final = 5
SIEGMUND_SHIFT: Final = 1.166  # Siegmund's correction of the threshold (normal rounds)
MONTE_CARLO_SAMPLES: Final = 200_000  # a wager priced by Monte-Carlo: about 0.006 unit SE
MONTE_CARLO_SEED: Final = 29

Figures = Callable[[TableConfig], Mapping[str, Figure]]  # a table -> figures by wager


def paytable_key(config: TableConfig, wager: str) -> str:
    """The pay table that prices ``wager`` at this table, as ``table_paytables`` keys it:
    its slot's letter (or rows), the rows or letter of the slot its edge is computed
    with, else ''."""
    if wager in config.paytables:
        return config.paytables[wager].letter
    spec = config.rules.edges.get(wager)
    if isinstance(spec, RowsEdge) and spec.slot in config.paytables:
        return config.paytables[spec.slot].letter
    if isinstance(spec, MonteCarloEdge) and spec.tables:
        slot = next(iter(spec.tables.values())).wager
        if slot in config.paytables:
            return config.paytables[slot].letter
    return ""


def registry_figures(samples: int = MONTE_CARLO_SAMPLES, seed: int = MONTE_CARLO_SEED) -> Figures:
    """Figures computed through the game registry (each game's ``edges``): exact for an
    enumerated wager, a seeded Monte-Carlo of ``samples`` deals for one priced by a learned
    play (the same figures every run). Each (game, wager, pay table) is computed once."""

    computed: dict[tuple[str, str, str], Figure | None] = {}

    def figures(config: TableConfig) -> Mapping[str, Figure]:
        out: dict[str, Figure] = {}
        for wager, spec in config.rules.edges.items():
            key = (config.game, wager, paytable_key(config, wager))
            if key not in computed:
                computed[key] = _compute(config, wager, spec, samples, seed)
            figure = computed[key]
            if figure is not None:
                out[wager] = figure
        return out

    return figures


def _compute(
    config: TableConfig,
    wager: str,
    spec: ExactEdge | MonteCarloEdge | RowsEdge,
    samples: int,
    seed: int,
) -> Figure | None:
    game = config.game
    if isinstance(spec, RowsEdge):
        if spec.slot not in config.paytables:
            return None
        result = spec.compute(game, config.paytables[spec.slot], None)
    elif isinstance(spec, ExactEdge):
        if wager not in config.paytables:
            return None
        result = spec.compute(game, config.paytables[wager].letter)
    else:
        letter = paytable_key(config, wager)
        if spec.tables and not letter:
            return None
        extra = {"letter": letter} if spec.tables else {}
        result = spec.compute(game, samples=samples, train_samples=samples, seed=seed, **extra)
    std = result.extras.get("std_dev")
    if not isinstance(std, float) or std <= 0:
        return None
    return (result.house_edge, std)


def average_run_length(k: float, h: float) -> float:
    """Rounds an honest table (standard normal rounds) runs, on average, before the
    two-sided CUSUM passes ``h``: Siegmund's approximation of each side's,
    ``(e^(2kb) - 2kb - 1) / (2k^2)`` with ``b = h + 1.166``, combined as ``1/(1/A + 1/A)``."""
    b = h + SIEGMUND_SHIFT
    one_side = (math.exp(2 * k * b) - 2 * k * b - 1) / (2 * k * k)
    return one_side / 2


def false_alarm_text(settings: PatternSettings) -> str:
    arl = average_run_length(settings.hold_cusum_k, settings.hold_cusum_h)
    return f"1 per {arl:,.0f} honest rounds (Siegmund's ARL, normal rounds)"


@dataclass(slots=True)
class _Shift:
    """One table's sums over its current shift."""

    index: int
    first_ts: str
    upper: float = 0.0
    lower: float = 0.0
    rounds: int = 0
    won: int = 0  # cents, the house's
    expected: float = 0.0
    variance: float = 0.0
    reported: set[str] = field(default_factory=set)  # "above", "below"
    high: list[tuple[float, int, RoundKey]] = field(default_factory=list)  # largest z
    low: list[tuple[float, int, RoundKey]] = field(default_factory=list)  # smallest z


class HoldBand:
    """The fold: ``feed(round)`` gives the HOLD_OUT_OF_BAND findings the round completes.

    ``configs``: each table's configuration (its pay tables and ``patterns`` settings);
    ``figures``: each table's (edge, SD) per priced wager (:func:`registry_figures`)."""

    def __init__(self, configs: Mapping[str, TableConfig], figures: Figures) -> None:
        self._configs = configs
        self._figures = figures
        self._by_table: dict[str, Mapping[str, Figure]] = {}
        self._shifts: dict[str, _Shift] = {}
        self._n = 0

    def figures_of(self, table_id: str) -> Mapping[str, Figure]:
        """The table's (edge, SD) per priced wager (none for a table not configured)."""
        figures = self._by_table.get(table_id)
        if figures is None:
            config = self._configs.get(table_id)
            if config is None:
                return {}
            figures = self._by_table[table_id] = self._figures(config)
        return figures

    def feed(self, result: RoundResult) -> list[PatternFinding]:
        """:meth:`take` of the round's figures."""
        return self.take(pattern_round(result, self.figures_of(result.table_id)))

    def take(self, result: PatternRound) -> list[PatternFinding]:
        """The findings the round completes."""
        config = self._configs.get(result.table_id)
        if config is None:
            return []
        hold = result.hold
        if hold is None:
            return []
        settings = config.patterns
        shift = self._shift(result, settings)
        z = max(-settings.hold_clip, min(settings.hold_clip, hold.z))
        k = settings.hold_cusum_k
        shift.upper = max(0.0, shift.upper + z - k)
        shift.lower = max(0.0, shift.lower - z - k)
        shift.rounds += 1
        shift.won += hold.won
        shift.expected += hold.expected
        shift.variance += hold.variance
        self._n += 1
        key = (result.table_id, result.round_id)
        _keep(shift.high, (z, -self._n, key))
        _keep(shift.low, (-z, -self._n, key))
        out = []
        for side, value, heaviest in (
            ("above", shift.upper, shift.high),
            ("below", shift.lower, shift.low),
        ):
            if value > settings.hold_cusum_h and side not in shift.reported:
                shift.reported.add(side)
                out.append(self._finding(result, config, shift, side, value, heaviest))
        return out

    def save(self) -> bytes:
        """The fold's state, as bytes :meth:`load` reads."""
        return _ENCODER.encode(_State(self._n, self._shifts))

    def load(self, data: bytes) -> None:
        """Take the state :meth:`save` gave."""
        state = _STATE.decode(data)
        self._n, self._shifts = state.n, state.shifts

    def _shift(self, result: PatternRound, settings: PatternSettings) -> _Shift:
        start_ms = ts_to_ms(result.start_ts)
        index = (start_ms - settings.shift_start_hour * HOUR_MS) // (settings.shift_hours * HOUR_MS)
        shift = self._shifts.get(result.table_id)
        if shift is None or shift.index != index:
            begins = index * settings.shift_hours * HOUR_MS + settings.shift_start_hour * HOUR_MS
            shift = self._shifts[result.table_id] = _Shift(index, ms_to_ts(begins))
        return shift

    def _finding(
        self,
        result: PatternRound,
        config: TableConfig,
        shift: _Shift,
        side: str,
        value: float,
        heaviest: list[tuple[float, int, RoundKey]],
    ) -> PatternFinding:
        settings = config.patterns
        se = math.sqrt(shift.variance)
        evidence = tuple(key for _, _, key in sorted(heaviest, reverse=True))
        return PatternFinding(
            check=CHECK,
            unit=result.table_id,
            table_id=result.table_id,
            message=(
                f"{result.table_id} held {side} its band in the shift from {shift.first_ts}: "
                f"the house won {dollars(shift.won)} against {dollars(round(shift.expected))} "
                f"the edge expects (standard error {dollars(round(se))}) over "
                f"{shift.rounds:,} rounds"
            ),
            statistic_name=f"{STATISTIC} ({side})",
            statistic=value,
            threshold=settings.hold_cusum_h,
            false_alarm_rate=false_alarm_text(settings),
            evidence=evidence,
            first_ts=shift.first_ts,
            last_ts=result.start_ts,
        )


_ENCODER = msgspec.msgpack.Encoder()


class _State(msgspec.Struct):
    n: int
    shifts: dict[str, _Shift]


_STATE = msgspec.msgpack.Decoder(_State)


def _keep(heap: list[tuple[float, int, RoundKey]], item: tuple[float, int, RoundKey]) -> None:
    """The heaviest rounds so far, at most :data:`EVIDENCE_ROUNDS` of them."""
    if len(heap) < EVIDENCE_ROUNDS:
        heapq.heappush(heap, item)
    elif item > heap[0]:
        heapq.heapreplace(heap, item)
