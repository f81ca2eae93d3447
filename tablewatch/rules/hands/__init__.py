"""Poker hand strengths of three, four and five cards (the games' rankings, which their
descriptors in :mod:`tablewatch.rules.games` cite).

Cards are ints ``rank * 4 + suit`` (see :mod:`tablewatch.rules.cards`).  Every
evaluator returns an ``int`` strength in the shared encoding of
:mod:`tablewatch.rules.hands.strength`: higher is better, equal is a tie, and
``category_of`` gives the value of the game's category enum.

Scalar functions take any sequence of card ints; ``*_batch`` functions take an
``(N, k)`` integer array and return ``int32`` strengths.  ``*_table()`` give the
strength of every hand of a size by colex index (rows of ``all_combinations``),
for exact enumeration.  Lookup data is built lazily on first use.
"""

from tablewatch.rules.hands.colex import (
    all_combinations,
    colex_index,
    colex_index_batch,
    n_combinations,
)
from tablewatch.rules.hands.five_card import (
    Hand5,
    best5of6,
    best5of6_batch,
    best5of7,
    best5of7_batch,
    five_card_table,
    strength5,
    strength5_batch,
)
from tablewatch.rules.hands.four_card import (
    Hand4,
    best4of5,
    best4of5_batch,
    best4of5_table,
    best4of6,
    best4of6_batch,
    four_card_table,
    strength4,
    strength4_batch,
)
from tablewatch.rules.hands.strength import (
    CATEGORY_SHIFT,
    category_of,
    leading_rank,
    pack_strength,
    rank_nibbles,
)
from tablewatch.rules.hands.three_card import (
    Hand3,
    strength3,
    strength3_batch,
    three_card_table,
)

__all__ = [
    "CATEGORY_SHIFT",
    "Hand3",
    "Hand4",
    "Hand5",
    "all_combinations",
    "best4of5",
    "best4of5_batch",
    "best4of5_table",
    "best4of6",
    "best4of6_batch",
    "best5of6",
    "best5of6_batch",
    "best5of7",
    "best5of7_batch",
    "category_of",
    "colex_index",
    "colex_index_batch",
    "five_card_table",
    "four_card_table",
    "leading_rank",
    "n_combinations",
    "pack_strength",
    "rank_nibbles",
    "strength3",
    "strength3_batch",
    "strength4",
    "strength4_batch",
    "strength5",
    "strength5_batch",
    "three_card_table",
]
