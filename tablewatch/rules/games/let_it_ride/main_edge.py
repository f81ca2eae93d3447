"""Let It Ride Bets 1, 2 and 3 (§ 643a.12(a)): exact, with the optimal ride/pull strategy.

Bet 3 always plays. Bet 2 rides when its expectation given the four cards
then known (the player's three and the first community card) is positive;
Bet 1 rides when its expectation given the player's three cards is. The bets
pay alike on the final hand, so with ``m`` the net result of one unit on a
five-card hand the expected result per unit is::

    E[m] + E[max(0, E[m | 4 cards])] + E[max(0, E[m | 3 cards])]

The conditional expectations are sums over the hands containing each 4- and
3-card subset (``bincount`` over colex indices) divided by the C(48, 1) and
C(49, 2) ways to complete them. The payout limit (§ 643a.12(e)) is ignored.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from math import comb

import numpy as np
import numpy.typing as npt

from tablewatch.rules.edge.pricing import house_edge_of, net_of_names, price_strengths
from tablewatch.rules.edge.result import EdgeResult
from tablewatch.rules.games.let_it_ride.main_paytable import MAIN
from tablewatch.rules.hands import all_combinations, colex_index_batch, five_card_table
from tablewatch.rules.paytables.hand_names import five_card_names


@cache
def net_table(letter: str) -> npt.NDArray[np.float64]:
    """Net result of one unit on every five-card hand, by colex index (read-only, built once)."""
    table = MAIN[letter]
    net = price_strengths(
        five_card_table(), lambda names: net_of_names(table, names), five_card_names
    )
    net.flags.writeable = False
    return net


def conditional_means(net: npt.NDArray[np.float64], known: int) -> npt.NDArray[np.float64]:
    """``E[net | the known cards]`` for every ``known``-card subset, by colex index."""
    hands = all_combinations(52, 5)
    total = np.zeros(comb(52, known), dtype=np.float64)
    for keep in combinations(range(5), known):
        index = colex_index_batch(hands[:, keep], assume_sorted=True)
        total += np.bincount(index, weights=net, minlength=len(total))
    return total / comb(52 - known, 5 - known)


@dataclass(frozen=True, slots=True)
class RideValues:
    """Expected net results per unit of each bet under the optimal strategy."""

    bet3: float
    bet2: float
    bet1: float
    ride2: float  # probability Bet 2 rides
    ride1: float  # probability Bet 1 rides


@cache
def ride_values(letter: str) -> RideValues:
    net = net_table(letter)
    after_four = conditional_means(net, 4)
    after_three = conditional_means(net, 3)
    return RideValues(
        bet3=float(net.mean()),
        bet2=float(np.maximum(after_four, 0.0).mean()),
        bet1=float(np.maximum(after_three, 0.0).mean()),
        ride2=float((after_four > 0).mean()),
        ride1=float((after_three > 0).mean()),
    )


@cache
def std_dev(letter: str, *, ride_ties: bool = False) -> float:
    """Standard deviation of one hand's net result per unit, under the optimal strategy.

    A hand's result is ``m * (1 + ride1 + ride2)``: ``ride1`` decided on the player's
    three cards, ``ride2`` on those and the first community card. Each five-card hand is
    dealt as three player cards, a first and a second community card in C(5, 3) * 2 = 20
    equally likely ways; the second moment is averaged over every hand and every way.

    Where a bet's expectation is exactly 0 (on pay table A, 2,268 four-card hands of mixed
    suits: 2345 to 6789, and JQKA, TJKA, TJQA, TQKA; no three-card hand) riding and
    pulling have the same edge; the strategy pulls (the lower variance), ``ride_ties``
    rides instead (the strategy behind the published 5.17: tests/rules/test_edge_std_dev.py).
    """
    net = net_table(letter)
    rides = _ride_tables(letter, ride_ties)
    hands = all_combinations(52, 5)
    first = np.zeros(len(net), dtype=np.float64)
    second = np.zeros(len(net), dtype=np.float64)
    ways = 0
    for player in combinations(range(5), 3):
        ride1 = rides[3][colex_index_batch(hands[:, player], assume_sorted=True)]
        for card in (c for c in range(5) if c not in player):
            known = tuple(sorted((*player, card)))
            ride2 = rides[4][colex_index_batch(hands[:, known], assume_sorted=True)]
            factor = 1.0 + ride1 + ride2
            first += factor
            second += factor * factor
            ways += 1
    mean = float((net * first).sum()) / (ways * len(net))
    square = float((net * net * second).sum()) / (ways * len(net))
    return float(np.sqrt(max(square - mean * mean, 0.0)))


def ride_bet1(letter: str, player_cards: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """Whether the optimal strategy lets Bet 1 ride, for each row of three player cards."""
    return _rides(letter, player_cards, 3)


def ride_bet2(letter: str, known_cards: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """Whether Bet 2 rides, per row of the player's three cards and the first community card."""
    return _rides(letter, known_cards, 4)


@cache
def _ride_tables(letter: str, ride_ties: bool = False) -> dict[int, npt.NDArray[np.bool_]]:
    """Whether a bet rides, by colex index of the 3 or 4 cards known: its expectation
    positive (or, ``ride_ties``, not negative: the means are exact multiples of 1/48 and
    1/1176, a tie is exactly 0)."""
    net = net_table(letter)
    if ride_ties:
        return {known: conditional_means(net, known) >= 0 for known in (3, 4)}
    return {known: conditional_means(net, known) > 0 for known in (3, 4)}


def _rides(letter: str, cards: npt.ArrayLike, known: int) -> npt.NDArray[np.bool_]:
    rows = np.asarray(cards)
    if rows.ndim != 2 or rows.shape[1] != known:
        raise ValueError(f"expected an (N, {known}) array of cards, got {rows.shape}")
    return _ride_tables(letter)[known][colex_index_batch(rows)]


def edge(game: str, letter: str) -> EdgeResult:
    """The edge of pay table ``letter`` (``game``: the name the result carries)."""
    start = time.perf_counter()
    values = ride_values(letter)
    expected = values.bet3 + values.bet2 + values.bet1
    house_edge = -expected
    average_bet = 1.0 + values.ride2 + values.ride1
    return EdgeResult(
        game=game,
        wager="main",
        paytable=letter,
        house_edge=house_edge,
        exact=True,
        hands=comb(52, 5),
        seconds=time.perf_counter() - start,
        extras={
            "unit": "one of the three equal bets",
            "element_of_risk": house_edge / average_bet,
            "average_total_bet": average_bet,
            "bet3_edge": house_edge_of(net_table(letter)),
            "std_dev": std_dev(letter),
            "ride_bet1_probability": values.ride1,
            "ride_bet2_probability": values.ride2,
            "strategy": "Bet 3 always; Bet 2 rides iff E[m | 3 cards + first community] > 0; "
            "Bet 1 rides iff E[m | 3 cards] > 0",
            "section": MAIN[letter].section,
        },
    )
