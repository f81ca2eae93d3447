"""ADVANTAGE_PLAY_SUSPECTED: a player whose decisions track the dealer's first card.

A sequential likelihood-ratio test per unit (the player's tracking-card id when
his wagers carry one, else ``table:dealer:seat``, the seat within one dealer's
down). Each decision the game values (its descriptor's ``decision_values``)
multiplies the unit's likelihood ratio by

    P(the dealer's first card | the option taken, what the player saw; he sees it)
    ---------------------------------------------------------------------------
    P(the dealer's first card | the option taken, what the player saw; he does not)

The alternative: with probability ``sees`` (p) the player saw the dealer's
first card and took the option best with it known; otherwise he played his own
strategy, which takes option ``a`` with probability σ. The increment of a decision
whose option is ``a``, ``b`` the option best with the dealer's actual first card
known and ``q`` the share of the first cards the dealer could hold for which ``a``
is best, is

    log[(p·[a = b] + (1 - p)·σ) / (p·q + (1 - p)·σ)]

Where the option taken is best whatever the first card (q = 1) the increment is 0:
only decisions where seeing the card could change the play weigh.

His own strategy (σ) is learnt from his decisions so far (:func:`own_share`,
:func:`learn_own`): per class of decisions (the decision's point and the class of
hand the game names, "pair (T)", in which players' strategies are written; a game
naming none: the known strategy's option there), the share of his decisions there
that took ``a``, from a prior worth :data:`FLOOR_WEIGHT` (2) of his decisions: the
floor's share, every unit's decisions of the class so far (the known strategy's option
given 1 decision more and each option 0.1 more, the whole prior before the floor has
any). A share stays within 1% of 0 and 1. Players of one floor mostly play alike
(a basic strategy, a rule of thumb), so a newcomer is first judged against how the
floor plays, then against how he does. Each decision counts by the
chance, under the alternative, that his own strategy chose it rather than the card:
``(1 - p)·σ / (p·[a = b] + (1 - p)·σ)``. A decision against the best of the card he
could have seen counts 1; one the card explains counts little, so his looks are not
learnt as his strategy and keep their weight. A hole-carder who, when he does not
see, plays his own way (folding what the known strategy plays) is judged against his
own way, not against the known strategy's, where every such fold would look like a
mistake and his looks would weigh less. His table lives with the unit's state; a
finding starts the statistic and the clock again but keeps it. The floor's table counts
each decision as his does, once every unit of its round has been read, so that no σ of a
round rests, through another unit's decision, on the round's own first card.

The statistic is the log of a weighted mean of the likelihood ratios of two
alternatives (:data:`ALTERNATIVES`): the learnt one, weighed 0.9, and one where σ is
the known strategy's with an error of ε = 25% (1 - ε on its option, ε shared by the
others), weighed 0.1, for a player whose play is too erratic to learn in a few
hundred decisions (:data:`WEIGHTS`). The weights are a choice of where the power goes;
any weights summing to 1 keep the bound below.

The null hypothesis is that the decision does not depend on the dealer's first
card given what the player saw, whatever the player's own strategy (the known
one, another, mistakes): the first card is then uniform over the cards the
player did not see, so each increment's exponential has mean exactly 1 (for
any p and any σ fixed before the card is known, as the learnt one is: from earlier
rounds only, his and the floor's), the likelihood ratio of each alternative and any
weighted mean of them are martingales of mean 1, and by Ville's inequality an honest
unit's statistic ever reaches ``ln c`` with probability at most 1/c, however long it
plays.

The false-alarm rate is stated per player-hour: ``H``, the deciding table's
``patterns.advantage_false_alarm_hours`` (rules/config_patterns.py, default 10,000),
the honest player-hours per false finding at most. A unit's threshold falls as it
plays: with T its hours of play (its rounds' durations and the gaps between them, a gap
counted up to :data:`GAP_MS`), it is ``ln(H / max(T, ¼ h))`` (:func:`threshold_after`;
:data:`FLOOR_HOURS`). It never rises, so an honest unit that plays T hours in all is
flagged only if its statistic reaches, at some point, at least its last threshold,
``ln(H / max(T, ¼ h))``: by Ville's inequality with probability at most
``max(T, ¼ h) / H``. That is at most one false finding per ``H`` player-hours, whatever
the units' lengths (those under a quarter hour counted as a quarter hour). At the
default the threshold is ln 40,000 = 10.60 in a unit's first quarter hour, ln 10,000 =
9.21 after an hour, ln 5,000 = 8.52 after two, ln 2,500 = 7.82 after four. (The bound
takes a unit's hours of play as not chosen by its statistic, which a player cannot
compute: it needs every decision's values against the dealer's cards.)

The finding names the rounds whose decisions weighed most (the largest increments).
After a finding the unit's statistic and clock start again from 0.

Rounds voided, or with a card exposed (every player could see it), are not read.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

import msgspec

from tablewatch.patterns.finding import PatternFinding, RoundKey
from tablewatch.patterns.pattern_round import PatternRound, pattern_round
from tablewatch.rules.config_patterns import DEFAULT_PATTERNS
from tablewatch.rules.events import ts_to_ms
from tablewatch.rules.game_rules import DecisionValue
from tablewatch.rules.round_result import RoundResult

CHECK: Final = "ADVANTAGE_PLAY_SUSPECTED"
STATISTIC: Final = "log-likelihood ratio"
# (sees, error_rate) of the alternatives whose likelihood ratios are averaged; an error
# rate of None: the player's own strategy, learnt from his decisions (own_share, learn_own)
ALTERNATIVES: Final[tuple[tuple[float, float | None], ...]] = ((0.5, None), (0.5, 0.25))
WEIGHTS: Final = (0.9, 0.1)  # of the alternatives' likelihood ratios in their mean
OWN_PRIOR: Final = 0.1  # pseudo-decisions on each option of a class the floor has not seen
OWN_STRATEGY_PRIOR: Final = 1.0  # and on the known strategy's option
FLOOR_WEIGHT: Final = 2.0  # the floor's shares count as this many of a player's decisions
OWN_FLOOR: Final = 0.01  # the least (and 1 less the most) share learnt for an option
FLOOR_HOURS: Final = 0.25  # the least play a unit's threshold counts it for, in hours
GAP_MS: Final = 5 * 60_000  # a gap between a unit's rounds counts as play up to this
HOUR_MS: Final = 3_600_000
EVIDENCE_ROUNDS: Final = 5


@dataclass(frozen=True, slots=True)
class Settings:
    """The test's parameters: the alternatives (each ``(sees, error_rate)``: p and ε) and
    their ``weights`` (summing to 1), a fixed ``threshold`` on the log of their weighted
    mean likelihood ratio (None: :func:`threshold_after` the unit's hours of play, for the
    deciding table's ``patterns.advantage_false_alarm_hours``), the rounds named as
    evidence."""

    alternatives: tuple[tuple[float, float | None], ...] = ALTERNATIVES
    weights: tuple[float, ...] = WEIGHTS
    threshold: float | None = None
    evidence: int = EVIDENCE_ROUNDS

    def __post_init__(self) -> None:
        if not self.alternatives:
            raise ValueError("advantage play: alternatives: none given")
        for sees, error_rate in self.alternatives:
            if not 0 < sees < 1:
                raise ValueError(f"advantage play: alternatives: sees {sees:g} is not in (0, 1)")
            if error_rate is not None and not 0 < error_rate < 1:
                raise ValueError(
                    f"advantage play: alternatives: error_rate {error_rate:g} is not in (0, 1)"
                )
        if sum(error_rate is None for _, error_rate in self.alternatives) > 1:
            raise ValueError("advantage play: alternatives: more than one learns his strategy")
        if len(self.weights) != len(self.alternatives):
            raise ValueError(
                f"advantage play: weights: {len(self.weights)} for "
                f"{len(self.alternatives)} alternatives"
            )
        if not all(w > 0 for w in self.weights) or not math.isclose(sum(self.weights), 1.0):
            raise ValueError(
                f"advantage play: weights: {self.weights} are not positive summing to 1"
            )
        if self.threshold is not None and not self.threshold > 0:
            raise ValueError(f"advantage play: threshold {self.threshold:g} is not above 0")


def threshold_after(hours: float, false_alarm_hours: float) -> float:
    """The threshold of a unit that has played ``hours``, for at most one false finding per
    ``false_alarm_hours`` honest player-hours (see the module's docstring): ln(H / T), T the
    hours of play and at least :data:`FLOOR_HOURS`."""
    return math.log(false_alarm_hours / max(hours, FLOOR_HOURS))


def false_alarm_rate(threshold: float, false_alarm_hours: float | None, hours: float) -> str:
    """What ``threshold`` was set for: the rate per player-hour and the unit's hours of play
    (None: a fixed threshold, Ville's bound e^-threshold per unit)."""
    if false_alarm_hours is None:
        return f"at most 1 honest unit in {math.exp(threshold):,.0f}"
    return (
        f"at most 1 per {false_alarm_hours:,.0f} honest player-hours "
        f"(the threshold after {hours:.1f} h of play)"
    )


OwnCounts = dict[str, dict[str, float]]  # a class of decisions -> option -> decisions
Learnt = tuple[Sequence[DecisionValue], list[float]]  # a unit's decisions of a round, weighed


def own_class(value: DecisionValue) -> str:
    """The class of decisions a player's own strategy is learnt in: the decision's point and
    the game's class of his hand, else the known strategy's option there."""
    return f"{value.point}: {value.hand_class or 'the strategy says ' + value.strategy}"


def _share(value: DecisionValue, counts: dict[str, float]) -> float:
    """The share of ``counts`` on ``value``'s option, each option given :data:`OWN_PRIOR` more
    and the known strategy's :data:`OWN_STRATEGY_PRIOR` more."""
    strategy = OWN_STRATEGY_PRIOR if value.taken == value.strategy else 0.0
    return (counts.get(value.taken, 0.0) + OWN_PRIOR + strategy) / (
        sum(counts.values()) + OWN_PRIOR * len(value.options) + OWN_STRATEGY_PRIOR
    )


def own_share(value: DecisionValue, own: OwnCounts | None, floor: OwnCounts | None = None) -> float:
    """The share of his decisions of ``value``'s class that took its option, as learnt so far
    (``own``), from a prior of :data:`FLOOR_WEIGHT` decisions shared as the floor's decisions
    of the class so far (``floor``: every player's, each option given :data:`OWN_PRIOR` more
    and the known strategy's :data:`OWN_STRATEGY_PRIOR` more), kept within :data:`OWN_FLOOR`
    of 0 and 1."""
    key = own_class(value)
    counts = own.get(key, {}) if own else {}
    prior = _share(value, floor.get(key, {}) if floor else {})
    share = (counts.get(value.taken, 0.0) + FLOOR_WEIGHT * prior) / (
        sum(counts.values()) + FLOOR_WEIGHT
    )
    return min(max(share, OWN_FLOOR), 1.0 - OWN_FLOOR)


def increment(
    value: DecisionValue,
    sees: float,
    error_rate: float | None,
    own: OwnCounts | None = None,
    floor: OwnCounts | None = None,
) -> float:
    """The log-likelihood ratio one decision adds under one alternative (see the module's
    docstring; ``error_rate`` None: σ is :func:`own_share` of ``own`` and ``floor``)."""
    taken = value.options.index(value.taken)
    if error_rate is None:
        sigma = own_share(value, own, floor)
    else:
        others = len(value.options) - 1
        sigma = 1.0 - error_rate if value.taken == value.strategy else error_rate / others
    matched = 1.0 if value.taken == value.best_first else 0.0
    chance = value.chance_best[taken]
    return math.log(
        (sees * matched + (1.0 - sees) * sigma) / (sees * chance + (1.0 - sees) * sigma)
    )


def round_increment(
    values: Sequence[DecisionValue],
    sees: float,
    error_rate: float | None,
    own: OwnCounts | None = None,
    floor: OwnCounts | None = None,
) -> float:
    """The log-likelihood ratio one round's decisions of a unit add under one alternative:
    one decision's :func:`increment`; several (a game's decisions on several streets, two
    seats of one player) the log of the mean of their factors. Each factor has mean 1 for an
    honest player, but all of a round's rest on the same first card, so their product need
    not (measured: 1.02 for a hand checked before the flop and played on it); their mean
    has mean 1 exactly, and the test's bound holds."""
    if len(values) == 1:
        return increment(values[0], sees, error_rate, own, floor)
    factors = [math.exp(increment(value, sees, error_rate, own, floor)) for value in values]
    return math.log(sum(factors) / len(factors))


def learn_own(
    own: OwnCounts, values: Sequence[DecisionValue], sees: float, floor: OwnCounts | None = None
) -> list[float]:
    """Count a round's decisions in ``own``, each weighed by the chance, under the
    alternative that learns, that he did not see the first card (his own strategy then
    chose it): ``(1 - p)·σ / (p·[a = b] + (1 - p)·σ)``, σ its :func:`own_share` before the
    round. A decision against every first card's best is his own strategy's (weight 1);
    one that the card he could have seen explains counts for less, so a hole-carder's
    looks are not learnt as his strategy. The weights, for :func:`count` in the floor's
    table once the round's every unit has been read."""
    weights = []
    for value in values:
        sigma = own_share(value, own, floor)
        matched = 1.0 if value.taken == value.best_first else 0.0
        weights.append((1.0 - sees) * sigma / (sees * matched + (1.0 - sees) * sigma))
    count(own, values, weights)
    return weights


def count(table: OwnCounts, values: Sequence[DecisionValue], weights: Sequence[float]) -> None:
    """Add each decision of ``values``, by its weight, to its class's option in ``table``."""
    for value, weight in zip(values, weights, strict=True):
        counts = table.setdefault(own_class(value), {})
        counts[value.taken] = counts.get(value.taken, 0.0) + weight


def mixture(llrs: Sequence[float], weights: Sequence[float]) -> float:
    """The log of the mean, weighted by ``weights``, of the likelihood ratios whose logs are
    ``llrs``."""
    top = max(llrs)
    return top + math.log(sum(w * math.exp(x - top) for x, w in zip(llrs, weights, strict=True)))


@dataclass(slots=True)
class UnitState:
    """One unit's statistic so far."""

    llrs: list[float] = field(default_factory=list)  # one per alternative
    llr: float = 0.0  # the statistic: the log of their weighted mean likelihood ratio
    decisions: int = 0
    against_strategy: int = 0
    played_ms: int = 0  # its hours of play, in ms (see the module's docstring)
    last_end_ms: int | None = None
    first_ts: str = ""
    last_ts: str = ""
    tables: set[str] = field(default_factory=set)
    seat: int | None = None
    heaviest: list[tuple[float, str, str]] = field(default_factory=list)  # a min-heap
    own: OwnCounts = field(default_factory=dict)  # his own strategy, learnt (learn_own)


class _Saved(msgspec.Struct, array_like=True):
    """The fold's state as saved: its units and the floor's table."""

    units: dict[str, UnitState]
    floor: OwnCounts


_ENCODER = msgspec.msgpack.Encoder()
_SAVED = msgspec.msgpack.Decoder(_Saved)
_UNITS = msgspec.msgpack.Decoder(dict[str, UnitState])  # saved before the floor's table


class AdvantagePlay:
    """The fold: ``feed(result)`` for each judged round in order, the findings it makes."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.units: dict[str, UnitState] = {}
        # every unit's decisions, the prior of a player's own: the sum of the units' tables,
        # kept as it was added round by round and saved, not summed again on load, so that a
        # fold restored from its state reads the very floats one that ran on would
        self.floor: OwnCounts = {}

    def feed(self, result: RoundResult) -> list[PatternFinding]:
        """:meth:`take` of the round's figures."""
        return self.take(pattern_round(result))

    def take(self, rnd: PatternRound) -> list[PatternFinding]:
        """The findings the round's decisions complete (none valued: none)."""
        if not rnd.decisions:
            return []
        found: list[PatternFinding] = []
        where = (rnd.table_id, rnd.round_id, rnd.start_ts, rnd.end_ts)
        by_unit: dict[str, list[DecisionValue]] = {}
        for decision in rnd.decisions:
            by_unit.setdefault(decision.unit, []).append(decision.value)
        learnt: list[Learnt] = []
        for unit, values in by_unit.items():
            finding = self.observe_round(unit, values, *where, rnd.false_alarm_hours, learnt)
            if finding is not None:
                found.append(finding)
        self._learn_floor(learnt)
        return found

    def save(self) -> bytes:
        """The fold's state, as bytes :meth:`load` reads."""
        return _ENCODER.encode(_Saved(self.units, self.floor))

    def load(self, data: bytes) -> None:
        """Take the state :meth:`save` gave (one saved as its units alone: an empty floor's
        table)."""
        try:
            saved = _SAVED.decode(data)
        except msgspec.ValidationError:
            self.units, self.floor = _UNITS.decode(data), {}
        else:
            self.units, self.floor = saved.units, saved.floor

    def observe(
        self,
        unit: str,
        value: DecisionValue,
        table_id: str,
        round_id: str,
        start_ts: str,
        end_ts: str,
        false_alarm_hours: float | None = None,
    ) -> PatternFinding | None:
        """Add one decision of ``unit`` (made in round ``round_id`` of ``table_id``); the
        finding when its statistic reaches the threshold (the settings' fixed one, else
        :func:`threshold_after` its hours of play for ``false_alarm_hours``, else for the
        default's)."""
        return self.observe_round(
            unit, (value,), table_id, round_id, start_ts, end_ts, false_alarm_hours
        )

    def observe_round(
        self,
        unit: str,
        values: Sequence[DecisionValue],
        table_id: str,
        round_id: str,
        start_ts: str,
        end_ts: str,
        false_alarm_hours: float | None = None,
        learnt: list[Learnt] | None = None,
    ) -> PatternFinding | None:
        """Add the decisions ``unit`` made in one round (see :func:`round_increment`); the
        finding when its statistic reaches the threshold (as :meth:`observe`). ``learnt``
        takes the decisions and their weights for the floor's table, which the caller counts
        once the round's every unit has been read (:meth:`take`); None: the round is the
        unit's alone, and they are counted at once."""
        settings = self.settings
        state = self.units.get(unit)
        if state is None:
            state = self.units[unit] = UnitState(first_ts=start_ts)
        if not state.llrs:
            state.llrs = [0.0] * len(settings.alternatives)
        for k, (sees, error_rate) in enumerate(settings.alternatives):
            state.llrs[k] += round_increment(values, sees, error_rate, state.own, self.floor)
        pending: list[Learnt] = [] if learnt is None else learnt
        for sees, error_rate in settings.alternatives:
            if error_rate is None:
                pending.append((values, learn_own(state.own, values, sees, self.floor)))
        if learnt is None:
            self._learn_floor(pending)
        statistic = mixture(state.llrs, settings.weights)
        step = statistic - state.llr
        state.llr = statistic
        state.decisions += len(values)
        for value in values:
            state.against_strategy += value.taken != value.strategy
            state.seat = value.seat if state.seat in (None, value.seat) else None
        state.last_ts = end_ts
        state.tables.add(table_id)
        start_ms, end_ms = ts_to_ms(start_ts), ts_to_ms(end_ts)
        gap = 0 if state.last_end_ms is None else min(max(0, start_ms - state.last_end_ms), GAP_MS)
        state.played_ms += gap + max(0, end_ms - start_ms)
        state.last_end_ms = end_ms
        hours = state.played_ms / HOUR_MS
        entry = (step, table_id, round_id)
        if len(state.heaviest) < settings.evidence:
            heapq.heappush(state.heaviest, entry)
        elif step > state.heaviest[0][0]:
            heapq.heapreplace(state.heaviest, entry)
        if settings.threshold is not None:
            threshold, per_hours = settings.threshold, None
        else:
            per_hours = false_alarm_hours or DEFAULT_PATTERNS.advantage_false_alarm_hours
            threshold = threshold_after(hours, per_hours)
        if state.llr < threshold:
            return None
        self.units[unit] = UnitState(first_ts=end_ts, own=state.own)
        return self._finding(unit, state, threshold, false_alarm_rate(threshold, per_hours, hours))

    def _learn_floor(self, learnt: Sequence[Learnt]) -> None:
        """Count a round's decisions, as its units learnt them, in the floor's table: after
        every unit of the round has been read, so that no unit's σ rests on the round's
        first card through another's decision."""
        for values, weights in learnt:
            count(self.floor, values, weights)

    def _finding(self, unit: str, state: UnitState, threshold: float, rate: str) -> PatternFinding:
        evidence: tuple[RoundKey, ...] = tuple(
            (table, rnd) for _, table, rnd in sorted(state.heaviest, reverse=True)
        )
        table_id = next(iter(state.tables)) if len(state.tables) == 1 else None
        return PatternFinding(
            check=CHECK,
            unit=unit,
            table_id=table_id,
            message=(
                f"{unit}: decisions track the dealer's first card ({state.decisions} decisions, "
                f"{state.against_strategy} against the known strategy)"
            ),
            statistic_name=STATISTIC,
            statistic=state.llr,
            threshold=threshold,
            false_alarm_rate=rate,
            evidence=evidence,
            first_ts=state.first_ts,
            last_ts=state.last_ts,
            seat=state.seat,
        )
