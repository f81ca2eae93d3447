"""Decoding raw bytes into validated events, with rejections that say why.

A rejection names where the event came from (file line or position in a
batch), its ``event_id`` when one can be read, the field at fault and the
reason. Decoding is pure: callers read files or sockets and pass bytes in.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import msgspec

from tablewatch.rules.events import AnyEvent

_DECODER = msgspec.json.Decoder(AnyEvent)
_ENCODER = msgspec.json.Encoder()
_AT_FIELD = re.compile(r" - at `\$\.?([^`]*)`$")
_PATTERN_REASONS = {
    "ts": "not an RFC 3339 UTC timestamp with milliseconds, like 2026-11-29T20:15:03.123Z",
    "card": "not a card: rank 2-9 T J Q K A, then suit c d h s, like Td",
    "to": "not a place: seat:1 .. seat:7, dealer, community, bonus, discard (deck if exposed)",
}
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
        return _DECODER.decode(raw)
    except msgspec.ValidationError as exc:
        raise _rejection(raw, where, str(exc)) from None
    except msgspec.DecodeError as exc:
        raise EventRejected(where, None, None, f"bad JSON: {exc}") from None


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
    if field in _PATTERN_REASONS and reason.startswith("Expected `str` matching regex"):
        reason = _PATTERN_REASONS[field]
    event_id = _peek_event_id(raw)
    if field == "type" and reason.startswith("Invalid value"):
        reason = f"unknown event type {reason.removeprefix('Invalid value ')}"
    return EventRejected(where, event_id, field, reason)


def _peek_event_id(raw: bytes | str) -> str | None:
    """The event_id of an event that failed validation, if it has a readable one."""
    try:
        obj = json.loads(raw)
    except ValueError:
        return None
    if isinstance(obj, dict):
        value = obj.get("event_id")
        if isinstance(value, str) and value:
            return value[:128]
    return None
