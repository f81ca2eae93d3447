"""Let It Ride Five Card Bonus (§ 643a.12(b), "$N" per $1, for 1): exact over 2,598,960 hands."""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt

from tablewatch.rules.edge.pricing import net_of_names, price_strengths, side_bet_edge
from tablewatch.rules.edge.result import EdgeResult
from tablewatch.rules.games.let_it_ride.five_card_bonus_paytable import FIVE_CARD_BONUS
from tablewatch.rules.hands import five_card_table
from tablewatch.rules.paytables.hand_names import five_card_names


@cache
def net_table(letter: str) -> npt.NDArray[np.float64]:
    """Net result per unit of every five-card hand, by colex index (read-only, built once)."""
    table = FIVE_CARD_BONUS[letter]
    net = price_strengths(
        five_card_table(), lambda names: net_of_names(table, names), five_card_names
    )
    net.flags.writeable = False
    return net


def edge(game: str, letter: str) -> EdgeResult:
    """The edge of pay table ``letter`` (``game``: the name the result carries)."""
    return side_bet_edge(
        game, "five_card_bonus", letter, FIVE_CARD_BONUS[letter].section, net_table
    )
