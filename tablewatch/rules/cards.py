"""Playing cards as small integers.

A card is an ``int`` in ``0..51``: ``rank * 4 + suit``, with rank ``0`` for a
two up to ``12`` for an ace and suit ``0..3`` for clubs, diamonds, hearts,
spades. Suits are equal in rank; a pay table may name a suit (a hand of
spades, see :mod:`tablewatch.rules.paytables.hand_names`).

The protocol writes a card as two characters, rank then suit (``"Td"``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

Card = int

RANKS: Final = "23456789TJQKA"
SUITS: Final = "cdhs"

TEN: Final = RANKS.index("T")
QUEEN: Final = RANKS.index("Q")
KING: Final = RANKS.index("K")
ACE: Final = RANKS.index("A")
SPADES: Final = SUITS.index("s")

DECK_SIZE: Final = 52
FULL_DECK: Final[tuple[Card, ...]] = tuple(range(DECK_SIZE))

_BY_TEXT: Final[dict[str, Card]] = {
    r + s: i * 4 + j for i, r in enumerate(RANKS) for j, s in enumerate(SUITS)
}
_TEXT: Final[tuple[str, ...]] = tuple(RANKS[c >> 2] + SUITS[c & 3] for c in FULL_DECK)
CARDS_BY_TEXT: Final[Mapping[str, Card]] = _BY_TEXT  # "Td" -> card, for text already validated


class CardError(ValueError):
    """A card string that is not rank + suit."""


def parse_card(text: str) -> Card:
    """``"Td"`` -> card; raises :class:`CardError` naming the text."""
    card = _BY_TEXT.get(text)
    if card is None:
        raise CardError(f"{text!r} is not a card (rank one of {RANKS}, then suit one of {SUITS})")
    return card


def is_card_text(text: str) -> bool:
    return text in _BY_TEXT


def card_text(card: Card) -> str:
    return _TEXT[card]


def rank_of(card: Card) -> int:
    return card >> 2


def suit_of(card: Card) -> int:
    return card & 3


def parse_cards(texts: Iterable[str]) -> tuple[Card, ...]:
    return tuple(parse_card(t) for t in texts)


def cards_text(cards: Iterable[Card]) -> str:
    return " ".join(card_text(c) for c in cards)
