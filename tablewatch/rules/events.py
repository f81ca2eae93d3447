"""Protocol v1 controller events (``docs/protocol.md``) as typed, immutable structs.

Each event type is a ``msgspec.Struct`` tagged by its ``type`` field; decoding
(:mod:`tablewatch.rules.decode`) validates every field (types, the protocol's
ranges, lengths, card syntax) in one pass in C, then the timestamps and that the
strings are printable a block at a time. Unknown fields and unknown types are
refused: the protocol is an external contract and anything else is rejected
with a reason.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Sequence
from contextlib import suppress
from datetime import UTC, datetime, timedelta
from operator import itemgetter
from typing import Annotated, Literal

import msgspec

PROTOCOL_VERSION = 1

# "2026-11-29T20:15:03.123Z": RFC 3339, UTC, milliseconds. msgspec checks the
# length in C; the decoder (``rules/decode.py``) then checks the shape, the
# clock ranges and the calendar of a whole block of timestamps at once
# (:func:`timestamps_valid`). The full pattern only words a rejection (a regex
# per event cost more than the rest of the decoding).
TS_LENGTH = 24
TS_PATTERN = (
    r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    r"T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{3}Z$"
)
TS_REASON = "not an RFC 3339 UTC timestamp with milliseconds, like 2026-11-29T20:15:03.123Z"
_TS_SHAPE = re.compile(TS_PATTERN)
_from_iso = datetime.fromisoformat
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

# The protocol's ranges (docs/protocol.md, common fields): seq at least 1 and
# below 2^53, amounts at least 0 and below 2^53 cents, ids 1 to 64 printable characters.
# Lengths and numbers are checked by msgspec in C; that the strings are printable is
# checked by the decoder a block at a time (``rules/decode.py``): no Python step per event.
SAFE_INT_LIMIT = 2**53  # integers below it are exact in a double (a JSON parser's number)
ID_MAX_LENGTH = 64
TEXT_MAX_LENGTH = 512
YEAR_FIRST, YEAR_LAST = 2000, 2199
_YEAR_MIN, _YEAR_MAX = str(YEAR_FIRST), str(YEAR_LAST)
# event_id, table_id, round_id, deck_id, dealer_id, and the other names (config, validated_by)
Ident = Annotated[str, msgspec.Meta(min_length=1, max_length=ID_MAX_LENGTH)]
EventId = Ident
TableId = Ident
RoundId = Ident
Name = Ident
Text = Annotated[str, msgspec.Meta(max_length=TEXT_MAX_LENGTH)]  # a free-text reason
Timestamp = Annotated[str, msgspec.Meta(min_length=TS_LENGTH, max_length=TS_LENGTH)]
Seq = Annotated[int, msgspec.Meta(ge=1, lt=SAFE_INT_LIMIT)]
Seat = Annotated[int, msgspec.Meta(ge=1, le=7)]
Cents = Annotated[int, msgspec.Meta(ge=0, lt=SAFE_INT_LIMIT)]
PositiveCents = Annotated[int, msgspec.Meta(ge=1, lt=SAFE_INT_LIMIT)]
Count = Annotated[int, msgspec.Meta(ge=0, lt=SAFE_INT_LIMIT)]
# Closed sets of strings are Literals rather than patterns: msgspec checks a
# Literal by a hash lookup in C, a pattern by calling Python's ``re``.
# fmt: off
CardText = Literal[
    "2c", "2d", "2h", "2s", "3c", "3d", "3h", "3s", "4c", "4d", "4h", "4s",
    "5c", "5d", "5h", "5s", "6c", "6d", "6h", "6s", "7c", "7d", "7h", "7s",
    "8c", "8d", "8h", "8s", "9c", "9d", "9h", "9s", "Tc", "Td", "Th", "Ts",
    "Jc", "Jd", "Jh", "Js", "Qc", "Qd", "Qh", "Qs", "Kc", "Kd", "Kh", "Ks",
    "Ac", "Ad", "Ah", "As",
]
DealTarget = Literal[
    "seat:1", "seat:2", "seat:3", "seat:4", "seat:5", "seat:6", "seat:7",
    "dealer", "community", "bonus", "discard",
]
ExposedAt = Literal[
    "seat:1", "seat:2", "seat:3", "seat:4", "seat:5", "seat:6", "seat:7",
    "dealer", "community", "bonus", "discard", "deck",
]
# fmt: on

Dealing = Literal["hand", "manual_shoe", "automated_shoe"]
Result = Literal["win", "lose", "push", "returned"]

# The games and the bets an event may name are the registered games' (their
# descriptors, rules/games): ``game`` and ``bet`` are strings, checked against
# these by a set lookup (``bet`` a block of events at a time by the decoder, the
# rare ``game`` of a table_open and ``bet`` of a decision by their structs).
# rules/games sets them as it registers each game (set_vocabulary); the first
# check imports it, so the registry is always complete when they are read.
_GAMES: dict[str, None] = {}  # in registration order, for the messages
_BETS: set[str] = set()
_DECISION_BETS: dict[str, None] = {}  # the bets a decision may name (pull, ride)


def set_vocabulary(games: Iterable[str], bets: Iterable[str], decision_bets: Iterable[str]) -> None:
    """The registered games' names, every bet of theirs and the bets their decisions name."""
    _GAMES.clear()
    _GAMES.update(dict.fromkeys(games))
    _BETS.clear()
    _BETS.update(bets)
    _DECISION_BETS.clear()
    _DECISION_BETS.update(dict.fromkeys(decision_bets))


def _registered() -> None:
    if not _GAMES:
        importlib.import_module("tablewatch.rules.games")  # registers them: set_vocabulary


def known_games() -> tuple[str, ...]:
    _registered()
    return tuple(_GAMES)


def _decision_bets() -> dict[str, None]:
    _registered()
    return _DECISION_BETS


def known_bets() -> set[str]:
    """Every bet of a registered game (the live set: read, never change it)."""
    _registered()
    return _BETS


def bet_problem(bet: str) -> str | None:
    """Why ``bet`` is refused (msgspec's wording, as for a closed set), or None."""
    if bet in known_bets():
        return None
    return f"Invalid enum value {bet!r} - at `$.bet`"


def ts_to_ms(ts: str) -> int:
    """Milliseconds since the epoch of a validated protocol timestamp.

    Called for every stored event: the epoch of its minute ("2026-11-29T20:15:")
    is kept by :func:`check_ts`, and seconds and milliseconds are added to it.
    Any other ISO 8601 text is converted by ``datetime``.
    """
    if len(ts) == TS_LENGTH:
        minute = _MINUTES.get(ts[:17])
        if minute is None:
            with suppress(ValueError):  # not a protocol timestamp: converted below
                check_ts(ts)  # keeps the minute's epoch
            minute = _MINUTES.get(ts[:17])
        if minute is not None:
            return minute + int(ts[17:19]) * 1000 + int(ts[20:23])
    return int(datetime.fromisoformat(ts).replace(tzinfo=UTC).timestamp() * 1000 + 0.5)


def ms_to_ts(ms: int) -> str:
    """The protocol timestamp of epoch milliseconds."""
    moment = _EPOCH + timedelta(milliseconds=ms)  # exact, unlike a float of seconds
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


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
    gc=False,
):
    """Fields common to every event.

    ``gc=False``: events hold only strings, numbers and booleans, so they can
    never be part of a reference cycle; untracked, they cost the cyclic
    garbage collector nothing however many rounds are open.
    """

    v: Literal[1]
    event_id: EventId
    table_id: TableId
    seq: Seq
    ts: Timestamp  # its shape is checked by the decoder: see check_ts, timestamps_valid
    # A signed event (docs/protocol.md, "Signed events"): the id of the table key
    # that signed it, and the HMAC-SHA256 of its canonical form (base64url, no padding).
    # The decoder checks them as names; ingest verifies them for the tables that sign
    # (tablewatch/ingest/signing.py). They change no judgement.
    kid: Name | None = None
    sig: Name | None = None


# Minutes ("2026-11-29T20:15:") of timestamps that passed ``check_ts``, with the
# epoch milliseconds of each (bounded: cleared when full).
_MINUTES: dict[str, int] = {}
_MINUTES_KEPT = 4096
_ONE_MS = timedelta(milliseconds=1)
_MINUTE_OF = itemgetter(slice(0, 17))


def timestamps_valid(timestamps: Sequence[str]) -> bool:
    """Whether every one of ``timestamps`` (each 24 characters: msgspec checked) is a
    protocol timestamp. True or False for the lot; :func:`check_ts` tells which and why.

    Checked by columns, for a block of decoded events at once with no Python step
    per timestamp (a ``__post_init__`` per event cost half of the decoding): the
    distinct minutes ("2026-11-29T20:15:", a handful a block) by :func:`check_ts`,
    once each; then "SS.mmmZ" column by column of the timestamps joined end to end
    (as ASCII bytes, whose tests are table lookups), where ``text[k::24]`` is
    character ``k`` of each timestamp.
    """
    count = len(timestamps)
    if not count:
        return True
    minutes = set(map(_MINUTE_OF, timestamps))
    known = _MINUTES.keys()
    if not minutes <= known and not all(map(_minute_valid, minutes - known)):
        return False
    joined = "".join(timestamps)
    if not joined.isascii():
        return False
    text = joined.encode()
    width = TS_LENGTH
    digits = text[18::width] + text[20::width] + text[21::width] + text[22::width]
    return (
        text[19::width] == b"." * count
        and text[23::width] == b"Z" * count
        and digits.isdigit()
        and not text[17::width].translate(None, b"012345")  # tens of seconds: 0 to 5
    )


def _minute_valid(minute: str) -> bool:
    try:
        check_ts(minute + "00.000Z")
    except ValueError:
        return False
    return True


def check_ts(ts: str) -> None:
    """Refuse a ``ts`` that is not a protocol timestamp (ValueError: the reason, with the
    field as msgspec words it); remember the minute of a good one, with its epoch.

    The separators sit every third character from index 4 ("--T::."), so one
    slice checks them; ``fromisoformat`` checks the digits, the clock ranges
    and the calendar of the first 19 characters (Feb 29 only in leap years);
    the rest checks the milliseconds, the "Z" and the protocol's years (2000 to
    2199, compared as text: the digits are ``fromisoformat``'s). Hour 24 is refused
    here whatever a Python version's ``fromisoformat`` makes of ISO 8601's "24:00".
    """
    if (
        len(ts) == TS_LENGTH
        and ts[4:20:3] == "--T::."
        and ts[23] == "Z"
        and ts.isascii()  # keeps other scripts' digits out of isdigit()
        and ts[20:23].isdigit()
        and ts[11:13] < "24"
        and _YEAR_MIN <= ts[:4] <= _YEAR_MAX  # the digits themselves: fromisoformat
    ):
        try:
            moment = _from_iso(ts[:19])
        except ValueError:
            pass
        else:
            if len(_MINUTES) >= _MINUTES_KEPT:
                _MINUTES.clear()
            _MINUTES[ts[:17]] = (moment.replace(second=0, tzinfo=UTC) - _EPOCH) // _ONE_MS
            return
    raise ValueError(_ts_problem(ts))


def _ts_problem(ts: str) -> str:
    """Why ``ts`` was refused: its shape, or a day the calendar does not have."""
    if _TS_SHAPE.match(ts) is None:
        return f"{TS_REASON} - at `$.ts`"
    if not _YEAR_MIN <= ts[:4] <= _YEAR_MAX:
        return f"ts year {ts[:4]} is outside {YEAR_FIRST} to {YEAR_LAST} - at `$.ts`"
    return f"ts {ts!r} is not a calendar date - at `$.ts`"


class RoundEvent(Event, frozen=True, kw_only=True):
    round_id: RoundId


# ---- table events ---------------------------------------------------------


class TableOpen(Event, tag="table_open", frozen=True, kw_only=True):
    game: str  # a registered game's name (known_games)
    config: Name

    def __post_init__(self) -> None:
        games = known_games()
        if self.game not in games:
            check_ts(self.ts)  # a bad ts is the reason given first, as for other events
            raise ValueError(f"unknown game {self.game!r}: one of {', '.join(games)} - at `$.game`")


class TableClose(Event, tag="table_close", frozen=True, kw_only=True):
    pass


class DeckIn(Event, tag="deck_in", frozen=True, kw_only=True):
    deck_id: Name
    dealing: Dealing


class DeckOut(Event, tag="deck_out", frozen=True, kw_only=True):
    deck_id: Name
    reason: Text


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
    bet: str  # a registered game's bet: checked by the decoder (bet_problem)
    amount: PositiveCents
    # TableWatch's extension (docs/rules.md, "Player ids"): the opaque id of the player's
    # tracking card, 1 to 64 printable characters; absent, the player is known by seat.
    player_id: Name | None = None


class WagerRemoved(RoundEvent, tag="wager_removed", frozen=True, kw_only=True):
    seat: Seat
    bet: str  # as Wager's


class Lockout(RoundEvent, tag="lockout", frozen=True, kw_only=True):
    progressive_accepted: Count
    progressive_chips: Count


class CardDealt(RoundEvent, tag="card", frozen=True, kw_only=True):
    to: DealTarget
    card: CardText
    face_up: bool


class Decision(RoundEvent, tag="decision", frozen=True, kw_only=True):
    seat: Seat
    action: Literal["play", "fold", "pull", "ride", "check"]
    bet: str | None = None  # a bet a decision may name (a registered game's, pull and ride)
    amount: PositiveCents | None = None

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem is not None:
            check_ts(self.ts)  # a bad ts is the reason given first, as for other events
            raise ValueError(problem)

    def _problem(self) -> str | None:
        if self.bet is not None and self.bet not in _decision_bets():
            return f"Invalid enum value {self.bet!r} - at `$.bet`"
        if self.action == "play" and self.amount is None:
            return "a `play` decision needs `amount` - at `$.amount`"
        if self.action in ("pull", "ride") and self.bet is None:
            named = " or ".join(_decision_bets())
            return f"a `{self.action}` decision needs `bet` ({named}) - at `$.bet`"
        if self.action != "play" and self.amount is not None:
            return f"a `{self.action}` decision takes no `amount` - at `$.amount`"
        if self.action in ("play", "fold", "check") and self.bet is not None:
            return f"a `{self.action}` decision takes no `bet` - at `$.bet`"
        return None


class Reveal(RoundEvent, tag="reveal", frozen=True, kw_only=True):
    target: Literal["community", "dealer"]
    index: Literal[1, 2] | None = None

    def __post_init__(self) -> None:
        problem = None
        if self.target == "community" and self.index is None:
            problem = "a community `reveal` needs `index` 1 or 2 - at `$.index`"
        elif self.target == "dealer" and self.index is not None:
            problem = "a dealer `reveal` takes no `index` - at `$.index`"
        if problem is not None:
            check_ts(self.ts)  # a bad ts is the reason given first, as for other events
            raise ValueError(problem)


class StubCount(RoundEvent, tag="stub_count", frozen=True, kw_only=True):
    count: Count


class CardExposed(RoundEvent, tag="card_exposed", frozen=True, kw_only=True):
    to: ExposedAt
    card: CardText


class Settle(RoundEvent, tag="settle", frozen=True, kw_only=True):
    seat: Seat
    bet: str  # as Wager's
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
    reason: Text


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
# The event classes are exact: msgspec decodes into these classes, never subclasses.
# Hot code tells them apart with ``type(event) is X`` or ``in`` these sets: an
# ``isinstance`` against a msgspec class goes through its metaclass's
# ``__instancecheck__``, about 120 ns, four times a plain type test.
ROUND_EVENT_TYPES: frozenset[type[Event]] = frozenset(
    t for t in EVENT_TYPES if issubclass(t, RoundEvent)
)
