"""The Ante and Play under the Q-6-4 strategy with an Ante bonus: exact over every deal.

Every (seat's three, dealer's three) pair of disjoint hands, C(52,3) x
C(49,3) = 407,170,400, is equally likely. The seat plays (a Play equal to the
Ante) with queen-six-four or better and folds otherwise; its result, in
Antes, follows the settlement (``settlement.py``): a fold loses 1; a Play
wins the Ante bonus of its rows whatever the dealer holds, and then +1 (the
dealer not qualifying), +2 (a higher hand), 0 (a tie) or -2 (a lower hand).
For each hand played, the dealer's hands of each outcome are counted among
all 22,100 (sorted strengths) less those sharing a card with the seat's.
Integer counts throughout: the edge is an exact fraction of the Ante.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from math import comb, sqrt
from typing import Final

import numpy as np

from tablewatch.rules.cards import CARDS_BY_TEXT
from tablewatch.rules.edge.result import EdgeResult
from tablewatch.rules.games.three_card_poker.settlement import QUALIFYING
from tablewatch.rules.games.three_card_poker.side_bet_edges import net_of
from tablewatch.rules.hands import all_combinations, strength3, three_card_table
from tablewatch.rules.paytables.hand_names import three_card_names
from tablewatch.rules.paytables.table import PayTable

Progress = Callable[[str, int, int], None]
STRATEGY: Final = "play Q-6-4 or better, fold the rest"
PLAYS_FROM: Final = strength3([CARDS_BY_TEXT[c] for c in ("Qc", "6d", "4h")])
DEALS: Final = comb(52, 3) * comb(49, 3)  # 407,170,400


def edge(game: str, bonus: PayTable, progress: Progress | None = None) -> EdgeResult:
    """The Ante's edge (with its Play and the Ante bonus ``bonus``), per Ante."""
    started = time.perf_counter()
    cards = all_combinations(52, 3)
    strengths = three_card_table().astype(np.int64)
    hands = len(strengths)
    ordered = np.sort(strengths)
    holding = np.zeros((52, hands), dtype=bool)  # holding[c, i]: hand i holds card c
    for column in range(3):
        holding[cards[:, column], np.arange(hands)] = True
    dealer_hands = comb(49, 3)
    all_below_qualifying = int(np.searchsorted(ordered, QUALIFYING, "left"))
    net = 0
    squares = 0
    played = 0
    for i in range(hands):
        mine = int(strengths[i])
        if mine < PLAYS_FROM:
            net -= dealer_hands
            squares += dealer_hands
            continue
        played += 1
        a, b, c = (int(x) for x in cards[i])
        sharing = strengths[holding[a] | holding[b] | holding[c]]
        below_q = all_below_qualifying - int((sharing < QUALIFYING).sum())
        below = int(np.searchsorted(ordered, mine, "left")) - int((sharing < mine).sum())
        at_most = int(np.searchsorted(ordered, mine, "right")) - int((sharing <= mine).sum())
        tie = at_most - below
        lower_qualified = below - below_q
        higher = dealer_hands - below - tie
        names = three_card_names(mine, [a, b, c])
        bonus_net = max(net_of(bonus, names), 0)  # a bonus not paid costs nothing
        for outcome, count in (
            (1 + bonus_net, below_q),
            (2 + bonus_net, lower_qualified),
            (bonus_net, tie),
            (bonus_net - 2, higher),
        ):
            net += outcome * count
            squares += outcome * outcome * count
        if progress is not None and (i % 1000 == 0 or i == hands - 1):
            progress("seat hands", i + 1, hands)
    if progress is not None:
        progress("seat hands", hands, hands)
    mean = net / DEALS
    return EdgeResult(
        game=game,
        wager="ante",
        paytable=bonus.letter,
        house_edge=-mean,
        exact=True,
        hands=DEALS,
        seconds=time.perf_counter() - started,
        extras={
            "net_total": net,
            "std_dev": sqrt(squares / DEALS - mean * mean),
            "strategy": STRATEGY,
            "play_rate": played / hands,
            "ante_bonus": bonus.letter,
            "section": bonus.section,
        },
    )
