"""Four Card Poker Aces Up (§ 641a.12(c)): exact over 2,598,960 five-card hands, best four."""

from __future__ import annotations

import time
from functools import cache

import numpy as np
import numpy.typing as npt

from tablewatch.rules.edge.pricing import LOSE, house_edge_of, net_of_names, price_strengths
from tablewatch.rules.edge.result import EdgeResult
from tablewatch.rules.hands import best4of5_table
from tablewatch.rules.paytables.aces_up import ACES_UP
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


def edge(letter: str) -> EdgeResult:
    start = time.perf_counter()
    net = net_table(letter)
    return EdgeResult(
        game="four_card_poker",
        wager="aces_up",
        paytable=letter,
        house_edge=house_edge_of(net),
        exact=True,
        hands=len(net),
        seconds=time.perf_counter() - start,
        extras={"hit_frequency": float((net > LOSE).mean()), "section": ACES_UP[letter].section},
    )
