"""Five-card poker hands: the standard five-card poker ranking.

Also ``best5of6`` for the best five of six cards (a hand and a shared area of
three), and ``best5of7`` for
a hold 'em hand (two cards of one's own and five community cards).
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
    FLUSH_OFFSET_5,
    RANK_KEYS_5,
    KeyedTables,
    best_of_batch,
    build_keyed_tables,
)
from tablewatch.rules.hands.strength import grouped_ranks, pack_strength, straight_high


class Hand5(IntEnum):
    """Five-card categories, ascending (a regulation lists them descending)."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9


_BY_GROUPS: Final = {
    (4, 1): Hand5.FOUR_OF_A_KIND,
    (3, 2): Hand5.FULL_HOUSE,
    (3, 1, 1): Hand5.THREE_OF_A_KIND,
    (2, 2, 1): Hand5.TWO_PAIR,
    (2, 1, 1, 1): Hand5.PAIR,
    (1, 1, 1, 1, 1): Hand5.HIGH_CARD,
}


def rank_strength5(ranks: tuple[int, ...], flush: bool) -> int:
    """Strength of five cards from their ranks (descending) and whether they are suited."""
    sizes, order = grouped_ranks(ranks)
    high = straight_high(ranks)
    if high is not None:
        if flush:
            category = Hand5.ROYAL_FLUSH if high == 12 else Hand5.STRAIGHT_FLUSH
        else:
            category = Hand5.STRAIGHT
        return pack_strength(category, (high,))
    if flush:
        return pack_strength(Hand5.FLUSH, order)
    return pack_strength(_BY_GROUPS[sizes], order)


@cache
def keyed_tables5() -> KeyedTables:
    return build_keyed_tables(5, RANK_KEYS_5, rank_strength5, FLUSH_OFFSET_5)


# Filled in place on first use; _V5 last, as an empty _V5 is the "not built" signal.
_V5: Final[list[int]] = []
_F5: Final[list[int]] = []
_T5: Final[list[int]] = []


def _build_scalar_tables() -> bool:
    if _V5:
        return False
    tables = keyed_tables5()
    _T5[:] = tables.table
    _F5[:] = tables.flush_offset
    _V5[:] = tables.card_values
    return True


def _bad_cards(cards: Sequence[int], n: int) -> ValueError:
    return ValueError(f"expected {n} distinct cards in 0..51, got {cards!r}")


def strength5(cards: Sequence[int]) -> int:
    """Strength of five cards.

    The cards must be five distinct ints in ``0..51``, in any order; for speed,
    duplicates and negative ints are not detected (out-of-range and wrong counts
    raise ``ValueError``).
    """
    try:
        a, b, c, d, e = cards
        s = _V5[a] + _V5[b] + _V5[c] + _V5[d] + _V5[e]
        return _T5[(s >> 12) + _F5[s & 4095]]
    except IndexError:
        if _build_scalar_tables():
            return strength5(cards)
        raise _bad_cards(cards, 5) from None
    except ValueError:
        raise _bad_cards(cards, 5) from None


def best5of6(cards: Sequence[int]) -> int:
    """Best five-card strength among six cards."""
    try:
        a, b, c, d, e, f = cards
        v = _V5
        va, vb, vc, vd, ve, vf = v[a], v[b], v[c], v[d], v[e], v[f]
    except IndexError:
        if _build_scalar_tables():
            return best5of6(cards)
        raise _bad_cards(cards, 6) from None
    except ValueError:
        raise _bad_cards(cards, 6) from None
    t = va + vb + vc + vd + ve + vf
    table, flush = _T5, _F5
    sa, sb, sc, sd, se, sf = t - va, t - vb, t - vc, t - vd, t - ve, t - vf
    return max(
        table[(sa >> 12) + flush[sa & 4095]],
        table[(sb >> 12) + flush[sb & 4095]],
        table[(sc >> 12) + flush[sc & 4095]],
        table[(sd >> 12) + flush[sd & 4095]],
        table[(se >> 12) + flush[se & 4095]],
        table[(sf >> 12) + flush[sf & 4095]],
    )


_DROP_PAIRS: Final = tuple((i, j) for i in range(7) for j in range(i + 1, 7))
"""The 21 ways to leave two of seven cards out."""


def best5of7(cards: Sequence[int]) -> int:
    """Best five-card strength among seven cards (two of a player's or the dealer's own and
    five community cards)."""
    if len(cards) != 7:
        raise _bad_cards(cards, 7)
    v = _V5
    try:
        values = [v[c] for c in cards]
    except IndexError:
        if _build_scalar_tables():
            return best5of7(cards)
        raise _bad_cards(cards, 7) from None
    except TypeError:
        raise _bad_cards(cards, 7) from None
    t = sum(values)
    table, flush = _T5, _F5
    best = 0
    for i, j in _DROP_PAIRS:
        s = t - values[i] - values[j]
        strength = table[(s >> 12) + flush[s & 4095]]
        if strength > best:
            best = strength
    return best


def strength5_batch(cards: npt.ArrayLike) -> npt.NDArray[np.int32]:
    """``strength5`` of each row of an ``(N, 5)`` integer array (any card order)."""
    return best_of_batch(cards, 5, keyed_tables5())


def best5of6_batch(cards: npt.ArrayLike) -> npt.NDArray[np.int32]:
    """``best5of6`` of each row of an ``(N, 6)`` integer array."""
    return best_of_batch(cards, 6, keyed_tables5())


def best5of7_batch(cards: npt.ArrayLike) -> npt.NDArray[np.int32]:
    """``best5of7`` of each row of an ``(N, 7)`` integer array."""
    return best_of_batch(cards, 7, keyed_tables5())


@cache
def five_card_table() -> npt.NDArray[np.int32]:
    """``strength5`` of every 5-card hand, by colex index (read-only, built once).

    Row ``i`` is the hand ``all_combinations(52, 5)[i]``.
    """
    table = strength5_batch(all_combinations(52, 5))
    table.flags.writeable = False
    return table
