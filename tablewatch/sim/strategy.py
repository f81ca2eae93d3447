"""How simulated players decide: a plausible Let It Ride strategy, Four Card Poker raise or fold."""

from __future__ import annotations

from collections.abc import Sequence

from tablewatch.rules.cards import TEN, Card, rank_of, suit_of
from tablewatch.rules.hands import Hand4, best4of5, category_of, leading_rank
from tablewatch.rules.settlement.expected import distinct


def let_it_ride_keeps_bet1(cards: Sequence[Card]) -> bool:
    """Ride Bet 1 with a paying pair or trips, or three suited cards close together."""
    ranks = sorted(rank_of(c) for c in cards)
    if len(set(ranks)) < 3:
        pair = max(r for r in ranks if ranks.count(r) > 1)
        return pair >= TEN
    suited = len({suit_of(c) for c in cards}) == 1
    span = ranks[-1] - ranks[0]
    high = sum(r >= TEN for r in ranks)
    return suited and ((span <= 2 and ranks[0] >= 2) or (span <= 4 and high >= 2))


def let_it_ride_keeps_bet2(cards: Sequence[Card]) -> bool:
    """Ride Bet 2 with a paying hand, four to a flush, or four to an open straight."""
    ranks = sorted(rank_of(c) for c in cards)
    counts = {r: ranks.count(r) for r in ranks}
    if any(n >= 2 and (r >= TEN or n >= 3) for r, n in counts.items()):
        return True
    if sum(n >= 2 for n in counts.values()) >= 2:
        return True
    if len({suit_of(c) for c in cards}) == 1:
        return True
    distinct = sorted(counts)
    return len(distinct) == 4 and distinct[-1] - distinct[0] == 3 and 0 < distinct[0] < 9


def four_card_poker_play(cards: Sequence[Card], ante: int) -> int:
    """Play 3x with a pair of tens or better, 1x with a pair of threes to nines; else fold (0).

    A hand holding the same card twice (an injected DUPLICATE_CARD) has no rank: play 1x.
    """
    if not distinct(cards):
        return ante
    hand = best4of5(cards)
    category = category_of(hand)
    if category > Hand4.PAIR:
        return 3 * ante
    if category == Hand4.PAIR:
        rank = leading_rank(hand)
        if rank >= TEN:
            return 3 * ante
        if rank >= 1:
            return ante
    return 0
