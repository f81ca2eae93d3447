"""Let It Ride's first decision, ride or pull Bet 1, valued exactly (per unit: one bet).

The three bets pay alike on the final hand: with ``m`` the net result of one
unit on the five cards (the main pay table), Bet 3 always plays, Bet 2 rides
when its expectation given the player's three cards and the first community
card is positive (the player then sees that card), Bet 1 when its expectation
given his three cards is. The known strategy is that optimal one, which
:mod:`.main_edge` prices (``ride_bet1``: E[m | 3 cards] > 0, a tie pulls).
The values of riding and pulling Bet 1, Bet 2 and Bet 3 included:

- seen (the player's three cards): ride 2·E[m | 3] + E[max(0, E[m | 4])], pull
  E[m | 3] + E[max(0, E[m | 4])], over the 49 first community cards;
- with the first community card known: ride 2·E[m | 4] + max(0, E[m | 4]), pull
  E[m | 4] + max(0, E[m | 4]);
- with both community cards known: ride 2·m + max(0, m), pull m + max(0, m).

Exact: ``m`` of every five-card hand, and its means over the completions of
every three- and four-card subset (:func:`.main_edge.conditional_means`),
computed once per pay table. Bet 2's decision is not valued: the first
community card is turned before it, so no card a dealer could flash is hidden
from it but the last.
"""

from __future__ import annotations

from functools import cache
from typing import Final

import numpy as np
import numpy.typing as npt

from tablewatch.rules.game_rules import DecisionValue, DecisionValues
from tablewatch.rules.games.let_it_ride.main_edge import conditional_means, net_table
from tablewatch.rules.hands import colex_index_batch
from tablewatch.rules.round_view import RoundView
from tablewatch.rules.table_config import TableConfig

OPTIONS: Final = ("ride", "pull")
POINT: Final = "Bet 1: ride or pull"
STRATEGY: Final = (
    "Bet 1 rides iff E[m | the three cards] > 0, Bet 2 iff E[m | the four cards] > 0 "
    "(the optimal strategy main_edge prices; a tie pulls)"
)


@cache
def _means(letter: str) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """E[m | 3 cards] and E[m | 4 cards] by colex index, for the main pay table ``letter``."""
    net = net_table(letter)
    return conditional_means(net, 3), conditional_means(net, 4)


def first_card_means(letter: str, three: tuple[int, int, int]) -> npt.NDArray[np.float64]:
    """E[m | the three cards and each card as the first community card] (52 values, NaN for
    the player's own three)."""
    _, after_four = _means(letter)
    firsts = np.array([c for c in range(52) if c not in three], dtype=np.int64)
    rows = np.column_stack([np.tile(np.array(three, dtype=np.int64), (len(firsts), 1)), firsts])
    out = np.full(52, np.nan)
    out[firsts] = after_four[colex_index_batch(rows)]
    return out


def three_card_mean(letter: str, three: tuple[int, int, int]) -> float:
    """E[m | the player's three cards]."""
    after_three, _ = _means(letter)
    return float(after_three[colex_index_batch(np.array([three], dtype=np.int64))[0]])


def rides_seeing(letter: str, three: tuple[int, int, int], first: int) -> bool:
    """Whether Bet 1 is best ridden with the first community card known (a tie: the
    strategy's choice)."""
    value = float(first_card_means(letter, three)[first])
    if value == 0:
        return three_card_mean(letter, three) > 0
    return value > 0


def value_decisions(view: RoundView, config: TableConfig) -> tuple[DecisionValue, ...]:
    """Every seat's ride or pull of Bet 1 before the first community card is turned,
    valued (a misdealt or repeated card leaves the round out)."""
    community = view.cards.get("community", [])
    letter = config.letter("main")
    turned = view.reveals.get(("community", 1))
    if len(community) != 2 or not view.no_repeated_card or letter is None:
        return ()
    net = net_table(letter)
    out = []
    for seat in view.seats():
        hand = view.seat_cards(seat)
        if len(hand) != 3 or not view.amount(seat, "bet1"):
            continue
        decision = next(
            (d for d in view.decisions.get(seat, []) if d.bet == "bet1" and d.action in OPTIONS),
            None,
        )
        if decision is None or (turned is not None and decision.seq > turned.seq):
            continue
        three_sorted = sorted(hand)
        three = (three_sorted[0], three_sorted[1], three_sorted[2])
        mean3 = three_card_mean(letter, three)
        by_first = first_card_means(letter, three)
        possible = by_first[~np.isnan(by_first)]
        bet2 = float(np.maximum(possible, 0.0).mean())
        rides = mean3 > 0
        ride_best = int(((possible > 0) | ((possible == 0) & rides)).sum())
        chance = ride_best / len(possible)
        first = float(by_first[community[0]])
        five = np.array([[*hand, *community]], dtype=np.int64)
        final = float(net[colex_index_batch(five)[0]])
        out.append(
            DecisionValue(
                seat=seat,
                event_id=decision.event_id,
                point=POINT,
                options=OPTIONS,
                taken=decision.action,
                strategy="ride" if rides else "pull",
                seen=(2 * mean3 + bet2, mean3 + bet2),
                first_card=(2 * first + max(first, 0.0), first + max(first, 0.0)),
                hidden=(2 * final + max(final, 0.0), final + max(final, 0.0)),
                chance_best=(chance, 1.0 - chance),
                best_first="ride" if rides_seeing(letter, three, community[0]) else "pull",
            )
        )
    return tuple(out)


VALUES: Final = DecisionValues(
    strategy=STRATEGY,
    source="let_it_ride.main_edge",
    method=(
        "exact: over every five-card hand's net result and its means given each three and "
        "four of its cards (Bet 1's decision only)"
    ),
    value=value_decisions,
)
