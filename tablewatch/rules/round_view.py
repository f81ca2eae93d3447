"""What a folded round amounts to: the wagers on the layout, each hand's cards, the decisions.

Derived once per round from :class:`~tablewatch.rules.round.Round` and read
by settlement and by every check.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain
from operator import itemgetter

from tablewatch.rules.cards import CARDS_BY_TEXT, Card
from tablewatch.rules.events import CardDealt, Decision, Reveal, Wager, WagerRemoved
from tablewatch.rules.placed_wager import PlacedWager
from tablewatch.rules.round import Round

WagerKey = tuple[int, str]  # (seat, bet)
SEAT_TARGETS = ("", *(f"seat:{seat}" for seat in range(1, 8)))  # seat -> its `to`
SEAT_OF_TARGET = {target: seat for seat, target in enumerate(SEAT_TARGETS) if seat}
_seat_of_key = itemgetter(0)


@dataclass(slots=True)
class RoundView:
    wagers: dict[WagerKey, PlacedWager]  # what is on the layout once betting closed
    removed: dict[WagerKey, list[str]]  # wagers taken back entirely: their event_ids
    cards: dict[str, list[Card]]  # by target: "seat:3", "dealer", "community", "bonus", "discard"
    card_events: dict[str, list[CardDealt]]
    decisions: dict[int, list[Decision]]  # by seat, in order
    reveals: dict[tuple[str, int | None], Reveal]  # first reveal of ("community", 1) etc.
    # Derived once: settlement and the checks ask for them many times a round.
    _seats: list[int] = field(init=False, repr=False, compare=False)
    _dealt_seats: list[int] = field(init=False, repr=False, compare=False)
    # No card dealt twice in the round (the usual case): every hand is of distinct cards.
    no_repeated_card: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._seats = sorted(set(map(_seat_of_key, self.wagers)))
        self._dealt_seats = sorted(filter(None, map(SEAT_OF_TARGET.get, self.cards)))  # seats 1-7
        dealt = self.cards.values()
        self.no_repeated_card = len(set(chain.from_iterable(dealt))) == sum(map(len, dealt))

    def seats(self) -> list[int]:
        """Seats with a wager on the layout, in seat order (a shared list: do not modify)."""
        return self._seats

    def seat_cards(self, seat: int) -> list[Card]:
        return self.cards.get(SEAT_TARGETS[seat], [])

    def amount(self, seat: int, bet: str) -> int:
        wager = self.wagers.get((seat, bet))
        return wager.amount if wager else 0

    def dealt_seats(self) -> list[int]:
        """Seats dealt cards, in seat order (a shared list: do not modify)."""
        return self._dealt_seats


def view_round(rnd: Round) -> RoundView:
    wagers: dict[WagerKey, PlacedWager] = {}
    removed: dict[WagerKey, list[str]] = {}
    for event in rnd.wager_events:
        key = (event.seat, event.bet)
        if isinstance(event, Wager):
            placed = wagers.get(key)
            if placed is None:
                wagers[key] = PlacedWager(event.seat, event.bet, event.amount, [event.event_id])
            else:
                placed.amount += event.amount
                placed.event_ids.append(event.event_id)
            if removed:
                removed.pop(key, None)
        elif isinstance(event, WagerRemoved):
            gone = wagers.pop(key, None)
            ids = [*(gone.event_ids if gone else []), event.event_id]
            removed[key] = ids
    card_events: dict[str, list[CardDealt]] = {}
    cards: dict[str, list[Card]] = {}
    for dealt in rnd.cards:
        card = CARDS_BY_TEXT[dealt.card]  # checked when decoded: a lookup, no parsing
        to = dealt.to
        same_place = card_events.get(to)
        if same_place is None:
            card_events[to] = [dealt]
            cards[to] = [card]
        else:
            same_place.append(dealt)
            cards[to].append(card)
    decisions: dict[int, list[Decision]] = {}
    for decision in rnd.decisions:
        same_seat = decisions.get(decision.seat)
        if same_seat is None:
            decisions[decision.seat] = [decision]
        else:
            same_seat.append(decision)
    reveals: dict[tuple[str, int | None], Reveal] = {}
    for reveal in rnd.reveals:
        reveals.setdefault((reveal.target, reveal.index), reveal)
    return RoundView(wagers, removed, cards, card_events, decisions, reveals)
