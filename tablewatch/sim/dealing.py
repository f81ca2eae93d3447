"""Dealing a round: the game's dealing order, rare hands placed, misdeals and exposures.

The order of the cards is the game's (its simulator's ``deal_targets``, in
the regulation's order for the table's dealing); rigged cards (an injected
error's hand, a rare hand) are placed first and the rest come from a
shuffled deck. A misdeal gives a seat one card too many; an injected
DUPLICATE_CARD deals one card twice; a card may be found face up in the deck
(it is not dealt) or the automated shoe may fault halfway.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from tablewatch.rules.cards import Card, card_text

if TYPE_CHECKING:
    from tablewatch.sim.injections import RoundPlan
    from tablewatch.sim.table_state import SimTable

Deal = tuple[str, Card, bool]  # (to, card, face_up)
Wagers = dict[tuple[int, str], int]  # (seat, bet) -> cents on the layout


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


def cards_of(dealt: Sequence[Deal], to: str) -> list[Card]:
    return [card for target, card, _ in dealt if target == to]


def deal_round(table: SimTable, wagers: Wagers, plan: RoundPlan) -> list[Deal]:
    """Deal the round's cards (the events), with the plan's rigged cards and irregularities."""
    rng = table.rng
    betting = sorted({seat for seat, _ in wagers})
    targets = table.game.deal_targets(table.dealing, betting, wagers)
    rigged = plan.rigged
    if "rare" in rigged:
        seat = rng.choice(betting)
        rigged = table.game.rare_hand(rng, seat)
    face_up_card: int | None = None
    if plan.natural == "face_up":
        face_up_card = rng.randrange(52)
        rigged = {k: v for k, v in rigged.items() if face_up_card not in v}
    dealt = deal(rng, targets, rigged, exclude=face_up_card)
    if plan.natural == "misdeal":
        seat = rng.choice(betting)
        extra = next(c for c in range(52) if c not in {d[1] for d in dealt} and c != face_up_card)
        at = max(i for i, d in enumerate(dealt) if d[0] == f"seat:{seat}")
        dealt.insert(at + 1, (f"seat:{seat}", extra, False))
    if plan.code == "DUPLICATE_CARD":
        seat_positions = [i for i, d in enumerate(dealt) if d[0].startswith("seat:")]
        i, j = sorted(rng.sample(seat_positions, 2)) if len(seat_positions) > 1 else (0, 1)
        to, _, up = dealt[j]
        dealt[j] = (to, dealt[i][1], up)
        table.record("DUPLICATE_CARD")
    table.pause(500, 2_000)
    for n, (to, card, face_up) in enumerate(dealt):
        if face_up_card is not None and n == len(dealt) // 2:
            table.t.card_exposed("deck", card_text(face_up_card))
        if plan.natural == "shoe_fault" and n == len(dealt) // 2:
            table.t.device_fault("automated_shoe", rng.choice(("jam", "stopped", "incomplete")))
            break
        table.t.card(to, card_text(card), face_up)
    table.face_up_card = face_up_card
    return dealt
