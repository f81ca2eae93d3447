"""The shared hand-strength encoding used by every evaluator in this package.

A strength is a plain ``int``; a higher value is a better hand and equal values
tie (suits are equal in rank). The layout is::

    category << 20 | k0 << 16 | k1 << 12 | k2 << 8 | k3 << 4 | k4

``category`` is the value of the game's category enum (``Hand5``, ``Hand4``,
``Hand3``), ascending with strength, so the category decides first.  ``k0..k4``
are card ranks (``0`` = two .. ``12`` = ace) in order of significance: the
rank of the largest group first (quads, trips, the high pair), then the next
group, then the kickers in descending order; unused nibbles are ``0``.  A
straight or straight flush stores only its high card in ``k0`` (the wheel
A-2-3-4-5 stores the five, the four-card A-2-3-4 the four, the three
card A-2-3 the three).

Every strength of a real hand is positive, so ``0`` is free as a sentinel.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

CATEGORY_SHIFT: Final = 20
RANK_BITS: Final = 4
MAX_KICKERS: Final = 5

NO_HAND: Final = 0
"""Never the strength of a real hand (a high-card hand has distinct ranks)."""


def pack_strength(category: int, ranks: Sequence[int]) -> int:
    """Encode ``category`` and up to five ranks (most significant first)."""
    if len(ranks) > MAX_KICKERS:
        raise ValueError(f"at most {MAX_KICKERS} ranks, got {len(ranks)}")
    value = category
    for i in range(MAX_KICKERS):
        rank = ranks[i] if i < len(ranks) else 0
        if not 0 <= rank <= 12:
            raise ValueError(f"rank {rank} is not in 0..12")
        value = value << RANK_BITS | rank
    return value


def category_of(strength: int) -> int:
    """The category number (compare with the game's enum, e.g. ``Hand5.FLUSH``)."""
    return strength >> CATEGORY_SHIFT


def leading_rank(strength: int) -> int:
    """``k0``: the rank that names the hand (pair rank, trips rank, straight's high card...)."""
    return (strength >> 16) & 0xF


def rank_nibbles(strength: int) -> tuple[int, int, int, int, int]:
    """``(k0, k1, k2, k3, k4)`` in order of significance; unused ones are ``0``."""
    return (
        (strength >> 16) & 0xF,
        (strength >> 12) & 0xF,
        (strength >> 8) & 0xF,
        (strength >> 4) & 0xF,
        strength & 0xF,
    )


def grouped_ranks(ranks: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``(group sizes, distinct ranks)``, both ordered by group size then rank, descending.

    ``(9, 12, 9, 5, 1)`` -> ``((2, 1, 1, 1), (9, 12, 5, 1))``: the distinct ranks
    are exactly the ``k`` nibbles of every non-straight category.
    """
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    order = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    return tuple(counts[r] for r in order), tuple(order)


def straight_high(ranks: Sequence[int]) -> int | None:
    """High card of a straight of ``len(ranks)`` distinct ranks, else ``None``.

    The ace is high (``...-K-A``) or low (``A-2-...``, whose high card is then the
    top of the run); it never wraps (``K-A-2``).  ``ranks`` must be descending.
    """
    n = len(ranks)
    if len(set(ranks)) != n:
        return None
    if ranks[0] - ranks[-1] == n - 1:
        return ranks[0]
    if ranks[0] == 12 and ranks[1] == n - 2 and ranks[-1] == 0:
        return n - 2
    return None
