"""Names of the hands pay tables pay, most specific first.

Each function returns the names a hand answers to, in order of preference:
four aces is ``("four_aces", "four_of_a_kind")``, so a table without a row
for four aces pays it as four-of-a-kind. A hand no table pays returns ``()``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Final

from tablewatch.rules.cards import ACE, KING, QUEEN, SPADES, TEN, Card, rank_of, suit_of
from tablewatch.rules.hands import Hand3, Hand4, Hand5, category_of, leading_rank

FIVE_CARD_NAMES: Final[dict[Hand5, str]] = {
    Hand5.ROYAL_FLUSH: "royal_flush",
    Hand5.STRAIGHT_FLUSH: "straight_flush",
    Hand5.FOUR_OF_A_KIND: "four_of_a_kind",
    Hand5.FULL_HOUSE: "full_house",
    Hand5.FLUSH: "flush",
    Hand5.STRAIGHT: "straight",
    Hand5.THREE_OF_A_KIND: "three_of_a_kind",
    Hand5.TWO_PAIR: "two_pair",
}
PAIR_OF_TENS_OR_BETTER: Final = "pair_of_tens_or_better"
FIVE_CARD_HAND_KEYS: Final = (*FIVE_CARD_NAMES.values(), PAIR_OF_TENS_OR_BETTER)

FOUR_CARD_NAMES: Final[dict[Hand4, str]] = {
    Hand4.FOUR_OF_A_KIND: "four_of_a_kind",
    Hand4.STRAIGHT_FLUSH: "straight_flush",
    Hand4.THREE_OF_A_KIND: "three_of_a_kind",
    Hand4.FLUSH: "flush",
    Hand4.STRAIGHT: "straight",
    Hand4.TWO_PAIR: "two_pair",
}

THREE_CARD_NAMES: Final[dict[Hand3, str]] = {
    Hand3.STRAIGHT_FLUSH: "straight_flush",
    Hand3.THREE_OF_A_KIND: "three_of_a_kind",
    Hand3.STRAIGHT: "straight",
    Hand3.FLUSH: "flush",
    Hand3.PAIR: "pair",
}


# The names depend on the strength alone (a few thousand values per hand size),
# so they are worked out once per strength: settlement asks for every hand.
@cache
def five_card_names(strength: int) -> tuple[str, ...]:
    """Names of a 5-card hand; pairs below tens answer to nothing."""
    category = Hand5(category_of(strength))
    if category is Hand5.ROYAL_FLUSH:
        return ("royal_flush", "straight_flush")
    if category is Hand5.PAIR:
        return (PAIR_OF_TENS_OR_BETTER,) if leading_rank(strength) >= TEN else ()
    name = FIVE_CARD_NAMES.get(category)
    return (name,) if name else ()


@cache
def four_card_names(strength: int) -> tuple[str, ...]:
    """Names of a four-card hand (the four-card ranking of :mod:`tablewatch.rules.hands`)."""
    category = Hand4(category_of(strength))
    if category is Hand4.FOUR_OF_A_KIND and leading_rank(strength) == ACE:
        return ("four_aces", "four_of_a_kind")
    if category is Hand4.PAIR:
        return ("pair_of_aces",) if leading_rank(strength) == ACE else ()
    name = FOUR_CARD_NAMES.get(category)
    return (name,) if name else ()


def three_card_names(strength: int, cards: Sequence[Card]) -> tuple[str, ...]:
    """Names of a player's three cards.

    A mini-royal in spades is also a mini-royal and a straight flush, so a
    table without mini-royal rows pays it as a straight flush.
    """
    names = _three_card_names(strength)
    if names and names[0] == "mini_royal" and all(suit_of(c) == SPADES for c in cards):
        return ("mini_royal_spades", *names)
    return names


@cache
def _three_card_names(strength: int) -> tuple[str, ...]:
    category = Hand3(category_of(strength))
    if category is Hand3.MINI_ROYAL:
        return ("mini_royal", "straight_flush")
    name = THREE_CARD_NAMES.get(category)
    return (name,) if name else ()


def is_mini_royal(cards: Sequence[Card]) -> bool:
    """A-K-Q of one suit."""
    return len({suit_of(c) for c in cards}) == 1 and sorted(rank_of(c) for c in cards) == [
        QUEEN,
        KING,
        ACE,
    ]
