"""Dealing orders of the regulation, and rare hands placed on demand.

Let It Ride (§§ 643a.8(d), 643a.9(b)): one card at a time to each player,
then a community card, twice, then the players' third cards; an automated
shoe (§ 643a.10(b)) dispenses stacks of three to each player and a stack of
three to the community area, whose left card is discarded. Four Card Poker
(§§ 641a.8(d), 641a.9(b)): one card at a time to each player and the dealer
until players have five and the dealer six, the dealer's sixth face up; an
automated shoe (§ 641a.10(b)) gives stacks of five, the dealer a stack of
five and the bottom card of the next stack face up, the rest discarded.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from tablewatch.rules.cards import Card

Deal = tuple[str, Card, bool]  # (to, card, face_up)


def deal_targets(
    game: str, dealing: str, seats: Sequence[int], bonus: bool
) -> list[tuple[str, bool]]:
    """Where each card of the round goes, in dealing order: (to, face_up)."""
    places = [f"seat:{s}" for s in seats]
    order: list[tuple[str, bool]] = []
    if game == "let_it_ride":
        if dealing == "automated_shoe":
            for place in places:
                order += [(place, False)] * 3
            order += [("community", False), ("community", False), ("discard", False)]
        else:
            for i in range(3):
                order += [(p, False) for p in places]
                if i < 2:
                    order.append(("community", False))
        if bonus:
            order += [("bonus", False)] * 3
    elif dealing == "automated_shoe":
        for place in places:
            order += [(place, False)] * 5
        order += [("dealer", False)] * 5 + [("dealer", True)] + [("discard", False)] * 4
    else:
        for _ in range(5):
            order += [(p, False) for p in places]
            order.append(("dealer", False))
        order.append(("dealer", True))
    return order


def deal(
    rng: random.Random,
    targets: Sequence[tuple[str, bool]],
    rigged: Mapping[str, Sequence[Card]] | None = None,
    exclude: Card | None = None,
) -> list[Deal]:
    """Cards for ``targets`` from a shuffled deck; ``rigged`` places given cards first.

    ``exclude``: a card found face up in the deck, which is not used.
    """
    rigged = rigged or {}
    placed = {c for cards in rigged.values() for c in cards}
    deck = [c for c in range(52) if c not in placed and c != exclude]
    rng.shuffle(deck)
    pending = {to: list(cards) for to, cards in rigged.items()}
    out: list[Deal] = []
    for to, face_up in targets:
        queue = pending.get(to)
        card = queue.pop(0) if queue else deck.pop()
        out.append((to, card, face_up))
    return out


def undealt(dealt: Sequence[Deal]) -> list[Card]:
    used = {card for _, card, _ in dealt}
    return [c for c in range(52) if c not in used]
