"""Order-free lookup by summing per-card keys (the engine behind the evaluators).

Each card gets the value ``rank_key[rank] << 12 | 1 << 3 * suit``.  Summing the
values of a hand needs no sorting and gives, side by side,

* the *rank sum* (bits 12 and up): the rank keys are chosen so that different
  multisets of ranks (each rank at most four times) have different sums, so the
  rank sum identifies the ranks of the hand;
* the *suit counts* (bits 0..11): one 3-bit counter per suit, enough for up to
  seven cards.

``flush_offset[suit counts]`` is ``0`` unless the hand is a flush, in which case
it moves the lookup into a second region of the same ``table``; the flush
region is placed at the smallest offset whose slots are all unused by
non-flush hands, so the two regions interleave instead of doubling the table.
A scalar evaluation is five list lookups, four additions and two more lookups.

The rank keys were found once by a greedy search (each key the smallest value
above the previous one that keeps all the multiset sums distinct), and the
flush offsets once by :func:`free_offset`; both are hard-coded and re-checked
whenever tables are built (searching for the offset again took about a third
of the build, which every audit pays on its first hand).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations, combinations_with_replacement

import numpy as np
import numpy.typing as npt

from tablewatch.rules.cards import DECK_SIZE
from tablewatch.rules.hands.strength import NO_HAND

SUIT_BITS = 12
SUIT_MASK = (1 << SUIT_BITS) - 1
MAX_ROW_CARDS = 7
"""The 3-bit suit counters, and the int32 sums, hold up to seven cards."""

# Greedy "distinct multiset sums" keys, one list per hand size (rank 0 = two).
RANK_KEYS_5 = (0, 1, 5, 22, 94, 312, 992, 2422, 5624, 12522, 19998, 43258, 79415)
RANK_KEYS_4 = (0, 1, 5, 21, 55, 153, 368, 856, 1424, 2603, 4967, 8194, 13663)
RANK_KEYS_3 = (0, 1, 4, 13, 32, 71, 124, 218, 375, 572, 744, 1208, 1556)
# Where each size's flush region starts (free_offset of its tables, found once).
FLUSH_OFFSET_5 = 7878
FLUSH_OFFSET_4 = 18498
FLUSH_OFFSET_3 = 2762

RankEvaluator = Callable[[tuple[int, ...], bool], int]
"""``(ranks in descending order, is_flush) -> strength``."""


Arrays = tuple[npt.NDArray[np.int32], npt.NDArray[np.int32], npt.NDArray[np.int32]]


@dataclass(slots=True, eq=False)
class KeyedTables:
    """Lookup data for one hand size, as Python lists (scalar) and arrays (batch)."""

    hand_size: int
    card_values: list[int]
    flush_offset: list[int]
    table: list[int]
    _arrays: Arrays | None = field(default=None, init=False, repr=False)

    def arrays(self) -> Arrays:
        """(card values, flush offsets, table) as read-only arrays, made on first use: the
        scalar evaluators (an audit) never need them."""
        if self._arrays is None:
            self._arrays = (
                _frozen(self.card_values),
                _frozen(self.flush_offset),
                _frozen(self.table),
            )
        return self._arrays


def card_values(rank_keys: Sequence[int]) -> list[int]:
    return [rank_keys[c >> 2] << SUIT_BITS | 1 << 3 * (c & 3) for c in range(DECK_SIZE)]


@cache
def rank_multisets(size: int, max_copies: int = 4) -> tuple[tuple[int, ...], ...]:
    """Every multiset of ``size`` ranks (no rank more than ``max_copies`` times), descending.

    A rank is in a sorted multiset more than ``max_copies`` times exactly when
    it is also ``max_copies`` places further on.
    """
    over = range(size - max_copies)
    return tuple(
        ms
        for ms in combinations_with_replacement(range(12, -1, -1), size)
        if not any(ms[i] == ms[i + max_copies] for i in over)
    )


def rank_sum(ranks: Sequence[int], rank_keys: Sequence[int]) -> int:
    return sum(rank_keys[r] for r in ranks)


def build_rank_sum_table(
    size: int, rank_keys: Sequence[int], evaluate: Callable[[tuple[int, ...]], int]
) -> list[int]:
    """``table[rank sum] = evaluate(ranks)`` over every rank multiset of ``size``."""
    by_sum: dict[int, int] = {}
    for ranks in rank_multisets(size):
        key = rank_sum(ranks, rank_keys)
        if key in by_sum:
            raise AssertionError(f"rank keys collide for {size}-card rank sum {key}")
        by_sum[key] = evaluate(ranks)
    table = [NO_HAND] * (max(by_sum) + 1)
    for key, value in by_sum.items():
        table[key] = value
    return table


def build_keyed_tables(
    hand_size: int, rank_keys: Sequence[int], evaluate: RankEvaluator, offset: int | None = None
) -> KeyedTables:
    """Tables for ``hand_size``-card hands scored by ``evaluate``; the flush region starts
    at ``offset`` (checked), or at :func:`free_offset` if it is None."""
    plain = build_rank_sum_table(hand_size, rank_keys, lambda ranks: evaluate(ranks, False))
    suited = {
        rank_sum(ranks, rank_keys): evaluate(ranks, True)
        for ranks in combinations(range(12, -1, -1), hand_size)
    }
    if offset is None:
        offset = free_offset(plain, list(suited))
    elif offset < 1 or any(
        offset + key < len(plain) and plain[offset + key] != NO_HAND for key in suited
    ):
        raise AssertionError(f"flush offset {offset} lands {hand_size}-card flushes on used slots")
    table = plain + [NO_HAND] * max(0, offset + max(suited) + 1 - len(plain))
    for key, value in suited.items():
        table[offset + key] = value
    flush_offset = [
        offset if any((counts >> 3 * s) & 7 == hand_size for s in range(4)) else 0
        for counts in range(SUIT_MASK + 1)
    ]
    values = card_values(rank_keys)
    return KeyedTables(
        hand_size=hand_size,
        card_values=values,
        flush_offset=flush_offset,
        table=table,
    )


def free_offset(plain: list[int], keys: list[int]) -> int:
    """Smallest ``offset >= 1`` with every ``plain[offset + key]`` unused (or past the end)."""
    used = np.flatnonzero(np.array(plain) != NO_HAND)
    key_arr = np.array(keys, dtype=np.int64)
    clash = np.zeros(len(plain) + 1, dtype=bool)
    for key in key_arr:  # offsets that would land ``key`` on a used slot
        hits = used - key
        clash[hits[hits >= 0]] = True
    clash[0] = True
    return int(np.argmin(clash))


def _frozen(values: list[int]) -> npt.NDArray[np.int32]:
    arr = np.array(values, dtype=np.int32)
    arr.flags.writeable = False
    return arr


CHUNK_ROWS = 1 << 16


def as_card_rows(cards: npt.ArrayLike, width: int) -> npt.NDArray[np.integer]:
    """Validate an ``(N, width)`` integer array of cards (range checked per chunk later)."""
    arr = np.asarray(cards)
    if arr.ndim != 2 or arr.shape[1] != width:
        raise ValueError(f"expected an (N, {width}) array of cards, got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"cards must be integers, got {arr.dtype}")
    return arr


def best_of_batch(cards: npt.ArrayLike, width: int, tables: KeyedTables) -> npt.NDArray[np.int32]:
    """Best ``tables.hand_size``-card strength within each ``width``-card row.

    With ``width == hand_size`` this is the plain evaluation of each row.
    """
    if not tables.hand_size <= width <= MAX_ROW_CARDS:
        raise ValueError(f"rows of {width} cards cannot hold {tables.hand_size}-card hands")
    arr = as_card_rows(cards, width)
    n = arr.shape[0]
    out = np.empty(n, dtype=np.int32)
    values, flush, table = tables.arrays()
    drops = list(combinations(range(width), width - tables.hand_size))
    for start in range(0, n, CHUNK_ROWS):
        chunk = arr[start : start + CHUNK_ROWS]
        if int(chunk.min()) < 0 or int(chunk.max()) >= DECK_SIZE:
            raise ValueError(f"cards must be in 0..{DECK_SIZE - 1}")
        v = values[chunk]
        total = v[:, 0].copy()
        for i in range(1, width):
            total += v[:, i]
        best: npt.NDArray[np.int32] | None = None
        for drop in drops:
            s = total
            for i in drop:
                s = s - v[:, i]
            strength = table[(s >> SUIT_BITS) + flush[s & SUIT_MASK]]
            best = strength if best is None else np.maximum(best, strength)
        assert best is not None
        out[start : start + CHUNK_ROWS] = best
    return out
