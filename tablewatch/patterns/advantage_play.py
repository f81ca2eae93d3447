"""ADVANTAGE_PLAY_SUSPECTED: a player whose decisions track the dealer's first card.

A sequential likelihood-ratio test per unit (the player's tracking-card id when
his wagers carry one, else ``table:dealer:seat``, the seat within one dealer's
down). Each decision the game values (its descriptor's ``decision_values``)
multiplies the unit's likelihood ratio by

    P(the dealer's first card | the option taken, what the player saw; he sees it)
    ---------------------------------------------------------------------------
    P(the dealer's first card | the option taken, what the player saw; he does not)

The alternative: with probability ``sees`` (p) the player saw the dealer's
first card and took the option best with it known; otherwise he played the
game's known strategy, erring with probability ``error_rate`` (ε). The
increment of a decision whose option is ``a`` (the strategy's own ``s`` or
another), ``b`` the option best with the dealer's actual first card known and
``q`` the share of the first cards the dealer could hold for which ``a`` is
best, is

    log[(p·[a = b] + (1 - p)·σ) / (p·q + (1 - p)·σ)],  σ = 1 - ε if a = s, else ε / (k - 1)

(k options). Where the option taken is best whatever the first card (q = 1)
the increment is 0: only decisions where seeing the card could change the play
weigh. The statistic is the log of the mean of the likelihood ratios of a few
alternatives (:data:`ALTERNATIVES`: ε = 2%, a player close to the known
strategy, and ε = 25%, a player whose own strategy differs from it), so that a
hole-carder who does not play the known strategy when he does not see is found
too.

The null hypothesis is that the decision does not depend on the dealer's first
card given what the player saw, whatever the player's own strategy (the known
one, another, mistakes): the first card is then uniform over the cards the
player did not see, so each increment's exponential has mean exactly 1 (for
any p and σ), the likelihood ratio of each alternative and their mean are
martingales of mean 1, and by Ville's inequality an honest unit ever reaches
the threshold ``h`` with probability at most e^-h, however long it plays. ``h``
is the log of the deciding table's ``patterns.advantage_false_alarm_units``
(rules/config_patterns.py): at the default ln(20,000), at most one honest unit
in 20,000 is ever
flagged: at most one per 10,000 player-hours while the units average half an
hour of play or more. The finding names the rounds whose decisions weighed
most (the largest increments). After a finding the unit's statistic starts
again from 0.

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
from tablewatch.rules.game_rules import DecisionValue
from tablewatch.rules.round_result import RoundResult

CHECK: Final = "ADVANTAGE_PLAY_SUSPECTED"
STATISTIC: Final = "log-likelihood ratio"
# (sees, error_rate) of the alternatives whose likelihood ratios are averaged
ALTERNATIVES: Final = ((0.5, 0.02), (0.5, 0.25))
DEFAULT_THRESHOLD: Final = math.log(DEFAULT_PATTERNS.advantage_false_alarm_units)
EVIDENCE_ROUNDS: Final = 5


@dataclass(frozen=True, slots=True)
class Settings:
    """The test's parameters: the alternatives (each ``(sees, error_rate)``: p and ε), the
    ``threshold`` on the log of their mean likelihood ratio (None: the log of the deciding
    table's ``patterns.advantage_false_alarm_units``), the rounds named as evidence."""

    alternatives: tuple[tuple[float, float], ...] = ALTERNATIVES
    threshold: float | None = None
    evidence: int = EVIDENCE_ROUNDS

    def __post_init__(self) -> None:
        if not self.alternatives:
            raise ValueError("advantage play: alternatives: none given")
        for sees, error_rate in self.alternatives:
            if not 0 < sees < 1:
                raise ValueError(f"advantage play: alternatives: sees {sees:g} is not in (0, 1)")
            if not 0 < error_rate < 1:
                raise ValueError(
                    f"advantage play: alternatives: error_rate {error_rate:g} is not in (0, 1)"
                )
        if self.threshold is not None and not self.threshold > 0:
            raise ValueError(f"advantage play: threshold {self.threshold:g} is not above 0")


def false_alarm_rate(threshold: float) -> str:
    """What ``threshold`` was set for (Ville's bound, e^-threshold per unit)."""
    return f"at most 1 honest unit in {math.exp(threshold):,.0f}"


def increment(value: DecisionValue, sees: float, error_rate: float) -> float:
    """The log-likelihood ratio one decision adds under one alternative (see the module's
    docstring)."""
    taken = value.options.index(value.taken)
    others = len(value.options) - 1
    sigma = 1.0 - error_rate if value.taken == value.strategy else error_rate / others
    matched = 1.0 if value.taken == value.best_first else 0.0
    chance = value.chance_best[taken]
    return math.log(
        (sees * matched + (1.0 - sees) * sigma) / (sees * chance + (1.0 - sees) * sigma)
    )


def round_increment(values: Sequence[DecisionValue], sees: float, error_rate: float) -> float:
    """The log-likelihood ratio one round's decisions of a unit add under one alternative:
    one decision's :func:`increment`; several (a game's decisions on several streets, two
    seats of one player) the log of the mean of their factors. Each factor has mean 1 for an
    honest player, but all of a round's rest on the same first card, so their product need
    not (measured: 1.02 for a hand checked before the flop and played on it); their mean
    has mean 1 exactly, and the test's bound holds."""
    if len(values) == 1:
        return increment(values[0], sees, error_rate)
    factors = [math.exp(increment(value, sees, error_rate)) for value in values]
    return math.log(sum(factors) / len(factors))


def mixture(llrs: list[float]) -> float:
    """The log of the mean of the likelihood ratios whose logs are ``llrs``."""
    top = max(llrs)
    return top + math.log(sum(math.exp(x - top) for x in llrs) / len(llrs))


@dataclass(slots=True)
class UnitState:
    """One unit's statistic so far."""

    llrs: list[float] = field(default_factory=list)  # one per alternative
    llr: float = 0.0  # the statistic: the log of their mean likelihood ratio
    decisions: int = 0
    against_strategy: int = 0
    first_ts: str = ""
    last_ts: str = ""
    tables: set[str] = field(default_factory=set)
    seat: int | None = None
    heaviest: list[tuple[float, str, str]] = field(default_factory=list)  # a min-heap


_ENCODER = msgspec.msgpack.Encoder()
_UNITS = msgspec.msgpack.Decoder(dict[str, UnitState])


class AdvantagePlay:
    """The fold: ``feed(result)`` for each judged round in order, the findings it makes."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.units: dict[str, UnitState] = {}

    def feed(self, result: RoundResult) -> list[PatternFinding]:
        """:meth:`take` of the round's figures."""
        return self.take(pattern_round(result))

    def take(self, rnd: PatternRound) -> list[PatternFinding]:
        """The findings the round's decisions complete (none valued: none)."""
        if not rnd.decisions:
            return []
        found: list[PatternFinding] = []
        threshold = self.settings.threshold
        if threshold is None:
            threshold = math.log(rnd.false_alarm_units)
        where = (rnd.table_id, rnd.round_id, rnd.start_ts, rnd.end_ts)
        by_unit: dict[str, list[DecisionValue]] = {}
        for decision in rnd.decisions:
            by_unit.setdefault(decision.unit, []).append(decision.value)
        for unit, values in by_unit.items():
            finding = self.observe_round(unit, values, *where, threshold)
            if finding is not None:
                found.append(finding)
        return found

    def save(self) -> bytes:
        """The fold's state, as bytes :meth:`load` reads."""
        return _ENCODER.encode(self.units)

    def load(self, data: bytes) -> None:
        """Take the state :meth:`save` gave."""
        self.units = _UNITS.decode(data)

    def observe(
        self,
        unit: str,
        value: DecisionValue,
        table_id: str,
        round_id: str,
        start_ts: str,
        end_ts: str,
        threshold: float | None = None,
    ) -> PatternFinding | None:
        """Add one decision of ``unit`` (made in round ``round_id`` of ``table_id``); the
        finding when its statistic reaches the threshold (``threshold``, else the settings',
        else the default's)."""
        return self.observe_round(unit, (value,), table_id, round_id, start_ts, end_ts, threshold)

    def observe_round(
        self,
        unit: str,
        values: Sequence[DecisionValue],
        table_id: str,
        round_id: str,
        start_ts: str,
        end_ts: str,
        threshold: float | None = None,
    ) -> PatternFinding | None:
        """Add the decisions ``unit`` made in one round (see :func:`round_increment`); the
        finding when its statistic reaches the threshold (as :meth:`observe`)."""
        settings = self.settings
        if threshold is None:
            threshold = settings.threshold if settings.threshold is not None else DEFAULT_THRESHOLD
        state = self.units.get(unit)
        if state is None:
            state = self.units[unit] = UnitState(first_ts=start_ts)
        if not state.llrs:
            state.llrs = [0.0] * len(settings.alternatives)
        for k, (sees, error_rate) in enumerate(settings.alternatives):
            state.llrs[k] += round_increment(values, sees, error_rate)
        statistic = mixture(state.llrs)
        step = statistic - state.llr
        state.llr = statistic
        state.decisions += len(values)
        for value in values:
            state.against_strategy += value.taken != value.strategy
            state.seat = value.seat if state.seat in (None, value.seat) else None
        state.last_ts = end_ts
        state.tables.add(table_id)
        entry = (step, table_id, round_id)
        if len(state.heaviest) < settings.evidence:
            heapq.heappush(state.heaviest, entry)
        elif step > state.heaviest[0][0]:
            heapq.heapreplace(state.heaviest, entry)
        if state.llr < threshold:
            return None
        self.units[unit] = UnitState(first_ts=end_ts)
        return self._finding(unit, state, threshold)

    def _finding(self, unit: str, state: UnitState, threshold: float) -> PatternFinding:
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
            false_alarm_rate=false_alarm_rate(threshold),
            evidence=evidence,
            first_ts=state.first_ts,
            last_ts=state.last_ts,
            seat=state.seat,
        )
