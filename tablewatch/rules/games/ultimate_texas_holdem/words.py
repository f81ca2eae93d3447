"""Ultimate Texas Hold 'Em's hands in words (the round's reconstruction): a seat's and
the dealer's best five of their two cards and the five community cards ("flush, ace
high, best five of seven")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tablewatch.rules.game_rules import HandWords, SeatWords
from tablewatch.rules.hands import strength5
from tablewatch.rules.hands.words import best_of, five_card_words, one_deck

OF_SEVEN = "best five of seven"


def _best_five(cards: Sequence[str], areas: Mapping[str, Sequence[str]]) -> tuple[str, list[str]]:
    strength, five = best_of([*cards, *areas.get("community", ())], 5, strength5)
    return f"{five_card_words(strength)}, {OF_SEVEN}", five


def _complete(cards: Sequence[str], areas: Mapping[str, Sequence[str]]) -> bool:
    community = list(areas.get("community", ()))
    return len(cards) == 2 and len(community) == 5 and one_deck([*cards, *community])


def seat_words(cards: Sequence[str], areas: Mapping[str, Sequence[str]]) -> SeatWords:
    """Two cards with the five community cards; else no rank (a misdeal, or a round ended
    before the community was dealt)."""
    if not _complete(cards, areas):
        return SeatWords(None)
    words, five = _best_five(cards, areas)
    return SeatWords(words, tuple(five))


def dealer_words(cards: Sequence[str], areas: Mapping[str, Sequence[str]]) -> str | None:
    """As a seat's."""
    return _best_five(cards, areas)[0] if _complete(cards, areas) else None


WORDS = HandWords(seat_words, dealer_words)
