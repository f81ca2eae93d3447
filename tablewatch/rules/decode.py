"""Decoding raw bytes into validated events, with rejections that say why.

A rejection names where the event came from (file line or position in a
batch), its ``event_id`` when one can be read, the field at fault and the
reason. Decoding is pure: callers read files or sockets and pass bytes in.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from operator import attrgetter

import msgspec

from tablewatch.rules.events import TS_REASON, AnyEvent, check_ts, timestamps_valid

_DECODER = msgspec.json.Decoder(AnyEvent)
_ENCODER = msgspec.json.Encoder()
_AT_FIELD = re.compile(r" - at `\$\.?([^`]*)`$")
# msgspec's wording for a value outside a field's constraints, where a person
# needs the protocol's: ts is checked by length (then by events.check_ts),
# card and to against Literal sets of strings.
_VALUE_REASONS = {
    "ts": ("Expected `str` of length", TS_REASON),
    "card": ("Invalid enum value", "not a card: rank 2-9 T J Q K A, then suit c d h s, like Td"),
    "to": (
        "Invalid enum value",
        "not a place: seat:1 .. seat:7, dealer, community, bonus, discard (deck if exposed)",
    ),
}
_ts = attrgetter("ts")
_MISSING = re.compile(r"missing required field `([^`]+)`")
_UNKNOWN = re.compile(r"unknown field `([^`]+)`")


@dataclass(frozen=True, slots=True)
class EventRejected(Exception):
    """One event refused by the decoder."""

    where: str  # "line 17" of a file, "item 3" of a batch
    event_id: str | None
    field: str | None
    reason: str

    def __str__(self) -> str:
        ident = f" (event_id {self.event_id})" if self.event_id else ""
        field = f"field `{self.field}`: " if self.field else ""
        return f"{self.where}{ident}: {field}{self.reason}"

    def as_dict(self) -> dict[str, str | None]:
        return {
            "where": self.where,
            "event_id": self.event_id,
            "field": self.field,
            "reason": self.reason,
        }


def decode_event(raw: bytes | str, where: str = "event") -> AnyEvent:
    """Decode and validate one JSON event; raises :class:`EventRejected`."""
    try:
        event: AnyEvent = _DECODER.decode(raw)
    except msgspec.DecodeError as exc:  # and its subclass ValidationError
        raise rejection(raw, where, exc) from None
    try:
        check_ts(event.ts)
    except ValueError as exc:
        raise _rejection(raw, where, str(exc)) from None
    return event


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
    lines: Sequence[bytes], where: str, first: int = 1, offsets: Sequence[int] | None = None
) -> DecodedLines:
    """JSON Lines: the events, and each line that failed (rejected at ``{where}:{number}``).

    A line's number is ``first`` plus its index, or plus ``offsets[index]`` when
    ``lines`` are some of a file's lines (``first`` that of the first). This
    is the hot path of a file audit: ``list.extend(map(...))`` decodes line
    after line with no Python code between them. A line that fails stops the
    ``map``, with the lines before it already in ``events`` and the iterator
    just past it; it is rejected (or skipped if blank) and decoding goes on.
    The timestamps of the events decoded are then checked together
    (:func:`~tablewatch.rules.events.timestamps_valid`): the first event with a
    bad one is taken out with those after it, its line is rejected and decoding
    resumes after that line.
    """
    decode = _DECODER.decode
    events: list[AnyEvent] = []
    failed: list[tuple[int, EventRejected | None]] = []
    remaining: Iterator[bytes] = iter(lines)

    def refuse(index: int, reason: msgspec.DecodeError | str) -> None:
        line = lines[index]
        rejected = None
        if line.strip():
            offset = offsets[index] if offsets is not None else index
            at = f"{where}:{first + offset}"
            if isinstance(reason, str):
                rejected = _rejection(line, at, reason)
            else:
                rejected = rejection(line, at, reason)
        failed.append((index, rejected))

    while True:
        checked = len(events)
        error: msgspec.DecodeError | None = None
        try:
            events.extend(map(decode, remaining))
        except msgspec.DecodeError as exc:
            error = exc
        bad_ts = _first_bad_ts(events, checked)
        if bad_ts is not None:
            position, reason = bad_ts
            index = position + len(failed)  # lines decoded and failed before this one
            del events[position:]
            refuse(index, reason)
            remaining = islice(lines, index + 1, None)
        elif error is None:
            return DecodedLines(events, failed)
        else:
            refuse(len(events) + len(failed), error)


def _first_bad_ts(events: list[AnyEvent], start: int) -> tuple[int, str] | None:
    """The first of ``events[start:]`` whose ``ts`` is not a protocol timestamp
    (its position and why), or None: the usual answer, found with no step per event."""
    timestamps = list(map(_ts, islice(events, start, None) if start else events))
    if timestamps_valid(timestamps):
        return None
    for offset, ts in enumerate(timestamps):
        try:
            check_ts(ts)
        except ValueError as exc:
            return start + offset, str(exc)
    return None


def rejection(raw: bytes | str, where: str, exc: msgspec.DecodeError) -> EventRejected:
    """The :class:`EventRejected` for ``raw``, which msgspec refused with ``exc``."""
    if isinstance(exc, msgspec.ValidationError):
        return _rejection(raw, where, str(exc))
    return EventRejected(where, None, None, f"bad JSON: {exc}")


def encode_event(event: AnyEvent) -> bytes:
    """One event as compact protocol JSON (no trailing newline)."""
    return _ENCODER.encode(event)


def _rejection(raw: bytes | str, where: str, message: str) -> EventRejected:
    field: str | None = None
    reason = message
    found = _AT_FIELD.search(message)
    if found:
        field = found.group(1) or None
        reason = message[: found.start()]
    else:
        for pattern in (_MISSING, _UNKNOWN):
            match = pattern.search(message)
            if match:
                field = match.group(1)
                break
    if field in _VALUE_REASONS and reason.startswith(_VALUE_REASONS[field][0]):
        reason = _VALUE_REASONS[field][1]
    event_id = peek_field(raw, "event_id")
    if field == "type" and reason.startswith("Invalid value"):
        reason = f"unknown event type {reason.removeprefix('Invalid value ')}"
    return EventRejected(where, event_id, field, reason)


def peek_field(raw: bytes | str, name: str, max_bytes: int | None = None) -> str | None:
    """A string field of an item that failed validation, if it is readable (at most 128
    characters); None without parsing when ``raw`` is longer than ``max_bytes``."""
    if max_bytes is not None and len(raw) > max_bytes:
        return None
    try:
        obj = json.loads(raw)
    except ValueError:
        return None
    if isinstance(obj, dict):
        value = obj.get(name)
        if isinstance(value, str) and value:
            return value[:128]
    return None
