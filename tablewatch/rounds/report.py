"""What a reconstructed round holds: :class:`RoundReport` and its parts.

Plain frozen dataclasses of JSON-ready values (strings, ints, bools, lists, None):
:meth:`RoundReport.as_dict` is the JSON of ``tablewatch rounds show --format json`` and of
the auditor API's ``/api/v1/rounds/{table_id}/{round_id}``; every field is described in
``docs/rounds.md``. Money is integer cents, times RFC 3339 UTC with milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

FORMAT_VERSION = 1  # of as_dict(): a field removed or changed in meaning makes a new one


@dataclass(frozen=True, slots=True)
class TimelineEntry:
    """One event of the round (or a table event while it was open), in ``seq`` order."""

    seq: int
    ts: str
    type: str
    event_id: str
    text: str  # what it says, in words
    round_event: bool  # False for a table event seen while the round was open


@dataclass(frozen=True, slots=True)
class SeatHand:
    """A seat's cards and what they make."""

    seat: int
    cards: list[str]  # as dealt, in order
    hand: str | None  # the hand its main wagers are priced on, in words; None: no rank
    hand_cards: list[str]  # the cards of that hand (with a shared area's, where the game has one)
    three_card_hand: str | None = None  # the seat's own three cards, where a wager prices them
    six_card_hand: str | None = None  # its best five of six with a shared area of three


@dataclass(frozen=True, slots=True)
class DealerHand:
    cards: list[str]
    hand: str | None  # the dealer's hand as the game names it, in words; None: no rank


@dataclass(frozen=True, slots=True)
class DecisionEntry:
    seq: int
    ts: str
    event_id: str
    seat: int
    action: str  # the protocol's decision action (play, fold, check, ride, pull)
    bet: str | None  # the bet a ride or pull decides
    amount: int | None  # the wager a play decision places, cents
    text: str


@dataclass(frozen=True, slots=True)
class WagerLine:
    """One wager: what it was owed, what the table did, and what priced it."""

    seat: int
    bet: str
    stake: int
    expected_result: str | None  # win, lose, push, returned; None: nothing to price it on
    expected_paid: int | None  # cents; None: not priced (a meter payout with no reading)
    actual_result: str | None  # the settle's result; None: never settled
    actual_paid: int | None
    correct: bool | None  # both results and amounts agree; None when not priced
    paytable: str | None  # the pay table's letter (or the casino's name for it)
    paytable_line: str | None  # the row that paid it ("flush"), None for a loss
    odds: str | None  # that row's odds ("8 to 1", "$1,000", "100% of meter")
    section: str | None  # the regulation section that priced it


@dataclass(frozen=True, slots=True)
class EnvyLine:
    seat: int  # who is owed it
    for_seat: int  # whose hand earns it
    hand: str
    expected_paid: int
    actual_paid: int | None  # what envy_payout events paid for it; None: none
    section: str

    @property
    def correct(self) -> bool:
        """Paid as owed (nothing paid counts as $0)."""
        return (self.actual_paid or 0) == self.expected_paid


@dataclass(frozen=True, slots=True)
class PayoutLimitLine:
    seat: int
    limit: int  # cents per hand
    uncapped: int  # what the main bets would have paid together
    section: str


@dataclass(frozen=True, slots=True)
class FindingEntry:
    check: str
    severity: str
    regulation: str
    message: str
    seat: int | None
    bet: str | None
    expected: int | None
    actual: int | None
    event_ids: list[str]
    ts: str | None
    finding_id: str | None = None  # the store's id (None when judged from files)


@dataclass(frozen=True, slots=True)
class VideoRef:
    """Where the round is on video: the table's cameras over its time, 10 s either side."""

    cameras: list[str]
    from_ts: str  # first event - 10 s
    until_ts: str  # last event + 10 s


@dataclass(frozen=True, slots=True)
class RoundReport:
    table_id: str
    round_id: str
    start_event_id: str
    game: str
    pit: str | None
    dealer_id: str | None
    deck_id: str | None
    dealing: str
    start_ts: str
    end_ts: str
    complete: bool
    voided: bool
    void_reason: str | None
    wagered: int
    paid: int
    timeline: list[TimelineEntry]
    seats: list[SeatHand]
    dealer: DealerHand | None
    community: list[str]
    bonus: list[str]
    decisions: list[DecisionEntry]
    wagers: list[WagerLine]
    envy: list[EnvyLine]
    payout_limits: list[PayoutLimitLine]
    findings: list[FindingEntry]
    findings_source: str  # "store": as stored; "events": judged from the events given
    video: VideoRef
    same_round_id: list[str]  # start_event_id of other rounds the table gave this round_id

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON-ready values: each dataclass a dict of its fields in order,
        each tuple a list (``msgspec.to_builtins``: a tenth of ``dataclasses.asdict``'s
        time, which copies every value deeply)."""
        out: dict[str, Any] = msgspec.to_builtins(self)
        out["format"] = FORMAT_VERSION
        return out

    @property
    def wrong_lines(self) -> list[WagerLine | EnvyLine]:
        """The lines of the money marked wrong: the wagers the findings flag, the Envy
        Bonuses not paid as owed (the round page's header counts what it marks)."""
        wagers: list[WagerLine | EnvyLine] = [w for w in self.wagers if w.correct is False]
        return wagers + [e for e in self.envy if not e.correct]


class RoundNotFound(LookupError):
    """The round (or its table) is not there; ``reason`` says what is missing."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class UnknownTable(RoundNotFound):
    """No configuration of the table: its round cannot be priced."""


class RoundTooLarge(Exception):
    """The store holds more events in and around the round than a reconstruction reads
    (``cap``): ``events`` of them; ``reason`` says so, naming the round."""

    def __init__(self, table_id: str, round_id: str, events: int, cap: int) -> None:
        self.table_id, self.round_id, self.events, self.cap = table_id, round_id, events, cap
        self.reason = (
            f"round {round_id!r} of table {table_id}: {events:,} events stored in it and "
            f"around it (the table's events within a minute of it), over the {cap:,} a "
            "reconstruction reads: too large to reconstruct"
        )
        super().__init__(self.reason)
