"""Four Card Poker Aces Up (§ 641a.12(c)): exact over 2,598,960 five-card hands, best four."""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt

from tablewatch.rules.edge.pricing import net_of_names, price_strengths, side_bet_edge
from tablewatch.rules.edge.result import EdgeResult
from tablewatch.rules.games.four_card_poker.aces_up_paytable import ACES_UP
from tablewatch.rules.hands import best4of5_table
from tablewatch.rules.paytables.hand_names import four_card_names


@cache
def net_table(letter: str) -> npt.NDArray[np.float64]:
    """Net result per unit of every five-card hand (its best four), by colex index.

    Read-only, built once per letter.
    """
    table = ACES_UP[letter]
    net = price_strengths(
        best4of5_table(), lambda names: net_of_names(table, names), four_card_names
    )
    net.flags.writeable = False
    return net


def edge(game: str, letter: str) -> EdgeResult:
    """The edge of pay table ``letter`` (``game``: the name the result carries)."""
    return side_bet_edge(game, "aces_up", letter, ACES_UP[letter].section, net_table)
