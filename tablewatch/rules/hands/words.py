"""Hands in words, for a reader: "flush, king high", "two pair, kings and fours".

A hand is named from its strength (:mod:`tablewatch.rules.hands.strength`): the
category, then the ranks that name it. Each game's ``words`` module
(:attr:`tablewatch.rules.game_rules.GameRules.words`) says which of its cards make
which hand and names them with these.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Final

from tablewatch.rules.cards import CARDS_BY_TEXT
from tablewatch.rules.hands.five_card import Hand5
from tablewatch.rules.hands.four_card import Hand4
from tablewatch.rules.hands.strength import category_of, rank_nibbles
from tablewatch.rules.hands.three_card import Hand3

RANK_NAMES: Final = (
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "jack",
    "queen",
    "king",
    "ace",
)
RANK_PLURALS: Final = tuple("sixes" if n == "six" else n + "s" for n in RANK_NAMES)


def ints(cards: Sequence[str]) -> list[int]:
    """Card texts (``"Ah"``) as the evaluators' ints."""
    return [CARDS_BY_TEXT[c] for c in cards]


def one_deck(cards: Sequence[str]) -> bool:
    """No card twice (a hand with a duplicate is no hand: not named)."""
    return len(set(cards)) == len(cards)


def best_of(
    cards: Sequence[str], size: int, strength: Callable[[Sequence[int]], int]
) -> tuple[int, list[str]]:
    """The strongest ``size`` of ``cards`` and their strength; the first such cards in
    dealing order when several tie."""
    best: tuple[int, list[str]] | None = None
    for chosen in combinations(cards, size):
        value = strength(ints(chosen))
        if best is None or value > best[0]:
            best = (value, list(chosen))
    if best is None:
        raise ValueError(f"fewer than {size} cards: {list(cards)}")
    return best


def five_card_words(strength: int) -> str:
    """A five-card poker hand in words."""
    ranks = rank_nibbles(strength)
    category = Hand5(category_of(strength))
    if category is Hand5.ROYAL_FLUSH:
        return "royal flush"
    if category is Hand5.FULL_HOUSE:
        return f"full house, {RANK_PLURALS[ranks[0]]} over {RANK_PLURALS[ranks[1]]}"
    return common_words(category.name, ranks)


def four_card_words(strength: int) -> str:
    """A four-card poker hand in words."""
    return common_words(Hand4(category_of(strength)).name, rank_nibbles(strength))


def three_card_words(strength: int) -> str:
    """A three-card poker hand in words."""
    category = Hand3(category_of(strength))
    if category is Hand3.MINI_ROYAL:
        return "mini royal"
    return common_words(category.name, rank_nibbles(strength))


def common_words(category: str, ranks: tuple[int, ...]) -> str:
    """A hand of ``category`` (an enum member's name) whose ranks are ``ranks``, in words."""
    top = ranks[0]
    if category == "HIGH_CARD":
        return f"{RANK_NAMES[top]} high"
    if category == "PAIR":
        return f"pair of {RANK_PLURALS[top]}"
    if category == "TWO_PAIR":
        return f"two pair, {RANK_PLURALS[top]} and {RANK_PLURALS[ranks[1]]}"
    if category == "THREE_OF_A_KIND":
        return f"three of a kind, {RANK_PLURALS[top]}"
    if category == "FOUR_OF_A_KIND":
        return f"four of a kind, {RANK_PLURALS[top]}"
    kind = {"STRAIGHT": "straight", "FLUSH": "flush", "STRAIGHT_FLUSH": "straight flush"}
    return f"{kind[category]}, {RANK_NAMES[top]} high"
