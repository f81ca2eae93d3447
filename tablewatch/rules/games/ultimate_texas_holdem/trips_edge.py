"""Ultimate Texas Hold 'Em Trips (§ 653a.12(c)): exact over all C(52, 7) seven-card hands.

Trips pays on the seat's best five of seven whatever the dealer holds, so its
edge is the pay table over the seven-card hand counts
(:mod:`~tablewatch.rules.games.ultimate_texas_holdem.seven_card_counts`),
each strength priced once with the hand names and pay table settlement uses.
"""

from __future__ import annotations

import math
import time

from tablewatch.rules.edge.pricing import LOSE, net_of_names
from tablewatch.rules.edge.result import EdgeResult
from tablewatch.rules.games.ultimate_texas_holdem.paytables import TRIPS
from tablewatch.rules.games.ultimate_texas_holdem.seven_card_counts import (
    SEVEN_CARD_HANDS,
    seven_card_strength_counts,
)
from tablewatch.rules.paytables.hand_names import five_card_names


def edge(game: str, letter: str) -> EdgeResult:
    """The edge of Trips pay table ``letter`` (``game``: the name the result carries)."""
    start = time.perf_counter()
    table = TRIPS[letter]
    total = square = 0.0
    hits = 0
    for strength, count in seven_card_strength_counts().items():
        net = net_of_names(table, five_card_names(strength))
        total += count * net
        square += count * net * net
        if net > LOSE:
            hits += count
    mean = total / SEVEN_CARD_HANDS
    return EdgeResult(
        game=game,
        wager="trips",
        paytable=letter,
        house_edge=-mean,
        exact=True,
        hands=SEVEN_CARD_HANDS,
        seconds=time.perf_counter() - start,
        extras={
            "hit_frequency": hits / SEVEN_CARD_HANDS,
            "std_dev": math.sqrt(square / SEVEN_CARD_HANDS - mean * mean),
            "section": table.section,
        },
    )
