"""Cards, hands, money and events in words, for a reader of a reconstructed round.

Hands are named by their game (its descriptor's ``words``, with
:mod:`tablewatch.rules.hands.words`). Money is integer cents, written in dollars
without rounding through floats.
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.cards import RANKS, SUITS
from tablewatch.rules.events import (
    AnyEvent,
    CardDealt,
    CardExposed,
    DealerChange,
    Decision,
    DeckIn,
    DeckOut,
    DeviceFault,
    EnvyPayout,
    Lockout,
    Meter,
    Reveal,
    RoundEnd,
    RoundStart,
    Settle,
    Shuffle,
    StubCount,
    TableClose,
    TableOpen,
    Void,
    Wager,
    WagerRemoved,
)
from tablewatch.rules.hands.words import RANK_NAMES

SUIT_NAMES: Final = ("clubs", "diamonds", "hearts", "spades")


def money(cents: int | None) -> str:
    """``2500`` -> ``"$25.00"``, ``-150`` -> ``"-$1.50"``, ``None`` -> ``"-"``."""
    if cents is None:
        return "-"
    sign = "-" if cents < 0 else ""
    dollars, rest = divmod(abs(cents), 100)
    return f"{sign}${dollars:,}.{rest:02d}"


def card_words(text: str) -> str:
    """``"Ah"`` -> ``"ace of hearts"``."""
    return f"{RANK_NAMES[RANKS.index(text[0])]} of {SUIT_NAMES[SUITS.index(text[1])]}"


def hand_key_words(name: str | None) -> str | None:
    """A pay table's hand key in words: ``"pair_of_tens_or_better"`` -> ``"pair of tens or
    better"``."""
    return None if name is None else name.replace("_", " ")


def _to(target: str) -> str:
    if target.startswith("seat:"):
        return f"seat {target[5:]}"
    return {"dealer": "the dealer", "community": "the community", "bonus": "the bonus spots"}.get(
        target, f"the {target}"
    )


def event_words(event: AnyEvent) -> str:
    """What one event says, in a sentence without a final stop."""
    if isinstance(event, RoundStart):
        return f"round begins: dealer {event.dealer_id}, deck {event.deck_id}"
    if isinstance(event, Wager):
        return f"seat {event.seat} wagers {money(event.amount)} on {event.bet}"
    if isinstance(event, WagerRemoved):
        return f"seat {event.seat} takes back its {event.bet} wager"
    if isinstance(event, Lockout):
        return (
            "no more bets (lockout): the progressive system accepted "
            f"{event.progressive_accepted}, {event.progressive_chips} progressive chips "
            "on the layout"
        )
    if isinstance(event, CardDealt):
        face = "face up" if event.face_up else "face down"
        return f"{event.card} ({card_words(event.card)}) to {_to(event.to)}, {face}"
    if isinstance(event, Decision):
        return _decision_words(event)
    if isinstance(event, Reveal):
        if event.target == "community":
            return f"community card {event.index} turned over"
        return "the dealer's cards turned over"
    if isinstance(event, StubCount):
        return f"stub counted: {event.count} cards"
    if isinstance(event, CardExposed):
        return f"{event.card} ({card_words(event.card)}) exposed, at {_to(event.to)}"
    if isinstance(event, Settle):
        return _settle_words(event)
    if isinstance(event, EnvyPayout):
        return (
            f"seat {event.seat} paid {money(event.paid)} Envy Bonus for the hand at seat "
            f"{event.for_seat}"
        )
    if isinstance(event, Void):
        return f"round voided: {event.reason}"
    if isinstance(event, RoundEnd):
        return "layout cleared: the round ends"
    return _table_event_words(event)


def _decision_words(event: Decision) -> str:
    if event.action == "play":
        return f"seat {event.seat} plays, Play wager {money(event.amount)}"
    if event.action == "fold":
        return f"seat {event.seat} folds"
    if event.action == "check":
        return f"seat {event.seat} checks"
    if event.action == "ride":
        return f"seat {event.seat} lets {event.bet} ride"
    return f"seat {event.seat} pulls {event.bet} back"


def _settle_words(event: Settle) -> str:
    text = f"seat {event.seat} {event.bet} settled: {event.result}, paid {money(event.paid)}"
    extra = []
    if event.paid_from is not None:
        extra.append(f"from the {event.paid_from.replace('_', ' ')}")
    if event.meter is not None:
        extra.append(f"meter {money(event.meter)}")
    if event.validated_by is not None:
        extra.append(f"validated by {event.validated_by}")
    return f"{text} ({', '.join(extra)})" if extra else text


def _table_event_words(event: AnyEvent) -> str:
    if isinstance(event, Meter):
        return f"progressive meter reads {money(event.amount)}"
    if isinstance(event, DeviceFault):
        return f"{event.device.replace('_', ' ')} fault: {event.fault}"
    if isinstance(event, DeckIn):
        return f"deck {event.deck_id} put into play ({event.dealing.replace('_', ' ')})"
    if isinstance(event, DeckOut):
        return f"deck {event.deck_id} removed: {event.reason}"
    if isinstance(event, Shuffle):
        counted = "no count" if event.card_count is None else f"{event.card_count} cards counted"
        return f"deck {event.deck_id} shuffled ({event.method}, {counted})"
    if isinstance(event, DealerChange):
        return f"dealer {event.dealer_id} takes the table"
    if isinstance(event, TableOpen):
        return f"table opens: {event.game}, configuration {event.config}"
    if isinstance(event, TableClose):
        return "table closes"
    return type(event).__name__
