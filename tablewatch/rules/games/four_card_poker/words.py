"""Four Card Poker's hands in words (the round's reconstruction): a seat's best four of
its five cards, the dealer's best four of six (§ 641a.6(b))."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tablewatch.rules.game_rules import HandWords, SeatWords
from tablewatch.rules.hands import strength4
from tablewatch.rules.hands.words import best_of, four_card_words, one_deck


def seat_words(cards: Sequence[str], areas: Mapping[str, Sequence[str]]) -> SeatWords:
    """Five cards: their best four; any other count is a misdeal (no rank)."""
    if len(cards) != 5 or not one_deck(cards):
        return SeatWords(None)
    strength, four = best_of(cards, 4, strength4)
    return SeatWords(four_card_words(strength), tuple(four))


def dealer_words(cards: Sequence[str], areas: Mapping[str, Sequence[str]]) -> str | None:
    """Six cards: their best four; any other count is a misdeal (no rank)."""
    if len(cards) != 6 or not one_deck(cards):
        return None
    return four_card_words(best_of(cards, 4, strength4)[0])


WORDS = HandWords(seat_words, dealer_words)
