"""Protocol v1 controller events (``shared/CONTROLLER_PROTOCOL.md``) as typed, immutable structs.

Each event type is a ``msgspec.Struct`` tagged by its ``type`` field; decoding
validates every field (types, ranges, card syntax, timestamp shape) in one
pass. Unknown fields and unknown types are refused: the protocol is an
external contract and anything else is rejected with a reason.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

import msgspec

PROTOCOL_VERSION = 1

# "2026-11-29T20:15:03.123Z": RFC 3339, UTC, milliseconds. Ranges are checked
# here; impossible calendar days (Feb 30) by ``_check_ts``.
TS_PATTERN = (
    r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    r"T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{3}Z$"
)
CARD_PATTERN = r"^[2-9TJQKA][cdhs]$"

EventId = Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
TableId = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
RoundId = Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
Timestamp = Annotated[str, msgspec.Meta(pattern=TS_PATTERN)]
Seq = Annotated[int, msgspec.Meta(ge=0)]
Seat = Annotated[int, msgspec.Meta(ge=1, le=7)]
Cents = Annotated[int, msgspec.Meta(ge=0)]
PositiveCents = Annotated[int, msgspec.Meta(ge=1)]
Count = Annotated[int, msgspec.Meta(ge=0)]
CardText = Annotated[str, msgspec.Meta(pattern=CARD_PATTERN)]
DealTarget = Annotated[str, msgspec.Meta(pattern=r"^(seat:[1-7]|dealer|community|bonus|discard)$")]
ExposedAt = Annotated[
    str, msgspec.Meta(pattern=r"^(seat:[1-7]|dealer|community|bonus|discard|deck)$")
]

Game = Literal["four_card_poker", "let_it_ride", "three_card_poker", "ultimate_texas_holdem"]
Dealing = Literal["hand", "manual_shoe", "automated_shoe"]
Bet = Literal[
    # Four Card Poker
    "ante",
    "play",
    "aces_up",
    "progressive",
    "ante_bonus",
    # Let It Ride
    "bet1",
    "bet2",
    "bet3",
    "five_card_bonus",
    "three_card_bonus",
    "five_card_progressive",
    "five_card_hand_bonus",
    "six_card_bonus",
]
Result = Literal["win", "lose", "push", "returned"]


def ts_to_ms(ts: str) -> int:
    """Milliseconds since the epoch of a validated protocol timestamp."""
    return int(datetime.fromisoformat(ts).replace(tzinfo=UTC).timestamp() * 1000 + 0.5)


def ms_to_ts(ms: int) -> str:
    """The protocol timestamp of epoch milliseconds."""
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def event_type(event: Event) -> str:
    """The protocol ``type`` of an event (its tag)."""
    return str(type(event).__struct_config__.tag)


class Event(
    msgspec.Struct,
    tag_field="type",
    forbid_unknown_fields=True,
    frozen=True,
    kw_only=True,
    omit_defaults=True,
):
    """Fields common to every event."""

    v: Literal[1]
    event_id: EventId
    table_id: TableId
    seq: Seq
    ts: Timestamp

    def __post_init__(self) -> None:
        # The pattern admits day 29-31 of every month; the calendar decides.
        if self.ts[8:10] > "28":
            try:
                datetime.fromisoformat(self.ts[:10])
            except ValueError:
                raise ValueError(f"ts {self.ts!r} is not a calendar date - at `$.ts`") from None


class RoundEvent(Event, frozen=True, kw_only=True):
    round_id: RoundId


# ---- table events ---------------------------------------------------------


class TableOpen(Event, tag="table_open", frozen=True, kw_only=True):
    game: Game
    config: Name


class TableClose(Event, tag="table_close", frozen=True, kw_only=True):
    pass


class DeckIn(Event, tag="deck_in", frozen=True, kw_only=True):
    deck_id: Name
    dealing: Dealing


class DeckOut(Event, tag="deck_out", frozen=True, kw_only=True):
    deck_id: Name
    reason: Annotated[str, msgspec.Meta(max_length=512)]


class Shuffle(Event, tag="shuffle", frozen=True, kw_only=True):
    deck_id: Name
    method: Literal["manual", "automated"]
    card_count: Count | None


class DeviceFault(Event, tag="device_fault", frozen=True, kw_only=True):
    device: Literal["shuffler", "automated_shoe", "progressive_system"]
    fault: Literal["jam", "stopped", "incomplete"]


class Meter(Event, tag="meter", frozen=True, kw_only=True):
    amount: Cents


class DealerChange(Event, tag="dealer_change", frozen=True, kw_only=True):
    dealer_id: Name


# ---- round events ---------------------------------------------------------


class RoundStart(RoundEvent, tag="round_start", frozen=True, kw_only=True):
    deck_id: Name
    dealer_id: Name


class Wager(RoundEvent, tag="wager", frozen=True, kw_only=True):
    seat: Seat
    bet: Bet
    amount: PositiveCents


class WagerRemoved(RoundEvent, tag="wager_removed", frozen=True, kw_only=True):
    seat: Seat
    bet: Bet


class Lockout(RoundEvent, tag="lockout", frozen=True, kw_only=True):
    progressive_accepted: Count
    progressive_chips: Count


class CardDealt(RoundEvent, tag="card", frozen=True, kw_only=True):
    to: DealTarget
    card: CardText
    face_up: bool


class Decision(RoundEvent, tag="decision", frozen=True, kw_only=True):
    seat: Seat
    action: Literal["play", "fold", "pull", "ride"]
    bet: Literal["bet1", "bet2"] | None = None
    amount: PositiveCents | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.action == "play" and self.amount is None:
            raise ValueError("a `play` decision needs `amount` - at `$.amount`")
        if self.action in ("pull", "ride") and self.bet is None:
            raise ValueError(f"a `{self.action}` decision needs `bet` (bet1 or bet2) - at `$.bet`")
        if self.action != "play" and self.amount is not None:
            raise ValueError(f"a `{self.action}` decision takes no `amount` - at `$.amount`")
        if self.action in ("play", "fold") and self.bet is not None:
            raise ValueError(f"a `{self.action}` decision takes no `bet` - at `$.bet`")


class Reveal(RoundEvent, tag="reveal", frozen=True, kw_only=True):
    target: Literal["community", "dealer"]
    index: Literal[1, 2] | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.target == "community" and self.index is None:
            raise ValueError("a community `reveal` needs `index` 1 or 2 - at `$.index`")
        if self.target == "dealer" and self.index is not None:
            raise ValueError("a dealer `reveal` takes no `index` - at `$.index`")


class StubCount(RoundEvent, tag="stub_count", frozen=True, kw_only=True):
    count: Count


class CardExposed(RoundEvent, tag="card_exposed", frozen=True, kw_only=True):
    to: ExposedAt
    card: CardText


class Settle(RoundEvent, tag="settle", frozen=True, kw_only=True):
    seat: Seat
    bet: Bet
    result: Result
    paid: Cents
    paid_from: Literal["table_inventory", "cage"] | None = None
    meter: Cents | None = None
    validated_by: Name | None = None


class EnvyPayout(RoundEvent, tag="envy_payout", frozen=True, kw_only=True):
    seat: Seat
    for_seat: Seat
    paid: Cents


class Void(RoundEvent, tag="void", frozen=True, kw_only=True):
    reason: Annotated[str, msgspec.Meta(max_length=512)]


class RoundEnd(RoundEvent, tag="round_end", frozen=True, kw_only=True):
    pass


TableEvent = (
    TableOpen | TableClose | DeckIn | DeckOut | Shuffle | DeviceFault | Meter | DealerChange
)
AnyRoundEvent = (
    RoundStart
    | Wager
    | WagerRemoved
    | Lockout
    | CardDealt
    | Decision
    | Reveal
    | StubCount
    | CardExposed
    | Settle
    | EnvyPayout
    | Void
    | RoundEnd
)
AnyEvent = TableEvent | AnyRoundEvent

EVENT_TYPES: tuple[type[Event], ...] = (
    TableOpen,
    TableClose,
    DeckIn,
    DeckOut,
    Shuffle,
    DeviceFault,
    Meter,
    DealerChange,
    RoundStart,
    Wager,
    WagerRemoved,
    Lockout,
    CardDealt,
    Decision,
    Reveal,
    StubCount,
    CardExposed,
    Settle,
    EnvyPayout,
    Void,
    RoundEnd,
)
