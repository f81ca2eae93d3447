"""House edge of each wager, computed through our pay tables and hand names.

Exact enumerations (every hand equally likely) price each distinct hand once
with the functions settlement uses (:mod:`tablewatch.rules.edge.pricing`);
the Four Card Poker Ante, whose optimal play cannot be enumerated cheaply, is
a Monte-Carlo of a learned strategy. Pure computation: no file I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from tablewatch.rules.edge import (
    aces_up,
    five_card_bonus,
    four_card_poker_ante,
    let_it_ride_main,
    three_card_bonus,
)
from tablewatch.rules.edge.result import EdgeResult
from tablewatch.rules.paytables.aces_up import ACES_UP
from tablewatch.rules.paytables.five_card_bonus import FIVE_CARD_BONUS
from tablewatch.rules.paytables.let_it_ride_main import MAIN
from tablewatch.rules.paytables.table import PayTable
from tablewatch.rules.paytables.three_card_bonus import THREE_CARD_BONUS

__all__ = [
    "EXACT",
    "MONTE_CARLO",
    "WAGERS",
    "EdgeResult",
    "ExactWager",
    "aces_up",
    "exact_edge",
    "five_card_bonus",
    "four_card_poker_ante",
    "let_it_ride_main",
    "three_card_bonus",
    "wagers_of",
]


@dataclass(frozen=True, slots=True)
class ExactWager:
    """A wager whose edge is an exact enumeration, one per pay table letter."""

    game: str
    wager: str
    tables: Mapping[str, PayTable]
    compute: Callable[[str], EdgeResult]


EXACT: dict[tuple[str, str], ExactWager] = {
    (w.game, w.wager): w
    for w in (
        ExactWager("let_it_ride", "main", MAIN, let_it_ride_main.edge),
        ExactWager("let_it_ride", "three_card_bonus", THREE_CARD_BONUS, three_card_bonus.edge),
        ExactWager("let_it_ride", "five_card_bonus", FIVE_CARD_BONUS, five_card_bonus.edge),
        ExactWager("four_card_poker", "aces_up", ACES_UP, aces_up.edge),
    )
}
MONTE_CARLO = {("four_card_poker", "ante")}

WAGERS: dict[str, tuple[str, ...]] = {
    "four_card_poker": ("ante", "aces_up"),
    "let_it_ride": ("main", "three_card_bonus", "five_card_bonus"),
}


def wagers_of(game: str) -> tuple[str, ...]:
    return WAGERS.get(game, ())


def exact_edge(game: str, wager: str, letter: str) -> EdgeResult:
    """House edge of an exactly enumerated wager; ``KeyError`` for an unknown one."""
    spec = EXACT[(game, wager)]
    if letter not in spec.tables:
        raise KeyError(letter)
    return spec.compute(letter)
