"""Three-card poker hands: the three-card poker ranking.

A straight beats a flush; A-2-3 is a straight, K-A-2 is not; the ace-king-queen
straight flush (mini-royal) is a category of its own above the other straight
flushes.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from functools import cache
from typing import Final

import numpy as np
import numpy.typing as npt

from tablewatch.rules.hands.colex import all_combinations
from tablewatch.rules.hands.keyed_tables import (
    FLUSH_OFFSET_3,
    RANK_KEYS_3,
    KeyedTables,
    best_of_batch,
    build_keyed_tables,
)
from tablewatch.rules.hands.strength import grouped_ranks, pack_strength, straight_high


class Hand3(IntEnum):
    """Three-card categories, ascending."""

    HIGH_CARD = 0
    PAIR = 1
    FLUSH = 2
    STRAIGHT = 3
    THREE_OF_A_KIND = 4
    STRAIGHT_FLUSH = 5
    MINI_ROYAL = 6


_BY_GROUPS: Final = {
    (3,): Hand3.THREE_OF_A_KIND,
    (2, 1): Hand3.PAIR,
    (1, 1, 1): Hand3.HIGH_CARD,
}


def rank_strength3(ranks: tuple[int, ...], flush: bool) -> int:
    """Strength of three cards from their ranks (descending) and whether they are suited."""
    sizes, order = grouped_ranks(ranks)
    high = straight_high(ranks)
    if high is not None:
        if flush:
            category = Hand3.MINI_ROYAL if high == 12 else Hand3.STRAIGHT_FLUSH
        else:
            category = Hand3.STRAIGHT
        return pack_strength(category, (high,))
    if flush:
        return pack_strength(Hand3.FLUSH, order)
    return pack_strength(_BY_GROUPS[sizes], order)


@cache
def keyed_tables3() -> KeyedTables:
    return build_keyed_tables(3, RANK_KEYS_3, rank_strength3, FLUSH_OFFSET_3)


_V3: Final[list[int]] = []
_F3: Final[list[int]] = []
_T3: Final[list[int]] = []


def _build_scalar_tables() -> bool:
    if _V3:
        return False
    tables = keyed_tables3()
    _T3[:] = tables.table
    _F3[:] = tables.flush_offset
    _V3[:] = tables.card_values
    return True


def strength3(cards: Sequence[int]) -> int:
    """Strength of three cards.

    The cards must be three distinct ints in ``0..51``, in any order; for speed,
    duplicates and negative ints are not detected.
    """
    try:
        a, b, c = cards
        s = _V3[a] + _V3[b] + _V3[c]
        return _T3[(s >> 12) + _F3[s & 4095]]
    except IndexError:
        if _build_scalar_tables():
            return strength3(cards)
        raise ValueError(f"expected 3 distinct cards in 0..51, got {cards!r}") from None
    except ValueError:
        raise ValueError(f"expected 3 distinct cards in 0..51, got {cards!r}") from None


def strength3_batch(cards: npt.ArrayLike) -> npt.NDArray[np.int32]:
    """``strength3`` of each row of an ``(N, 3)`` integer array (any card order)."""
    return best_of_batch(cards, 3, keyed_tables3())


@cache
def three_card_table() -> npt.NDArray[np.int32]:
    """``strength3`` of every 3-card hand, by colex index (read-only, built once)."""
    table = strength3_batch(all_combinations(52, 3))
    table.flags.writeable = False
    return table
