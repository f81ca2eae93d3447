"""Ultimate Texas Hold 'Em's last decision, Play 1x or fold after the river, valued exactly.

In Antes, Ante, Blind and Play together (§ 653a.12(a), (b); Trips does not
depend on the decision): a fold loses Ante and Blind (-2); a Play of 1x wins
1 + the Ante (1 when the dealer qualifies with a pair or better, else a push)
+ the Blind by its pay table (a push on a hand it does not pay) against a
lower dealer hand, loses 1 + the Ante (when he qualifies) + the Blind against a
higher one, and pushes on a tie (as :func:`.ante_edge.net_per_ante`).

Exact: with what the player sees (his two cards and the five community
cards), over the dealer's C(45,2) = 990 possible hands; with the dealer's
first card known, over the 44 second cards; with both known, the one outcome.
The known strategy is the one :mod:`.ante_edge` prices (:data:`STRATEGY`):
after the river, Play 1x with a pair or better in which a hole card takes
part, a straight or better that beats the board, or a jack or better in the
hole; else fold.

Not valued (left out of the decisions given): the raise before the flop (4x,
3x or check) and on the flop (2x or check), whose values need the later
streets' decisions over many boards.
"""

from __future__ import annotations

from itertools import combinations
from typing import Final

import numpy as np
import numpy.typing as npt

from tablewatch.rules.game_rules import DecisionValue, DecisionValues
from tablewatch.rules.games.ultimate_texas_holdem.ante_edge import (
    STRATEGY,
    blind_pricer,
    river_1x,
)
from tablewatch.rules.hands import Hand5, best5of7_batch
from tablewatch.rules.hands.strength import CATEGORY_SHIFT
from tablewatch.rules.round_view import RoundView
from tablewatch.rules.table_config import TableConfig

OPTIONS: Final = ("play", "fold")
POINT: Final = "after the river"
FOLD: Final = -2.0
SECOND_CARDS: Final = 44  # the dealer's second card, his first known: 52 - 7 - 1


def strategy_plays(hole: tuple[int, ...], board: tuple[int, ...]) -> bool:
    """The known strategy after the river (:data:`STRATEGY`)."""
    row = np.array([[hole[0], hole[1], 0, 0, *board]], dtype=np.int64)
    return bool(river_1x(row)[0])


def river_values(
    hole: tuple[int, ...], board: tuple[int, ...], letter: str
) -> tuple[float, npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """A Play of 1x after the river: its value seen, with each card as the dealer's first
    (52 values, NaN for the seven the player sees), and with each possible dealer hand
    (its value and its two cards, rows of the 990)."""
    seen_cards = {*hole, *board}
    unseen = [c for c in range(52) if c not in seen_cards]
    pairs = np.array(list(combinations(unseen, 2)), dtype=np.int64)
    dealer = best5of7_batch(np.concatenate([pairs, np.tile(board, (len(pairs), 1))], axis=1))
    mine_row = np.array([[*hole, *board]], dtype=np.int64)
    mine = best5of7_batch(mine_row)
    blind = float(blind_pricer(letter)(mine)[0])
    qualifies = ((dealer >> CATEGORY_SHIFT) >= Hand5.PAIR).astype(np.float64)
    net = np.where(
        mine[0] > dealer, 1.0 + qualifies + blind, np.where(mine[0] < dealer, -2.0 - qualifies, 0.0)
    )
    by_first = np.full(52, np.nan)
    sums = np.zeros(52)
    np.add.at(sums, pairs[:, 0], net)
    np.add.at(sums, pairs[:, 1], net)
    by_first[unseen] = sums[unseen] / SECOND_CARDS
    return float(net.mean()), by_first, net, pairs


def best_with_first(by_first: npt.NDArray[np.float64], first: int, plays: bool) -> str:
    """The option best with the dealer's first card known (a tie: the strategy's)."""
    value = float(by_first[first])
    if value == FOLD:
        return "play" if plays else "fold"
    return "play" if value > FOLD else "fold"


def value_decisions(view: RoundView, config: TableConfig) -> tuple[DecisionValue, ...]:
    """Every seat's Play 1x or fold after the river (made between the river's reveal and
    the dealer's), valued; a misdealt or repeated card leaves the round out."""
    dealer = view.cards.get("dealer", [])
    board = view.cards.get("community", [])
    river = view.reveals.get(("community", 2))
    letter = config.letter("blind")
    if len(dealer) != 2 or len(board) != 5 or not view.no_repeated_card or river is None:
        return ()
    if letter is None:
        return ()
    shown = view.reveals.get(("dealer", None))
    out = []
    for seat in view.seats():
        hole = view.seat_cards(seat)
        if len(hole) != 2 or not view.amount(seat, "ante"):
            continue
        decision = next(
            (d for d in view.decisions.get(seat, []) if d.action in ("play", "fold")), None
        )
        if decision is None or decision.seq < river.seq:
            continue  # played before the river (not valued), or never decided
        if shown is not None and decision.seq > shown.seq:
            continue
        hole_cards = (hole[0], hole[1])
        board_cards = tuple(board)
        seen, by_first, net, pairs = river_values(hole_cards, board_cards, letter)
        plays = strategy_plays(hole_cards, board_cards)
        possible = by_first[~np.isnan(by_first)]
        play_best = int(((possible > FOLD) | ((possible == FOLD) & plays)).sum())
        chance = play_best / len(possible)
        actual = (pairs[:, 0] == min(dealer)) & (pairs[:, 1] == max(dealer))
        out.append(
            DecisionValue(
                seat=seat,
                event_id=decision.event_id,
                point=POINT,
                options=OPTIONS,
                taken=decision.action,
                strategy="play" if plays else "fold",
                seen=(seen, FOLD),
                first_card=(float(by_first[dealer[0]]), FOLD),
                hidden=(float(net[actual][0]), FOLD),
                chance_best=(chance, 1.0 - chance),
                best_first=best_with_first(by_first, dealer[0], plays),
            )
        )
    return tuple(out)


VALUES: Final = DecisionValues(
    strategy=STRATEGY,
    source="ultimate_texas_holdem.ante_edge",
    method=(
        "exact, after the river only: seen over the dealer's 990 hands, with his first card "
        "over the 44 second cards, with both the one outcome (the raises before it not valued)"
    ),
    value=value_decisions,
)
