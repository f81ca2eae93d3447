"""Four-card poker hands: the four-card poker ranking.

Unlike five-card poker, three of a kind beats a straight and a flush, and four
of a kind beats a straight flush.  ``best4of5`` is the best four of five cards,
``best4of6`` the best four of six.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from functools import cache
from itertools import combinations
from typing import Final

import numpy as np
import numpy.typing as npt

from tablewatch.rules.hands.colex import all_combinations
from tablewatch.rules.hands.keyed_tables import (
    FLUSH_OFFSET_4,
    RANK_KEYS_4,
    RANK_KEYS_5,
    SUIT_MASK,
    KeyedTables,
    best_of_batch,
    build_keyed_tables,
    build_rank_sum_table,
    card_values,
)
from tablewatch.rules.hands.strength import grouped_ranks, pack_strength, straight_high


class Hand4(IntEnum):
    """Four-card poker categories, ascending."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    STRAIGHT = 3
    FLUSH = 4
    THREE_OF_A_KIND = 5
    STRAIGHT_FLUSH = 6
    FOUR_OF_A_KIND = 7


_BY_GROUPS: Final = {
    (4,): Hand4.FOUR_OF_A_KIND,
    (3, 1): Hand4.THREE_OF_A_KIND,
    (2, 2): Hand4.TWO_PAIR,
    (2, 1, 1): Hand4.PAIR,
    (1, 1, 1, 1): Hand4.HIGH_CARD,
}


def rank_strength4(ranks: tuple[int, ...], flush: bool) -> int:
    """Strength of four cards from their ranks (descending) and whether they are suited."""
    sizes, order = grouped_ranks(ranks)
    high = straight_high(ranks)
    if high is not None:
        return pack_strength(Hand4.STRAIGHT_FLUSH if flush else Hand4.STRAIGHT, (high,))
    if flush:
        return pack_strength(Hand4.FLUSH, order)
    return pack_strength(_BY_GROUPS[sizes], order)


@cache
def _plain4(ranks: tuple[int, ...]) -> int:
    return rank_strength4(ranks, False)


def _best4_of_ranks(ranks: tuple[int, ...]) -> int:
    return max(_plain4(sub) for sub in combinations(ranks, 4))


@cache
def keyed_tables4() -> KeyedTables:
    return build_keyed_tables(4, RANK_KEYS_4, rank_strength4, FLUSH_OFFSET_4)


# Scalar lookup lists, filled in place on first use; _V45 is filled last, _V4 just
# before it, so an empty one of those means "not built yet" for its readers.
_V4: Final[list[int]] = []  # 4-card keys
_F4: Final[list[int]] = []
_T4: Final[list[int]] = []
# best4of5 shortcut: with no four cards of one suit, the best four of five
# depends only on the five ranks, looked up by their 5-card rank-key sum.
_V45: Final[list[int]] = []  # 5-card keys
_SUITED4: Final[list[bool]] = []  # suit counters -> some suit has four or more cards
_B45: Final[list[int]] = []


def _build_scalar_tables() -> bool:
    if _V45:
        return False
    tables = keyed_tables4()
    _T4[:] = tables.table
    _F4[:] = tables.flush_offset
    _B45[:] = build_rank_sum_table(5, RANK_KEYS_5, _best4_of_ranks)
    _SUITED4[:] = [
        any((counts >> 3 * s) & 7 >= 4 for s in range(4)) for counts in range(SUIT_MASK + 1)
    ]
    _V4[:] = tables.card_values
    _V45[:] = card_values(RANK_KEYS_5)  # last: every other list is ready once this is
    return True


def _bad_cards(cards: Sequence[int], n: int) -> ValueError:
    return ValueError(f"expected {n} distinct cards in 0..51, got {cards!r}")


def strength4(cards: Sequence[int]) -> int:
    """Strength of four cards.

    The cards must be four distinct ints in ``0..51``, in any order; for speed,
    duplicates and negative ints are not detected.
    """
    try:
        a, b, c, d = cards
        s = _V4[a] + _V4[b] + _V4[c] + _V4[d]
        return _T4[(s >> 12) + _F4[s & 4095]]
    except IndexError:
        if _build_scalar_tables():
            return strength4(cards)
        raise _bad_cards(cards, 4) from None
    except ValueError:
        raise _bad_cards(cards, 4) from None


def _best4of5_suited(a: int, b: int, c: int, d: int, e: int) -> int:
    w = _V4
    wa, wb, wc, wd, we = w[a], w[b], w[c], w[d], w[e]
    t = wa + wb + wc + wd + we
    table, flush = _T4, _F4
    sa, sb, sc, sd, se = t - wa, t - wb, t - wc, t - wd, t - we
    return max(
        table[(sa >> 12) + flush[sa & 4095]],
        table[(sb >> 12) + flush[sb & 4095]],
        table[(sc >> 12) + flush[sc & 4095]],
        table[(sd >> 12) + flush[sd & 4095]],
        table[(se >> 12) + flush[se & 4095]],
    )


def _best4of6_suited(a: int, b: int, c: int, d: int, e: int, f: int) -> int:
    w = _V4
    wa, wb, wc, wd, we, wf = w[a], w[b], w[c], w[d], w[e], w[f]
    t = wa + wb + wc + wd + we + wf
    table, flush = _T4, _F4
    best = 0
    for s in (
        t - wa - wb,
        t - wa - wc,
        t - wa - wd,
        t - wa - we,
        t - wa - wf,
        t - wb - wc,
        t - wb - wd,
        t - wb - we,
        t - wb - wf,
        t - wc - wd,
        t - wc - we,
        t - wc - wf,
        t - wd - we,
        t - wd - wf,
        t - we - wf,
    ):
        value = table[(s >> 12) + flush[s & 4095]]
        if value > best:
            best = value
    return best


def best4of5(cards: Sequence[int]) -> int:
    """Best four-card strength among five cards."""
    try:
        a, b, c, d, e = cards
        s = _V45[a] + _V45[b] + _V45[c] + _V45[d] + _V45[e]
    except IndexError:
        if _build_scalar_tables():
            return best4of5(cards)
        raise _bad_cards(cards, 5) from None
    except ValueError:
        raise _bad_cards(cards, 5) from None
    if _SUITED4[s & 4095]:
        return _best4of5_suited(a, b, c, d, e)
    return _B45[s >> 12]


def best4of6(cards: Sequence[int]) -> int:
    """Best four-card strength among six cards."""
    try:
        a, b, c, d, e, f = cards
        v = _V45
        va, vb, vc, vd, ve, vf = v[a], v[b], v[c], v[d], v[e], v[f]
    except IndexError:
        if _build_scalar_tables():
            return best4of6(cards)
        raise _bad_cards(cards, 6) from None
    except ValueError:
        raise _bad_cards(cards, 6) from None
    t = va + vb + vc + vd + ve + vf
    if _SUITED4[t & 4095]:
        return _best4of6_suited(a, b, c, d, e, f)
    table = _B45
    return max(
        table[(t - va) >> 12],
        table[(t - vb) >> 12],
        table[(t - vc) >> 12],
        table[(t - vd) >> 12],
        table[(t - ve) >> 12],
        table[(t - vf) >> 12],
    )


def strength4_batch(cards: npt.ArrayLike) -> npt.NDArray[np.int32]:
    """``strength4`` of each row of an ``(N, 4)`` integer array (any card order)."""
    return best_of_batch(cards, 4, keyed_tables4())


def best4of5_batch(cards: npt.ArrayLike) -> npt.NDArray[np.int32]:
    """``best4of5`` of each row of an ``(N, 5)`` integer array."""
    return best_of_batch(cards, 5, keyed_tables4())


def best4of6_batch(cards: npt.ArrayLike) -> npt.NDArray[np.int32]:
    """``best4of6`` of each row of an ``(N, 6)`` integer array."""
    return best_of_batch(cards, 6, keyed_tables4())


@cache
def four_card_table() -> npt.NDArray[np.int32]:
    """``strength4`` of every 4-card hand, by colex index (read-only, built once)."""
    table = strength4_batch(all_combinations(52, 4))
    table.flags.writeable = False
    return table


@cache
def best4of5_table() -> npt.NDArray[np.int32]:
    """``best4of5`` of every 5-card hand, by colex index (read-only, built once)."""
    table = best4of5_batch(all_combinations(52, 5))
    table.flags.writeable = False
    return table
