"""Let It Ride Five Card Bonus (§ 643a.12(b), "$N" per $1, for 1): exact over 2,598,960 hands."""

from __future__ import annotations

import time
from functools import cache

import numpy as np
import numpy.typing as npt

from tablewatch.rules.edge.pricing import LOSE, house_edge_of, net_of_names, price_strengths
from tablewatch.rules.edge.result import EdgeResult
from tablewatch.rules.hands import five_card_table
from tablewatch.rules.paytables.five_card_bonus import FIVE_CARD_BONUS
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


def edge(letter: str) -> EdgeResult:
    start = time.perf_counter()
    net = net_table(letter)
    return EdgeResult(
        game="let_it_ride",
        wager="five_card_bonus",
        paytable=letter,
        house_edge=house_edge_of(net),
        exact=True,
        hands=len(net),
        seconds=time.perf_counter() - start,
        extras={
            "hit_frequency": float((net > LOSE).mean()),
            "section": FIVE_CARD_BONUS[letter].section,
        },
    )
