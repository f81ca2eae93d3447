"""Decoding raw bytes into validated events, with rejections that say why.

A rejection names where the event came from (file line or position in a
batch), its ``event_id`` when one can be read, the field at fault and the
reason. Decoding is pure: callers read files or sockets and pass bytes in.

Whatever the input (bad UTF-8, arrays nested 100,000 deep, numbers of 5,000
digits, a key of 60,000 characters), decoding raises :class:`EventRejected` and
nothing else. Beyond the types msgspec checks (with the protocol's ranges:
``rules/events.py``), an event is refused for a ``ts`` that is not a protocol
timestamp of the years 2000 to 2199, a ``bet`` no registered game has, an id or
a name holding a character that is not printable, free text holding a control
character, and (:func:`decode_event` only, see :func:`_first_bad`) a key given
twice.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import islice, repeat
from operator import attrgetter

import msgspec

from tablewatch.rules.events import (
    EVENT_TYPES,
    ID_MAX_LENGTH,
    SAFE_INT_LIMIT,
    TEXT_MAX_LENGTH,
    TS_REASON,
    AnyEvent,
    Event,
    bet_problem,
    check_ts,
    known_bets,
    timestamps_valid,
)

_DECODER = msgspec.json.Decoder(AnyEvent)
_ENCODER = msgspec.json.Encoder()
_AT_FIELD = re.compile(r" - at `\$\.?([^`]*)`$")
_ID_RULE = f"an id is 1 to {ID_MAX_LENGTH} printable characters"
_LIMIT = f"{SAFE_INT_LIMIT - 1}"  # how msgspec words "below 2^53": "<= 9007199254740991"
_BELOW_LIMIT = f"below 2^53 ({SAFE_INT_LIMIT:,})"
# msgspec's wording for a value outside a field's constraints, where a person
# needs the protocol's: ts is checked by length (then by events.check_ts),
# card and to against Literal sets of strings, ids and numbers by their ranges.
_VALUE_REASONS: dict[str, tuple[tuple[str, str], ...]] = {
    "ts": (("Expected `str` of length", TS_REASON),),
    "card": (("Invalid enum value", "not a card: rank 2-9 T J Q K A, then suit c d h s, like Td"),),
    "to": (
        (
            "Invalid enum value",
            "not a place: seat:1 .. seat:7, dealer, community, bonus, discard (deck if exposed)",
        ),
    ),
    "seq": (
        ("Expected `int` >= 1", f"Expected `int` >= 1: seq is at least 1 and {_BELOW_LIMIT}"),
        (f"Expected `int` <= {_LIMIT}", f"seq too large: seq is at least 1 and {_BELOW_LIMIT}"),
        ("Integer value out of range", f"seq too large: seq is at least 1 and {_BELOW_LIMIT}"),
    ),
}
for _name in (
    "event_id",
    "table_id",
    "round_id",
    "deck_id",
    "dealer_id",
    "config",
    "kid",
    "sig",
    "player_id",
):
    _VALUE_REASONS[_name] = (
        ("Expected `str` of length >= 1", f"empty: {_ID_RULE}"),
        ("Expected `str` of length <=", f"longer than {ID_MAX_LENGTH} characters: {_ID_RULE}"),
    )
_VALUE_REASONS["validated_by"] = _VALUE_REASONS["dealer_id"]
_VALUE_REASONS["reason"] = (
    ("Expected `str` of length <=", f"longer than {TEXT_MAX_LENGTH} characters"),
)
# amounts (cents) and counts
_AMOUNT_REASONS = (
    (f"Expected `int` <= {_LIMIT}", f"too large: amounts are whole cents {_BELOW_LIMIT}"),
    ("Integer value out of range", f"too large: amounts are whole cents {_BELOW_LIMIT}"),
)
_COUNT_REASONS = (
    (f"Expected `int` <= {_LIMIT}", f"too large: a count is {_BELOW_LIMIT}"),
    ("Integer value out of range", f"too large: a count is {_BELOW_LIMIT}"),
)
for _name in ("amount", "paid", "meter"):
    _VALUE_REASONS[_name] = _AMOUNT_REASONS
for _name in ("count", "card_count", "progressive_accepted", "progressive_chips"):
    _VALUE_REASONS[_name] = _COUNT_REASONS
_ts = attrgetter("ts")
_MISSING = re.compile(r"missing required field `([^`]+)`")
# What the fields every event (or every round event) carries are, for a rejection that
# says one is missing: "the protocol version `v` (1) is missing".
_FIELD_MEANINGS = {
    "v": "the protocol version `v` (1)",
    "type": "the event type `type`",
    "event_id": "the event's id `event_id`",
    "table_id": "the table's id `table_id`",
    "seq": "the table's event number `seq`",
    "ts": "the event's time `ts`",
    "round_id": "the round's id `round_id`",
}
# msgspec's words for a key no event has, with the key as given: any text (empty, holding
# backticks, line breaks, or " - at `$.seq`"), so read before the path of the message
_UNKNOWN = re.compile(r"Object contains unknown field `(.*)`", re.DOTALL)
NESTED_REASON = "bad JSON: nested too deeply (an event is one flat JSON object)"
_FIELD_SHOWN = 64  # characters of a field name in a rejection (an unknown key may be long)
_REASON_SHOWN = 300  # characters of a reason
_DECODE_ERRORS = (msgspec.DecodeError, RecursionError)
# Characters no free text (a reason) may hold: C0 and C1 controls, DEL, lone surrogates.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def _string_fields(cls: type[Event]) -> tuple[tuple[str, bool], ...]:
    """The free strings of an event type (its Literals are checked by msgspec, ``ts`` by
    check_ts): (name, whether it is free text rather than an id or a name)."""
    info = msgspec.inspect.type_info(cls)
    assert isinstance(info, msgspec.inspect.StructType)
    fields = []
    for field in info.fields:
        kinds = (
            field.type.types if isinstance(field.type, msgspec.inspect.UnionType) else (field.type,)
        )
        for kind in kinds:
            if isinstance(kind, msgspec.inspect.StrType) and field.name != "ts":
                fields.append((field.name, kind.max_length == TEXT_MAX_LENGTH))
    return tuple(fields)


_STRING_FIELDS = {cls: _string_fields(cls) for cls in EVENT_TYPES}


class EventRejected(Exception):
    """One event refused by the decoder.

    A plain exception class (not a frozen dataclass): Python sets ``__traceback__``
    and ``__context__`` on an exception as it travels, which a frozen dataclass
    refuses, so one raised through a ``with`` block would turn into a TypeError.
    """

    def __init__(self, where: str, event_id: str | None, field: str | None, reason: str) -> None:
        super().__init__(where, event_id, field, reason)
        self.where = where  # "line 17" of a file, "item 3" of a batch
        self.event_id = event_id
        self.field = field
        self.reason = reason

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EventRejected):
            return NotImplemented
        return self.as_dict() == other.as_dict()

    def __hash__(self) -> int:
        return hash((self.where, self.event_id, self.field, self.reason))

    def __repr__(self) -> str:
        return (
            f"EventRejected(where={self.where!r}, event_id={self.event_id!r}, "
            f"field={self.field!r}, reason={self.reason!r})"
        )

    def __str__(self) -> str:
        """One line for a terminal or a log: characters that are not printable (a
        control character in a refused event_id, say) are shown escaped."""
        ident = f" (event_id {_shown(self.event_id)})" if self.event_id else ""
        field = f"field `{_shown(self.field)}`: " if self.field else ""
        return f"{_shown(self.where)}{ident}: {field}{_shown(self.reason)}"

    def as_dict(self) -> dict[str, str | None]:
        return {
            "where": self.where,
            "event_id": self.event_id,
            "field": self.field,
            "reason": self.reason,
        }


def decode_event(raw: bytes | str, where: str = "event") -> AnyEvent:
    """Decode and validate one JSON event; raises :class:`EventRejected` (and nothing
    else, whatever ``raw`` holds)."""
    try:
        event: AnyEvent = _DECODER.decode(raw)
    except msgspec.DecodeError as exc:  # and its subclass ValidationError
        raise rejection(raw, where, exc) from None
    except RecursionError:  # arrays or objects nested thousands deep
        raise EventRejected(where, None, None, NESTED_REASON) from None
    except UnicodeEncodeError:  # a str holding lone surrogates
        raise EventRejected(where, None, None, "bad JSON: not UTF-8 text") from None
    problem = _problem(event, raw, strings=not is_plain(raw))
    if problem is not None:
        raise _rejection(raw, where, problem) from None
    return event


def is_plain(raw: bytes | str) -> bool:
    """Whether ``raw`` is ASCII with no backslash and no DEL: then each of its strings
    is printable (see :func:`_first_bad`). Three scans in C."""
    if isinstance(raw, str):
        return raw.isascii() and "\\" not in raw and "\x7f" not in raw
    return raw.isascii() and b"\\" not in raw and b"\x7f" not in raw


def _problem(
    event: AnyEvent,
    raw: bytes | str,
    ts: bool = True,
    strings: bool = True,
    keys: bool = True,
    bets: bool = True,
) -> str | None:
    """What msgspec does not check about a decoded event, in msgspec's wording ("reason
    - at `$.field`"), or None: its ``bet`` (a registered game's), its ``ts``, its free
    strings, keys given twice (each check unless its flag is off: already known to pass)."""
    bet = getattr(event, "bet", None) if bets else None
    if bet is not None:
        problem = bet_problem(bet)
        if problem is not None:
            return problem
    if ts:
        try:
            check_ts(event.ts)
        except ValueError as exc:
            return str(exc)
    problem = _string_problem(event) if strings else None
    if problem is None and keys:
        problem = _duplicate_key(event, raw)
    return problem


def _bets_known(events: Sequence[AnyEvent]) -> bool:
    """Whether every bet ``events`` name is a registered game's: the set of them, built
    in C (``getattr`` mapped over the events), against the registry's."""
    named = set(map(getattr, events, repeat("bet"), repeat(None)))
    named.discard(None)
    return named <= known_bets()


def _string_problem(event: AnyEvent) -> str | None:
    """Why a free string of ``event`` is refused: an id or a name holding a character that
    is not printable, free text holding a control character."""
    for name, free_text in _STRING_FIELDS[type(event)]:
        value = getattr(event, name)
        if value is None:
            continue
        if free_text:
            found = _CONTROL.search(value)
            bad = found.group() if found else None
            rule = "free text may hold no control characters"
        else:
            bad = None if value.isprintable() else next(c for c in value if not c.isprintable())
            rule = _ID_RULE
        if bad is not None:
            character = f"U+{ord(bad):04X}"
            return f"holds {character}, which is not a printable character: {rule} - at `$.{name}`"
    return None


class _KeyTwice(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _no_key_twice(pairs: list[tuple[str, object]]) -> None:
    keys = set()
    for key, _ in pairs:
        if key in keys:
            raise _KeyTwice(key)
        keys.add(key)


def _duplicate_key(event: AnyEvent, raw: bytes | str) -> str | None:
    """Why ``raw`` is refused if it gives a key twice (msgspec keeps the last, so the raw
    text would say two things), or None.

    Usually answered by counting: without escapes, a string holds no quote, so raw
    text and the event encoded again have as many quotes as they have strings, keys
    included; a key given twice (or a field given as ``null``, left out when encoded)
    makes the raw text's count larger. Only then are the keys read one by one.
    """
    if isinstance(raw, str):
        if "\\" not in raw and raw.count('"') == _ENCODER.encode(event).count(b'"'):
            return None
    elif b"\\" not in raw and raw.count(b'"') == _ENCODER.encode(event).count(b'"'):
        return None
    try:
        json.loads(raw, object_pairs_hook=_no_key_twice)  # decoded already: one flat object
    except _KeyTwice as twice:
        return f"key `{twice.key}` given twice: an event gives each field once - at `$.{twice.key}`"
    return None


@dataclass(slots=True)
class DecodedLines:
    """The lines of a block that decoded, and those that did not."""

    events: list[AnyEvent]  # in order
    failed: list[tuple[int, EventRejected | None]]  # (index in the lines, rejection; None: blank)

    def runs(self) -> Iterator[tuple[list[AnyEvent], EventRejected | None]]:
        """The events in runs between rejections: each run, then the rejection after it
        (``None`` after the last run). Usually a single run: all the events."""
        done = 0
        for count, (index, rejected) in enumerate(self.failed):
            if rejected is not None:
                before = index - count  # events before this line
                yield self.events[done:before], rejected
                done = before
        yield self.events[done:] if done else self.events, None

    def in_order(self) -> Iterator[AnyEvent | EventRejected]:
        """Events and rejections in the order of their lines (blank lines left out)."""
        for events, rejected in self.runs():
            yield from events
            if rejected is not None:
                yield rejected


def decode_lines(
    lines: Sequence[bytes],
    where: str,
    first: int = 1,
    offsets: Sequence[int] | None = None,
    plain: bool = False,
) -> DecodedLines:
    """JSON Lines: the events, and each line that failed (rejected at ``{where}:{number}``).

    A line's number is ``first`` plus its index, or plus ``offsets[index]`` when
    ``lines`` are some of a file's lines (``first`` that of the first). This
    is the hot path of a file audit: ``list.extend(map(...))`` decodes line
    after line with no Python code between them. A line that fails stops the
    ``map``, with the lines before it already in ``events`` and the iterator
    just past it; it is rejected (or skipped if blank) and decoding goes on.
    What msgspec does not check is then checked for the run of events decoded,
    together (:func:`_first_bad`): their timestamps and their free strings. The
    first event that fails is taken out with those after it, its line is rejected
    and decoding resumes after that line. Arrays nested too deep for msgspec are
    rejected like any bad line. Unlike :func:`decode_event`, a key given twice is
    not refused (see :func:`_first_bad`). ``plain``: the caller found the lines ASCII
    with no backslash and no DEL (as :func:`is_plain` does; reading a file, in the
    block as read), which saves joining them to look.
    """
    decode = _DECODER.decode
    events: list[AnyEvent] = []
    failed: list[tuple[int, EventRejected | None]] = []
    remaining: Iterator[bytes] = iter(lines)

    def refuse(index: int, reason: msgspec.DecodeError | RecursionError | str) -> None:
        line = lines[index]
        rejected = None
        if isinstance(line, OverlongLine) or line.strip():
            offset = offsets[index] if offsets is not None else index
            at = f"{where}:{first + offset}"
            if isinstance(line, OverlongLine):
                rejected = EventRejected(at, None, None, line.reason)
            elif isinstance(reason, str):
                rejected = _rejection(line, at, reason)
            elif isinstance(reason, RecursionError):
                rejected = EventRejected(at, None, None, NESTED_REASON)
            else:
                rejected = rejection(line, at, reason)
        failed.append((index, rejected))

    while True:
        checked = len(events)
        run_start = checked + len(failed)  # the index of the run's first line
        error: msgspec.DecodeError | RecursionError | None = None
        try:
            events.extend(map(decode, remaining))
        except _DECODE_ERRORS as exc:
            error = exc
        bad = _first_bad(events, checked, lines, run_start, plain)
        if bad is not None:
            position, reason = bad
            index = position + len(failed)  # lines decoded and failed before this one
            del events[position:]
            refuse(index, reason)
            remaining = islice(lines, index + 1, None)
        elif error is None:
            return DecodedLines(events, failed)
        else:
            refuse(len(events) + len(failed), error)


def decode_whole_lines(text: bytes) -> list[AnyEvent] | None:
    """The events of ``text`` (lines, each ending in a newline) when every line is an
    event that :func:`decode_lines` takes, the same events; None when one line is not,
    or is not an object alone on its line (:func:`decode_lines` of the lines then tells
    which failed, and why).

    One msgspec call decodes them all (``Decoder.decode_lines``), with no bytes object a
    line and no Python step an event; then the checks of :func:`_first_bad`, for them all
    at once (the free strings one event at a time only when ``text`` holds an escape).
    msgspec reads JSON values apart by whitespace, not by lines, so the lines are first
    found framed, by two scans in C: each begins with ``{`` and ends with ``}`` (the text
    begins with ``{``, ends with ``}`` and a line break, and every other line break stands
    between a ``}`` and a ``{``). Then no value can run on from one line into the next
    (a ``}``, a line break and a ``{`` are never valid JSON within a value, nor is a line
    break within a string), each line holds a value of its own, and as many values as
    lines means one whole value a line.
    """
    if not text:
        return []
    lines = text.count(b"\n")
    if not (text.startswith(b"{") and text.endswith(b"}\n") and text.count(b"}\n{") == lines - 1):
        return None
    try:
        events: list[AnyEvent] = _DECODER.decode_lines(text)
    except _DECODE_ERRORS:
        return None
    if len(events) != lines or not timestamps_valid(list(map(_ts, events))):
        return None
    if not _bets_known(events):
        return None
    if not is_plain(text) and any(map(_string_problem, events)):
        return None
    return events


def _first_bad(
    events: list[AnyEvent], start: int, lines: Sequence[bytes], run_start: int, plain: bool
) -> tuple[int, str] | None:
    """The first of ``events[start:]`` (decoded from consecutive lines, from
    ``lines[run_start]``) that :func:`decode_event` would refuse although msgspec took
    it: its position and why. None, the usual answer, is found with no step per event:

    - the timestamps by :func:`~tablewatch.rules.events.timestamps_valid`;
    - the bets, all at once against the registered games' (:func:`_bets_known`);
    - the free strings: when the lines are ASCII with no DEL and no backslash (so no
      escaped character either), every string in them is printable (msgspec refuses
      the other control characters unescaped in a string). Three scans of the joined
      lines in C, about 5% of the decoding.

    Only what fails as a whole is then checked event by event. Keys given twice are
    not looked for here (they are by :func:`decode_event`): counting them cost a third
    of the decoding (the events encoded again, and their quotes counted), so a file
    audit judges the last of a repeated key, as msgspec keeps it.
    """
    count = len(events) - start
    if not count:
        return None
    run = events[start:] if start else events
    ts_ok = timestamps_valid(list(map(_ts, run)))
    strings_ok = plain or is_plain(b"".join(lines[run_start : run_start + count]))
    bets_ok = _bets_known(run)
    if ts_ok and strings_ok and bets_ok:
        return None
    for offset, event in enumerate(run):
        line = lines[run_start + offset]
        problem = _problem(event, line, not ts_ok, not strings_ok, False, not bets_ok)
        if problem is not None:
            return start + offset, problem
    return None


def rejection(raw: bytes | str, where: str, exc: msgspec.DecodeError) -> EventRejected:
    """The :class:`EventRejected` for ``raw``, which msgspec refused with ``exc``."""
    if isinstance(exc, msgspec.ValidationError):
        return _rejection(raw, where, str(exc))
    return EventRejected(where, None, None, _clip(f"bad JSON: {exc}", _REASON_SHOWN))


def encode_event(event: AnyEvent) -> bytes:
    """One event as compact protocol JSON (no trailing newline)."""
    return _ENCODER.encode(event)


def _rejection(raw: bytes | str, where: str, message: str) -> EventRejected:
    field: str | None = None
    reason = message
    unknown = _UNKNOWN.fullmatch(message)
    found = None if unknown else _AT_FIELD.search(message)
    if unknown:
        field = unknown.group(1)
    elif found:
        field = found.group(1) or None
        reason = message[: found.start()]
    else:
        missing = _MISSING.search(message)
        field = missing.group(1) if missing else None
        if missing:
            reason = _missing(raw, missing.group(1))
    for prefix, protocol_reason in _VALUE_REASONS.get(field or "", ()):
        if reason.startswith(prefix):
            reason = protocol_reason
            break
    event_id = peek_field(raw, "event_id")
    if field == "type" and reason.startswith("Invalid value"):
        reason = f"unknown event type {reason.removeprefix('Invalid value ')}"
    elif field == "v" and reason.startswith("Invalid enum value"):
        reason = f"the protocol version `v` is 1, not {reason.removeprefix('Invalid enum value ')}"
    if field is not None:
        field = _clip(field, _FIELD_SHOWN)
    return EventRejected(where, event_id, field, _clip(reason, _REASON_SHOWN))


def _missing(raw: bytes | str, field: str) -> str:
    """The reason for a required ``field`` that ``raw`` does not have."""
    meaning = _FIELD_MEANINGS.get(field)
    if meaning is not None:
        return f"{meaning} is missing"
    kind = peek_field(raw, "type")
    needs = f": a `{_shown(_clip(kind, _FIELD_SHOWN))}` event needs it" if kind else ""
    return f"`{field}` is missing{needs}"


def _clip(text: str, most: int) -> str:
    """``text``, cut to ``most`` characters (an unknown key may be 60,000 long)."""
    return text if len(text) <= most else text[: most - 1] + "\u2026"


def _shown(text: str) -> str:
    """``text`` with each character that is not printable shown as an escape."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def peek_field(raw: bytes | str, name: str, max_bytes: int | None = None) -> str | None:
    """A string field of an item that failed validation, if it is readable (at most 128
    characters); None without parsing when ``raw`` is longer than ``max_bytes``. Never
    raises, whatever ``raw`` holds."""
    if max_bytes is not None and len(raw) > max_bytes:
        return None
    try:  # the other values are skipped, not converted (a number of 5,000 digits, say)
        value = _decode_fields(raw).get(name)
        text = _decode_str(value) if value is not None else None
    except (msgspec.DecodeError, RecursionError, UnicodeEncodeError):
        return None
    return text[:128] if text else None


_decode_fields = msgspec.json.Decoder(dict[str, msgspec.Raw]).decode
_decode_str = msgspec.json.Decoder(str).decode


class OverlongLine(bytes):
    """A line of a file too long to be read (its bytes were skipped, not kept), which
    :func:`decode_lines` rejects with :attr:`reason`.

    Its own bytes are one NUL, which no JSON parser takes: the line fails in the
    decoder like any malformed line, with no test on the hot path.
    """

    size: int  # bytes of the line in the file (without its newline)
    limit: int

    def __new__(cls, size: int, limit: int) -> OverlongLine:
        line = super().__new__(cls, b"\x00")
        line.size = size
        line.limit = limit
        return line

    @property
    def reason(self) -> str:
        return f"line of {self.size:,} bytes exceeds the limit of {self.limit:,} bytes"
