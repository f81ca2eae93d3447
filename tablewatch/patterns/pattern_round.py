"""What the pattern folds read of a judged round, taken once: a small record, not the round.

A judged round (:class:`~tablewatch.rules.round_result.RoundResult`) holds its events,
its view and its settlement: tens of kilobytes. The folds of this package read a few
figures of it: who decided what and what each decision was worth, the house's win
against what the edge expects, the progressive wagers and meter readings, the round's
finding codes, which seat each player sat in and what the dealer paid short of or over
what was owed. :func:`pattern_round` takes them once (valuing the decisions, the costly
part), into a :class:`PatternRound` of 3 to 6 KB (about 600 bytes a valued decision;
docs/replay.md, "Patterns"), so that:

- every fold reads the same figures, computed once a round;
- the companion can hold the rounds it waits to put in order, and save them with its
  state (:mod:`tablewatch.patterns.companion`): a :class:`PatternRound` is a msgspec
  Struct, encoded as it is;
- a replay can hold a floor's rounds while it puts them in the same order as live.

Pure: no I/O, no clock.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import Final

import msgspec

from tablewatch.patterns.house_win import actual_win, owed_win
from tablewatch.rules.checks.catalog import PATTERN_CHECKS
from tablewatch.rules.events import Wager, ts_to_ms
from tablewatch.rules.game_rules import DecisionValue
from tablewatch.rules.round_result import RoundResult
from tablewatch.rules.table_config import TableConfig

Figure = tuple[float, float]  # (house edge, standard deviation) per unit
NO_FIGURES: Final[Mapping[str, Figure]] = {}


class RoundHold(msgspec.Struct, frozen=True):
    """One round's house win on its priced wagers against what the edge expects of its
    stakes (cents; the variance in cents squared)."""

    won: int
    expected: float
    variance: float

    @property
    def z(self) -> float:
        return (self.won - self.expected) / math.sqrt(self.variance)


class Decision(msgspec.Struct, frozen=True):
    """One valued decision and the unit that made it."""

    unit: str
    value: DecisionValue


class PatternRound(msgspec.Struct, frozen=True):
    """What the folds read of one judged round (see the module's docstring).

    ``decisions``: the round's valued decisions (none when the game values none, the
    round was voided or a card was exposed to every player); ``false_alarm_hours``: the
    table's ``patterns.advantage_false_alarm_hours``; ``hold``: None when no priced hand
    settled; ``units``: each seat that wagered -> its unit (the player's tracking-card id,
    else ``table:dealer:seat``); ``short``: per seat, the cents the house's win fell short of
    what was owed (a money error in the player's favour), seats with none left out;
    ``meter``: the progressive meter read with the round; ``progressive``: the amounts
    of its progressive wagers; ``meter_paid``: the meter at each progressive win paid.
    """

    table_id: str
    round_id: str
    start_event_id: str
    start_ts: str
    end_ts: str
    dealer_id: str | None
    voided: bool
    codes: tuple[str, ...]
    decisions: tuple[Decision, ...] = ()
    false_alarm_hours: int = 10_000
    hold: RoundHold | None = None
    units: dict[int, str] = msgspec.field(default_factory=dict)
    short: tuple[tuple[int, int], ...] = ()
    meter: int | None = None
    progressive: tuple[int, ...] = ()
    meter_paid: tuple[int, ...] = ()

    @property
    def key(self) -> tuple[int, str, str, str]:
        """Its place in the order the folds read rounds: end time, table, round, start."""
        return (ts_to_ms(self.end_ts), self.table_id, self.round_id, self.start_event_id)


def pattern_round(result: RoundResult, figures: Mapping[str, Figure] = NO_FIGURES) -> PatternRound:
    """The figures the folds read of ``result`` (``figures``: the table's house edge and
    standard deviation per priced wager, for the hold; none: no hold)."""
    ctx = result._context
    config = ctx.config
    dealer = result.dealer_id or "-"
    units = _units(result, dealer)
    return PatternRound(
        table_id=result.table_id,
        round_id=result.round_id,
        start_event_id=result.start_event_id,
        start_ts=result.start_ts,
        end_ts=result.end_ts,
        dealer_id=result.dealer_id,
        voided=result.voided,
        codes=tuple(sorted({f.check for f in result.findings if f.check not in PATTERN_CHECKS})),
        decisions=_decisions(result),
        false_alarm_hours=config.patterns.advantage_false_alarm_hours,
        hold=round_hold(result, figures),
        units=units,
        short=_short(result, config),
        meter=ctx.rnd.meter,
        progressive=_progressive(result, config),
        meter_paid=tuple(
            s.meter for s in ctx.rnd.settles if s.meter is not None and s.result == "win"
        ),
    )


def _decisions(result: RoundResult) -> tuple[Decision, ...]:
    ctx = result._context
    values = ctx.config.rules.decision_values
    if values is None or result.voided or ctx.rnd.exposures:
        return ()
    return tuple(
        Decision(unit_of(result, value.seat), value) for value in values.value(ctx.view, ctx.config)
    )


def unit_of(result: RoundResult, seat: int) -> str:
    """The seat's player id (its first wager's that carries one), else table:dealer:seat."""
    for event in result._context.rnd.wager_events:
        if type(event) is Wager and event.seat == seat and event.player_id is not None:
            return event.player_id
    return f"{result.table_id}:{result.dealer_id or '-'}:{seat}"


def _units(result: RoundResult, dealer: str) -> dict[int, str]:
    """Each seat that wagered in the round -> its unit: the player's tracking-card id,
    else ``table:dealer:seat``."""
    ctx = result._context
    units: dict[int, str] = {}
    for event in ctx.rnd.wager_events:
        if isinstance(event, Wager) and event.player_id is not None:
            units.setdefault(event.seat, event.player_id)
    for seat, _ in ctx.view.wagers:
        units.setdefault(seat, f"{result.table_id}:{dealer}:{seat}")
    return units


def _short(result: RoundResult, config: TableConfig) -> tuple[tuple[int, int], ...]:
    kept = {bet for hold in config.rules.hold for bet in hold.kept}
    short: Counter[int] = Counter()
    for line in result.settlements:
        owed = owed_win(line, line.bet in kept)
        if owed is None or line.actual_result is None:
            continue
        cents = owed - actual_win(line, line.bet in kept)
        if cents > 0:
            short[line.seat] += cents
    return tuple(sorted(short.items()))


def _progressive(result: RoundResult, config: TableConfig) -> tuple[int, ...]:
    if not config.progressive_rate:
        return ()
    bets = progressive_bets(config)
    return tuple(w.amount for (_, bet), w in result._context.view.wagers.items() if bet in bets)


def progressive_bets(config: TableConfig) -> frozenset[str]:
    """The bets of the slot the game's progressive reset names (the meter's wagers)."""
    slot = config.rules.configuration.progressive_reset.slot
    return frozenset(w.bet for w in config.rules.wagers if w.slot == slot)


def round_hold(result: RoundResult, figures: Mapping[str, Figure]) -> RoundHold | None:
    """The round's house win on its priced wagers and what the figures expect (None: no
    priced hand settled, or the round voided)."""
    if result.voided or not figures:
        return None
    lines = result.settlements
    won = 0
    expected = 0.0
    variance = 0.0
    for hold in result._context.config.rules.hold:
        figure = figures.get(hold.wager)
        if figure is None:
            continue
        edge, std = figure
        counted = {
            line.seat: line.stake
            for line in lines
            if line.bet == hold.unit and line.actual_result in ("win", "lose", "push")
        }
        for line in lines:
            if line.seat in counted and line.bet in hold.bets:
                won += actual_win(line, line.bet in hold.kept)
        units = sum(counted.values())
        expected += edge * units
        variance += std * std * sum(u * u for u in counted.values())
    if variance <= 0:
        return None
    return RoundHold(won, expected, variance)
