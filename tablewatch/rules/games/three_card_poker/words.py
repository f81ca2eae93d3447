"""Three Card Poker's hands in words (the round's reconstruction): a seat's three cards
and, with the dealer's three, its best five of six (the Six Card Bonus); the dealer's
three cards."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tablewatch.rules.game_rules import HandWords, SeatWords
from tablewatch.rules.hands import best5of6, strength3
from tablewatch.rules.hands.words import five_card_words, ints, one_deck, three_card_words


def seat_words(cards: Sequence[str], areas: Mapping[str, Sequence[str]]) -> SeatWords:
    """Three cards ("three of a kind, sevens"); any other count is a misdeal (no rank)."""
    if len(cards) != 3 or not one_deck(cards):
        return SeatWords(None)
    dealer = list(areas.get("dealer", ()))
    six = None
    if len(dealer) == 3 and one_deck([*cards, *dealer]):
        six = five_card_words(best5of6(ints([*cards, *dealer])))
    return SeatWords(three_card_words(strength3(ints(cards))), tuple(cards), None, six)


def dealer_words(cards: Sequence[str], areas: Mapping[str, Sequence[str]]) -> str | None:
    """Three cards; any other count is a misdeal (no rank)."""
    if len(cards) != 3 or not one_deck(cards):
        return None
    return three_card_words(strength3(ints(cards)))


WORDS = HandWords(seat_words, dealer_words)
