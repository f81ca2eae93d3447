"""Three Card Poker's one decision, play or fold, valued exactly (in Antes).

The known strategy is the one :mod:`.ante_play_edge` prices (:data:`STRATEGY`:
play queen-six-four or better). A fold loses the Ante (-1). A Play (equal to
the Ante) wins the Ante bonus of the table's rows whatever the dealer holds,
then +1 when the dealer does not qualify, +2 against a lower hand, 0 on a tie,
-2 against a higher one (``settlement.py``); the side wagers do not depend on
the decision and are left out.

Exact: with what the player sees (his three cards), over the dealer's C(49,3)
= 18,424 possible hands; with the dealer's first card known, over the C(48,2)
= 1,128 completions of each of the 49 first cards the dealer could hold; with
all three known, the one outcome. Computed once per hand of the player and
Ante bonus (cached): every dealer hand's outcome, then summed by the first card
it holds (a 52 x 22,100 matrix of which hand holds which card).
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Final

import numpy as np
import numpy.typing as npt

from tablewatch.rules.game_rules import DecisionValue, DecisionValues
from tablewatch.rules.games.three_card_poker.ante_play_edge import PLAYS_FROM, STRATEGY
from tablewatch.rules.games.three_card_poker.settlement import QUALIFYING
from tablewatch.rules.games.three_card_poker.side_bet_edges import net_of
from tablewatch.rules.hands import all_combinations, strength3, three_card_table
from tablewatch.rules.paytables.hand_names import three_card_names
from tablewatch.rules.round_view import RoundView
from tablewatch.rules.table_config import TableConfig

OPTIONS: Final = ("play", "fold")
POINT: Final = "play or fold"
FOLD: Final = -1.0
COMPLETIONS: Final = 1128  # C(48, 2): the dealer's other two cards, his first one known


@cache
def _dealer_hands() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Every three-card hand (colex order): its cards, its strength, and which cards each
    holds (52 x 22,100, 1.0 where hand i holds card c)."""
    cards = all_combinations(52, 3).astype(np.int64)
    strengths = three_card_table().astype(np.int64)
    holding = np.zeros((52, len(cards)), dtype=np.float64)
    for column in range(3):
        holding[cards[:, column], np.arange(len(cards))] = 1.0
    return cards, strengths, holding


def play_outcome(mine: int, dealer: int) -> int:
    """The Ante and Play together, in Antes, without the Ante bonus: +1 the dealer not
    qualifying, +2 a lower hand, 0 a tie, -2 a higher one."""
    if dealer < QUALIFYING:
        return 1
    return 2 if mine > dealer else 0 if mine == dealer else -2


@lru_cache(maxsize=65_536)
def play_values(cards: tuple[int, int, int]) -> tuple[float, tuple[float, ...]]:
    """For the player's three cards (sorted): the Play's value without the bonus, seen
    (over the dealer's 18,424 hands), and with each card as the dealer's first (52 values;
    NaN for the player's own three)."""
    _, strengths, holding = _dealer_hands()
    mine = strength3(cards)
    shares = holding[cards[0]] + holding[cards[1]] + holding[cards[2]]
    possible = shares == 0
    outcome = np.where(
        strengths < QUALIFYING,
        1.0,
        np.where(strengths < mine, 2.0, np.where(strengths == mine, 0.0, -2.0)),  # arrays first
    )
    outcome = np.where(possible, outcome, 0.0)
    seen = float(outcome.sum()) / float(possible.sum())
    by_first = holding @ outcome / COMPLETIONS
    by_first[list(cards)] = np.nan
    return seen, tuple(float(v) for v in by_first)


def bonus_net(config: TableConfig, cards: tuple[int, ...]) -> int:
    """The Ante bonus a Play wins on these cards, per Ante (0: none)."""
    table = config.paytables.get("ante_bonus")
    if table is None:
        return 0
    return max(net_of(table, three_card_names(strength3(cards), list(cards))), 0)


def strategy_plays(cards: tuple[int, ...]) -> bool:
    """The known strategy (:data:`STRATEGY`): play queen-six-four or better."""
    return strength3(cards) >= PLAYS_FROM


def best_with_first(cards: tuple[int, int, int], bonus: int, first: int) -> str:
    """The option best with the dealer's first card known (a tie: the strategy's)."""
    play = play_values(cards)[1][first] + bonus
    if play == FOLD:
        return "play" if strategy_plays(cards) else "fold"
    return "play" if play > FOLD else "fold"


def value_decisions(view: RoundView, config: TableConfig) -> tuple[DecisionValue, ...]:
    """Every seat's play or fold made before the dealer's reveal, valued (a seat with a
    misdealt hand, a repeated card, or a dealer hand not of three, is left out)."""
    dealer = view.cards.get("dealer", [])
    if len(dealer) != 3 or not view.no_repeated_card:
        return ()
    reveal = view.reveals.get(("dealer", None))
    out = []
    for seat in view.seats():
        hand = view.seat_cards(seat)
        if len(hand) != 3 or not view.amount(seat, "ante"):
            continue
        decision = next((d for d in view.decisions.get(seat, []) if d.action in OPTIONS), None)
        if decision is None or (reveal is not None and decision.seq > reveal.seq):
            continue
        cards = (hand[0], hand[1], hand[2])
        ordered = tuple(sorted(cards))
        key = (ordered[0], ordered[1], ordered[2])
        bonus = bonus_net(config, cards)
        seen, by_first = play_values(key)
        possible = [by_first[c] for c in range(52) if c not in cards]
        plays = strategy_plays(cards)
        play_best = sum(1 for v in possible if v + bonus > FOLD or (v + bonus == FOLD and plays))
        chance = play_best / len(possible)
        hidden = bonus + play_outcome(strength3(cards), strength3(dealer))
        out.append(
            DecisionValue(
                seat=seat,
                event_id=decision.event_id,
                point=POINT,
                options=OPTIONS,
                taken=decision.action,
                strategy="play" if plays else "fold",
                seen=(seen + bonus, FOLD),
                first_card=(by_first[dealer[0]] + bonus, FOLD),
                hidden=(float(hidden), FOLD),
                chance_best=(chance, 1.0 - chance),
                best_first=best_with_first(key, bonus, dealer[0]),
            )
        )
    return tuple(out)


VALUES: Final = DecisionValues(
    strategy=STRATEGY,
    source="three_card_poker.ante_play_edge",
    method=(
        "exact: seen over the dealer's 18,424 hands, with his first card over its 1,128 "
        "completions, with all his cards the one outcome"
    ),
    value=value_decisions,
)
