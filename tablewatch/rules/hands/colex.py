"""Combinations of cards in colexicographic order, and their indices.

The colex index of a set of distinct cards ``c_0 < c_1 < ... < c_{k-1}`` is
``sum(C(c_i, i + 1))``: a bijection from the ``k``-subsets of ``0..n-1`` onto
``0..C(n, k)-1``, and the index of a subset does not depend on ``n``.  The
per-hand-size lookup tables (``five_card_table()``...) are stored in this
order, so ``table[colex_index(hand)]`` is the strength of ``hand`` and
``table`` lines up row for row with ``all_combinations(52, k)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from math import comb

import numpy as np
import numpy.typing as npt

from tablewatch.rules.cards import DECK_SIZE

MAX_K = 7
"""Largest subset size the index tables cover (a 7-card hand)."""

_BINOMIALS = np.array(
    [[comb(n, k) for k in range(MAX_K + 1)] for n in range(DECK_SIZE + 1)], dtype=np.int64
)
_BINOMIALS.flags.writeable = False


def n_combinations(n_cards: int, k: int) -> int:
    """``C(n_cards, k)``."""
    return comb(n_cards, k)


def colex_index(cards: Sequence[int]) -> int:
    """Colex index of a set of distinct cards (any order)."""
    return sum(comb(c, i + 1) for i, c in enumerate(sorted(cards)))


def colex_index_batch(
    cards: npt.ArrayLike, *, assume_sorted: bool = False
) -> npt.NDArray[np.int64]:
    """Colex index of each row of an ``(N, k)`` array of distinct cards.

    Rows are sorted first unless ``assume_sorted`` (ascending) is given.
    """
    arr = np.asarray(cards)
    if arr.ndim != 2 or not 1 <= arr.shape[1] <= MAX_K:
        raise ValueError(f"expected an (N, k) array with 1 <= k <= {MAX_K}, got {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"cards must be integers, got {arr.dtype}")
    if arr.size and (int(arr.min()) < 0 or int(arr.max()) >= DECK_SIZE):
        raise ValueError(f"cards must be in 0..{DECK_SIZE - 1}")
    if not assume_sorted:
        arr = np.sort(arr, axis=1)
    index = np.zeros(arr.shape[0], dtype=np.int64)
    for i in range(arr.shape[1]):
        index += _BINOMIALS[arr[:, i], i + 1]
    return index


def all_combinations(
    n_cards: int, k: int, dtype: npt.DTypeLike = np.uint8
) -> npt.NDArray[np.integer]:
    """Every ``k``-subset of ``0..n_cards-1`` as a ``(C(n_cards, k), k)`` array.

    Rows ascend within themselves and are in colex order, so row ``i`` has colex
    index ``i``.  The default dtype (``uint8``) keeps the 5-card enumeration at
    13 MB; pass ``dtype`` for something wider.  The result is cached and
    read-only.
    """
    if not 0 <= n_cards <= DECK_SIZE or not 1 <= k <= MAX_K:
        raise ValueError(f"need 0 <= n_cards <= {DECK_SIZE} and 1 <= k <= {MAX_K}")
    return _all_combinations(n_cards, k, np.dtype(dtype))


@cache
def _all_combinations(n_cards: int, k: int, dtype: np.dtype[np.integer]) -> npt.NDArray[np.integer]:
    # Colex order: group by the largest card t; the rows below t are the
    # (j-1)-subsets of 0..t-1 in colex order, which are the first C(t, j-1)
    # rows of the (j-1)-subsets of 0..n-1.
    previous = np.arange(n_cards, dtype=dtype).reshape(-1, 1)
    for j in range(2, k + 1):
        out = np.empty((comb(n_cards, j), j), dtype=dtype)
        row = 0
        for top in range(j - 1, n_cards):
            count = comb(top, j - 1)
            out[row : row + count, : j - 1] = previous[:count]
            out[row : row + count, j - 1] = top
            row += count
        previous = out
    previous.flags.writeable = False
    return previous
