"""Let It Ride Three Card Bonus (§ 643a.12(c)): exact over the 22,100 three-card hands."""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt

from tablewatch.rules.cards import SPADES
from tablewatch.rules.edge.pricing import net_of_names, price_by_key, side_bet_edge
from tablewatch.rules.edge.result import EdgeResult
from tablewatch.rules.games.let_it_ride.three_card_bonus_paytable import THREE_CARD_BONUS
from tablewatch.rules.hands import all_combinations, three_card_table
from tablewatch.rules.paytables.hand_names import three_card_names


@cache
def net_table(letter: str) -> npt.NDArray[np.float64]:
    """Net result per unit of every three-card hand, by colex index (read-only, built once)."""
    table = THREE_CARD_BONUS[letter]
    cards = all_combinations(52, 3)
    strengths = three_card_table()
    # The names depend on the strength and, for a mini-royal, on whether it is in spades.
    all_spades = ((cards & 3) == SPADES).all(axis=1)
    keys = strengths.astype(np.int64) * 2 + all_spades
    net = price_by_key(
        keys,
        lambda i: net_of_names(
            table, three_card_names(int(strengths[i]), [int(c) for c in cards[i]])
        ),
    )
    net.flags.writeable = False
    return net


def edge(game: str, letter: str) -> EdgeResult:
    """The edge of pay table ``letter`` (``game``: the name the result carries)."""
    return side_bet_edge(
        game, "three_card_bonus", letter, THREE_CARD_BONUS[letter].section, net_table
    )
