"""How many of the C(52, 7) = 133,784,560 seven-card hands have each best-five strength.

Exact, without dealing the hands: for every multiset of seven ranks (no rank
more than four times) the number of ways to give its cards suits is the
product of C(4, copies) over its ranks. At most one suit can hold five of
seven cards, so the suitings with a flush are counted by the set ``T`` of
the ranks (five or more, distinct) that take the flush suit: four suits,
times C(3, copies - 1) for each rank of ``T`` and C(3, copies) for each other
rank (their cards in the other three suits). Such a hand's best five is the
better of its best flush (five of ``T``) and its best hand of ranks alone; a
flush leaves no room for four of a kind or a full house. The rest of the
suitings score by ranks alone.

Every five-card strength comes from the same tables the evaluators use
(:func:`~tablewatch.rules.hands.five_card.keyed_tables5`): a hand's rank sum,
and for a flush the flush region's offset.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import combinations
from math import comb, prod

from tablewatch.rules.hands.five_card import keyed_tables5
from tablewatch.rules.hands.keyed_tables import FLUSH_OFFSET_5, RANK_KEYS_5, rank_multisets

SEVEN_CARD_HANDS: int = comb(52, 7)
SUITS = 4


@cache
def seven_card_strength_counts() -> dict[int, int]:
    """Best-five strength -> how many seven-card hands have it (the counts sum to
    C(52, 7)). Built once (about a second)."""
    table = keyed_tables5().table
    offset = FLUSH_OFFSET_5  # where the table's flush region starts
    keys = RANK_KEYS_5
    counts: Counter[int] = Counter()
    for ranks in rank_multisets(7):
        copies = Counter(ranks)
        plain = max(table[sum(keys[r] for r in five)] for five in set(combinations(ranks, 5)))
        suitings = prod(comb(SUITS, n) for n in copies.values())
        distinct = sorted(copies, reverse=True)
        flushed = 0
        for size in range(5, len(distinct) + 1):
            for suited in combinations(distinct, size):
                ways = SUITS * prod(
                    comb(SUITS - 1, n - 1) if rank in suited else comb(SUITS - 1, n)
                    for rank, n in copies.items()
                )
                if not ways:
                    continue
                flush = max(
                    table[offset + sum(keys[r] for r in five)] for five in combinations(suited, 5)
                )
                counts[max(flush, plain)] += ways
                flushed += ways
        counts[plain] += suitings - flushed
    if sum(counts.values()) != SEVEN_CARD_HANDS:
        raise AssertionError("the seven-card counts do not add up to C(52, 7)")
    return dict(counts)
