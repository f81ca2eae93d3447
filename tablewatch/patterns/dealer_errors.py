"""A dealer's errors across rounds: DEALER_ERROR_RATE_HIGH and DEALER_FAVOURS_SEAT.

DEALER_ERROR_RATE_HIGH, per dealer and check: of the ``n`` rounds a dealer dealt,
``x`` carry a finding of the check (a round counts once). The floor's rate is that of
every other dealer's rounds, ``p = (X - x + 1) / (N - n + 1)`` (``X`` of ``N`` rounds in
all; the added one keeps a check no other dealer has erred on from a rate of zero). The
one-sided Poisson test ``P(Poisson(n·p) >= x)`` is taken each time the dealer's count of
the check grows, from ``dealer_min_errors`` on; at or under ``dealer_error_alpha`` it is a
finding (once per dealer and check). Multiple testing: every dealer, every check and
every look is a test at ``alpha``; the chance of any false alarm on a floor is at most
``alpha`` times their number (Bonferroni; the looks are far from independent, so the
real rate is lower: docs/patterns.md gives the rate measured on honest floors).

DEALER_FAVOURS_SEAT, per dealer: a money error in a player's favour is a settle line
on which the house won less than it was owed (an overpayment, a losing wager paid or
pushed); a round counts once per seat. The unit is the player (his wagers' tracking-card
``player_id``) or else ``table:dealer:seat``. When the dealer's ``F`` errors in the
players' favour put ``f`` on one unit that held a share ``π`` of the hands the dealer
dealt, the binomial test ``P(Binomial(F, π) >= f)``, times the number of units the dealer
dealt to (Bonferroni for the unit picked), is taken from ``favours_seat_min_errors``
errors on; at or under ``favours_seat_alpha`` it is a finding (once per dealer and
unit). A dealer erring at random spreads his errors over the seats in proportion to
the hands they play; a dealer working with one player does not.

Rounds with no dealer (no ``round_start``) count in the floor's totals only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final

import msgspec

from tablewatch.finding_money import dollars
from tablewatch.patterns.finding import PatternFinding, RoundKey
from tablewatch.patterns.pattern_round import PatternRound, pattern_round
from tablewatch.rules.round_result import RoundResult
from tablewatch.rules.table_config import TableConfig

RATE_CHECK: Final = "DEALER_ERROR_RATE_HIGH"
FAVOURS_CHECK: Final = "DEALER_FAVOURS_SEAT"
EVIDENCE_ROUNDS: Final = 5


def poisson_tail(x: int, mean: float) -> float:
    """P(X >= x) for X Poisson of ``mean`` (exact sum of the tail's terms)."""
    if x <= 0:
        return 1.0
    if mean <= 0:
        return 0.0
    total = 0.0
    i = x
    log_term = -mean + i * math.log(mean) - math.lgamma(i + 1)
    while True:
        term = math.exp(log_term)
        total += term
        if i > mean and term < total * 1e-16:
            return min(1.0, total)
        i += 1
        log_term += math.log(mean) - math.log(i)


def binomial_tail(x: int, n: int, share: float) -> float:
    """P(X >= x) for X binomial of ``n`` trials of probability ``share``."""
    if x <= 0:
        return 1.0
    if x > n or share <= 0:
        return 0.0
    if share >= 1:
        return 1.0
    log_p, log_q = math.log(share), math.log1p(-share)
    total = 0.0
    for i in range(x, n + 1):
        total += math.exp(
            math.lgamma(n + 1)
            - math.lgamma(i + 1)
            - math.lgamma(n - i + 1)
            + i * log_p
            + (n - i) * log_q
        )
    return min(1.0, total)


@dataclass(slots=True)
class _Dealer:
    first_ts: str
    rounds: int = 0
    by_check: dict[str, int] = field(default_factory=dict)
    check_rounds: dict[str, list[RoundKey]] = field(default_factory=dict)  # newest last
    hands: dict[str, int] = field(default_factory=dict)  # by unit
    favoured: dict[str, int] = field(default_factory=dict)  # errors in the unit's favour
    favour_rounds: dict[str, list[tuple[int, RoundKey]]] = field(default_factory=dict)
    reported: set[str] = field(default_factory=set)  # checks and units found


class DealerErrors:
    """The fold: ``feed(round)`` gives the dealer findings the round completes."""

    def __init__(self, configs: Mapping[str, TableConfig]) -> None:
        self._configs = configs
        self._rounds = 0
        self._by_check: dict[str, int] = {}
        self._dealers: dict[str, _Dealer] = {}

    def feed(self, result: RoundResult) -> list[PatternFinding]:
        """:meth:`take` of the round's figures."""
        return self.take(pattern_round(result))

    def take(self, result: PatternRound) -> list[PatternFinding]:
        """The dealer findings the round completes."""
        config = self._configs.get(result.table_id)
        codes = result.codes
        self._rounds += 1
        _add(self._by_check, codes)
        dealer_id = result.dealer_id
        if config is None or dealer_id is None:
            return []
        dealer = self._dealers.get(dealer_id)
        if dealer is None:
            dealer = self._dealers[dealer_id] = _Dealer(result.start_ts)
        dealer.rounds += 1
        key = (result.table_id, result.round_id)
        out: list[PatternFinding] = []
        for code in codes:
            _add(dealer.by_check, (code,))
            rounds = dealer.check_rounds.setdefault(code, [])
            rounds[:] = [*rounds[-(EVIDENCE_ROUNDS - 1) :], key]
            out += self._rate(result, config, dealer_id, dealer, code)
        out += self._favours(result, config, dealer_id, dealer, key)
        return out

    def save(self) -> bytes:
        """The fold's state, as bytes :meth:`load` reads."""
        return _ENCODER.encode(_State(self._rounds, self._by_check, self._dealers))

    def load(self, data: bytes) -> None:
        """Take the state :meth:`save` gave."""
        state = _STATE.decode(data)
        self._rounds, self._by_check, self._dealers = state.rounds, state.by_check, state.dealers

    def _rate(
        self, result: PatternRound, config: TableConfig, dealer_id: str, dealer: _Dealer, code: str
    ) -> list[PatternFinding]:
        settings = config.patterns
        x = dealer.by_check[code]
        if x < settings.dealer_min_errors or code in dealer.reported:
            return []
        others = self._rounds - dealer.rounds
        rate = (self._by_check[code] - x + 1) / (others + 1)
        p = poisson_tail(x, dealer.rounds * rate)
        if p > settings.dealer_error_alpha:
            return []
        dealer.reported.add(code)
        return [
            PatternFinding(
                check=RATE_CHECK,
                unit=dealer_id,
                table_id=None,
                message=(
                    f"dealer {dealer_id}: {code} in {x} of {dealer.rounds:,} rounds dealt "
                    f"({x / dealer.rounds:.1%}) against the floor's {rate:.2%} "
                    f"({self._by_check[code] - x} in {others:,} rounds by other dealers)"
                ),
                statistic_name=f"-log10 p, one-sided Poisson ({code})",
                statistic=_log10_p(p),
                threshold=-math.log10(settings.dealer_error_alpha),
                false_alarm_rate=(
                    f"at most {settings.dealer_error_alpha:g} per dealer, check and look "
                    "(Bonferroni over dealers, checks and looks)"
                ),
                evidence=tuple(reversed(dealer.check_rounds[code])),
                first_ts=dealer.first_ts,
                last_ts=result.start_ts,
            )
        ]

    def _favours(
        self,
        result: PatternRound,
        config: TableConfig,
        dealer_id: str,
        dealer: _Dealer,
        key: RoundKey,
    ) -> list[PatternFinding]:
        units = result.units
        _add(dealer.hands, units.values())
        out: list[PatternFinding] = []
        settings = config.patterns
        for seat, cents in result.short:
            unit = units.get(seat, f"{result.table_id}:{dealer_id}:{seat}")
            if unit not in units.values():
                _add(dealer.hands, (unit,))
            _add(dealer.favoured, (unit,))
            rounds = dealer.favour_rounds.setdefault(unit, [])
            rounds.append((cents, key))
            rounds.sort(key=lambda r: -r[0])
            del rounds[EVIDENCE_ROUNDS:]
            f = dealer.favoured[unit]
            reported = f"unit {unit}"
            if f < settings.favours_seat_min_errors or reported in dealer.reported:
                continue
            total = sum(dealer.favoured.values())
            hands = sum(dealer.hands.values())
            share = dealer.hands[unit] / hands
            p = min(1.0, binomial_tail(f, total, share) * len(dealer.hands))
            if p > settings.favours_seat_alpha:
                continue
            dealer.reported.add(reported)
            out.append(
                PatternFinding(
                    check=FAVOURS_CHECK,
                    unit=unit,
                    table_id=None,
                    message=(
                        f"dealer {dealer_id}: {f} of {total} money errors in the players' "
                        f"favour went to {unit}, which held {dealer.hands[unit]:,} of the "
                        f"{hands:,} hands the dealer dealt ({share:.0%}); the largest "
                        f"{dollars(rounds[0][0])}"
                    ),
                    statistic_name="-log10 p, binomial of the unit's share (Bonferroni)",
                    statistic=_log10_p(p),
                    threshold=-math.log10(settings.favours_seat_alpha),
                    false_alarm_rate=(
                        f"at most {settings.favours_seat_alpha:g} per dealer and look "
                        "(Bonferroni over the dealer's units)"
                    ),
                    evidence=tuple(k for _, k in rounds),
                    first_ts=dealer.first_ts,
                    last_ts=result.start_ts,
                    seat=seat if unit.endswith(f":{seat}") else None,
                )
            )
        return out


def _add(counts: dict[str, int], keys: Iterable[str]) -> None:
    """Count each of ``keys`` once more."""
    for key in keys:
        counts[key] = counts.get(key, 0) + 1


_ENCODER = msgspec.msgpack.Encoder()


class _State(msgspec.Struct):
    rounds: int
    by_check: dict[str, int]
    dealers: dict[str, _Dealer]


_STATE = msgspec.msgpack.Decoder(_State)


def _log10_p(p: float) -> float:
    return -math.log10(p) if p > 0 else math.inf
