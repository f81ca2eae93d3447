"""What a folded round amounts to: the wagers on the layout, each hand's cards, the decisions.

Derived once per round from :class:`~tablewatch.rules.round.Round` and read
by settlement and by every check.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tablewatch.rules.cards import Card, parse_card
from tablewatch.rules.events import CardDealt, Decision, Reveal, Wager, WagerRemoved
from tablewatch.rules.round import Round

WagerKey = tuple[int, str]  # (seat, bet)


@dataclass(slots=True)
class PlacedWager:
    seat: int
    bet: str
    amount: int
    event_ids: list[str] = field(default_factory=list)


@dataclass(slots=True)
class RoundView:
    wagers: dict[WagerKey, PlacedWager]  # what is on the layout once betting closed
    removed: dict[WagerKey, list[str]]  # wagers taken back entirely: their event_ids
    cards: dict[str, list[Card]]  # by target: "seat:3", "dealer", "community", "bonus", "discard"
    card_events: dict[str, list[CardDealt]]
    decisions: dict[int, list[Decision]]  # by seat, in order
    reveals: dict[tuple[str, int | None], Reveal]  # first reveal of ("community", 1) etc.

    def seats(self) -> list[int]:
        """Seats with a wager on the layout, in seat order."""
        return sorted({seat for seat, _ in self.wagers})

    def seat_cards(self, seat: int) -> list[Card]:
        return self.cards.get(f"seat:{seat}", [])

    def amount(self, seat: int, bet: str) -> int:
        wager = self.wagers.get((seat, bet))
        return wager.amount if wager else 0

    def dealt_seats(self) -> list[int]:
        return sorted(int(t[5:]) for t in self.cards if t.startswith("seat:"))


def view_round(rnd: Round) -> RoundView:
    wagers: dict[WagerKey, PlacedWager] = {}
    removed: dict[WagerKey, list[str]] = {}
    for event in rnd.wager_events:
        key = (event.seat, event.bet)
        if isinstance(event, Wager):
            placed = wagers.get(key)
            if placed is None:
                placed = wagers[key] = PlacedWager(event.seat, event.bet, 0)
            placed.amount += event.amount
            placed.event_ids.append(event.event_id)
            removed.pop(key, None)
        elif isinstance(event, WagerRemoved):
            gone = wagers.pop(key, None)
            ids = [*(gone.event_ids if gone else []), event.event_id]
            removed[key] = ids
    cards: dict[str, list[Card]] = {}
    card_events: dict[str, list[CardDealt]] = {}
    for card in rnd.cards:
        cards.setdefault(card.to, []).append(parse_card(card.card))
        card_events.setdefault(card.to, []).append(card)
    decisions: dict[int, list[Decision]] = {}
    for decision in rnd.decisions:
        decisions.setdefault(decision.seat, []).append(decision)
    reveals: dict[tuple[str, int | None], Reveal] = {}
    for reveal in rnd.reveals:
        reveals.setdefault((reveal.target, reveal.index), reveal)
    return RoundView(wagers, removed, cards, card_events, decisions, reveals)
