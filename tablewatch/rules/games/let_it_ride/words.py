"""Let It Ride's hands in words (the round's reconstruction): a seat's five-card hand
with the two community cards (§ 643a.6(b)), its own three cards (the Three Card Bonus,
§ 643a.6(c)) and, where the Six Card Bonus was dealt, its best five of six."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tablewatch.rules.game_rules import HandWords, SeatWords
from tablewatch.rules.hands import best5of6, strength3, strength5
from tablewatch.rules.hands.words import five_card_words, ints, one_deck, three_card_words


def seat_words(cards: Sequence[str], areas: Mapping[str, Sequence[str]]) -> SeatWords:
    """Three cards: named with the community's two; any other count is a misdeal (no
    rank)."""
    if len(cards) != 3:
        return SeatWords(None)
    three = three_card_words(strength3(ints(cards))) if one_deck(cards) else None
    community = list(areas.get("community", ()))
    five_cards = [*cards, *community]
    hand = None
    if len(community) == 2 and one_deck(five_cards):
        hand = five_card_words(strength5(ints(five_cards)))
    bonus = list(areas.get("bonus", ()))
    six = None
    if len(bonus) == 3 and one_deck([*cards, *bonus]):
        six = five_card_words(best5of6(ints([*cards, *bonus])))
    return SeatWords(hand, tuple(five_cards) if hand else (), three, six)


def dealer_words(cards: Sequence[str], areas: Mapping[str, Sequence[str]]) -> str | None:
    """The dealer holds no hand."""
    return None


WORDS = HandWords(seat_words, dealer_words)
