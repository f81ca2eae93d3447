"""The standard deviation per unit that ``tablewatch edge`` reports (the band of the hold
panels): side bets against their hand frequencies worked out by hand, Let It Ride's main
game under the optimal strategy against a simulation of dealt rounds.

Each is checked against a computation that shares no code with the enumeration: the
standard counts of poker hands with the pay table's stated odds, or a simulation playing
the strategy card by card. One published figure was found: the Wizard of Odds' Let It
Ride standard deviation (below); none for the side bets' pay tables or for Four Card
Poker.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tablewatch.rules.edge import exact_edge
from tablewatch.rules.games.let_it_ride.main_edge import (
    conditional_means,
    net_table,
    ride_bet1,
    ride_bet2,
    std_dev,
)
from tablewatch.rules.hands import colex_index_batch


def moments(outcomes: list[tuple[int, float]]) -> tuple[float, float]:
    """Mean and standard deviation of net results with their hand counts."""
    total = sum(n for n, _ in outcomes)
    mean = sum(n * x for n, x in outcomes) / total
    square = sum(n * x * x for n, x in outcomes) / total
    return mean, math.sqrt(square - mean * mean)


# Three cards (C(52, 3) = 22,100): straight flush 48, three of a kind 52, straight 720,
# flush 1,096, pair 3,744, the rest 16,440. Pay table A (§ 643a.12(c)), "to 1": 40, 30, 6, 4, 1.
THREE_CARD_A = [(48, 40.0), (52, 30.0), (720, 6.0), (1096, 4.0), (3744, 1.0), (16440, -1.0)]

# Five cards (C(52, 5) = 2,598,960): royal flush 4, straight flush 36, four of a kind 624,
# full house 3,744, flush 5,108, straight 10,200, three of a kind 54,912, two pair
# 123,552, a pair of tens or better 5/13 of the 1,098,240 pairs = 422,400. Pay table A,
# dollars per $1 "for 1" (the stake kept): 20,000, 2,000, 150, 75, 50, 25, 4, 3, 2.
FIVE_CARD_A_PAID = [(4, 20000), (36, 2000), (624, 150), (3744, 75), (5108, 50), (10200, 25),
                    (54912, 4), (123552, 3), (422400, 2)]  # fmt: skip


def test_three_card_bonus_a_from_the_hand_counts() -> None:
    mean, std = moments(THREE_CARD_A)
    result = exact_edge("let_it_ride", "three_card_bonus", "A")
    assert result.house_edge == pytest.approx(-mean, rel=1e-12)
    assert result.extras["std_dev"] == pytest.approx(std, rel=1e-12)
    assert std == pytest.approx(2.9106, abs=1e-4)


def test_five_card_bonus_a_from_the_hand_counts() -> None:
    paying = [(n, paid - 1.0) for n, paid in FIVE_CARD_A_PAID]
    losing = 2_598_960 - sum(n for n, _ in paying)
    mean, std = moments([*paying, (losing, -1.0)])
    result = exact_edge("let_it_ride", "five_card_bonus", "A")
    assert result.house_edge == pytest.approx(-mean, rel=1e-12)
    assert result.extras["std_dev"] == pytest.approx(std, rel=1e-12)


def test_let_it_ride_main_against_a_simulation_of_dealt_rounds() -> None:
    """600,000 rounds dealt card by card: three to the player, then the community cards,
    each bet ridden or pulled by the strategy's own functions on the cards then known."""
    rng = np.random.default_rng(20261201)
    n = 600_000
    deals = np.argsort(rng.random((n, 52)), axis=1)[:, :5].astype(np.int64)
    player, first = deals[:, :3], deals[:, 3:4]
    ride1 = ride_bet1("A", player)
    ride2 = ride_bet2("A", np.hstack([player, first]))
    m = net_table("A")[colex_index_batch(deals)]
    result = m * (1.0 + ride1 + ride2)
    simulated_mean = float(result.mean())
    simulated_var = float(result.var())
    # the simulation's own standard errors of its mean and of its variance
    se_mean = math.sqrt(simulated_var / n)
    se_var = math.sqrt(float(((result - simulated_mean) ** 4).mean()) / n)
    exact = exact_edge("let_it_ride", "main", "A")
    std = exact.extras["std_dev"]
    assert isinstance(std, float)
    assert abs(simulated_mean + exact.house_edge) < 4 * se_mean
    assert abs(simulated_var - std * std) < 4 * se_var
    assert 4.5 < std < 6.0


def test_let_it_ride_main_agrees_with_the_published_figure() -> None:
    """The Wizard of Odds' table of house edges (https://wizardofodds.com/gambling/house-edge/,
    "What is the House Edge?", its "Standard Deviation" column) lists Let It Ride at 3.51%
    and 5.17, on the standard pay table, pay table A (1000, 200, 50, 11, 8, 5, 3, 2, 1 to 1),
    per unit: the page takes the edge over the initial bet without the bets pulled, and
    3.51% is the edge per one of the three bets.

    The figure is that of a strategy riding the bets whose expectation is exactly 0: 2,268
    four-card hands of mixed suits (2345 to 6789, and JQKA, TJKA, TJQA, TQKA), no three-card
    one. Riding or pulling them has the same edge; pulling them,
    as ``tablewatch edge`` does, gives 5.158 (the hold band is that much narrower)."""
    exact = exact_edge("let_it_ride", "main", "A")
    assert round(exact.house_edge * 100, 2) == 3.51
    assert round(std_dev("A", ride_ties=True), 2) == 5.17
    assert exact.extras["std_dev"] == pytest.approx(5.158, abs=5e-4)
    net = net_table("A")
    assert int((conditional_means(net, 4) == 0).sum()) == 2268
    assert int((conditional_means(net, 3) == 0).sum()) == 0
