"""The bodies the alerter's HTTP API takes, decoded and checked with bounds before anything
is written: an acknowledgement (``{"note": TEXT}``) and Alertmanager's webhook notification.

Every refusal is a :class:`BodyError` naming the field and the reason (answered 400; 413
for a body over its size). Decoding is typed (msgspec): a value of the wrong shape is
refused where it stands, a body nested deeper than the decoder goes is refused, never a
``RecursionError``.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Annotated, Final, TypeVar

import msgspec

from tablewatch.terminal_text import printable

MAX_ACK_BYTES: Final = 16 * 1024
MAX_NOTE_CHARS: Final = 2000
MAX_WEBHOOK_BYTES: Final = 4 * 1024 * 1024
MAX_ALERTS: Final = 1000  # per notification (a group is one table and check)
MAX_LABELS: Final = 64
MAX_LABEL_NAME: Final = 128
MAX_LABEL_VALUE: Final = 1024
MAX_RECEIVER: Final = 256
ALERT_ID: Final = re.compile(r"^[0-9a-f]{20}$")  # model.stable_id(..., size=10)
LEVEL: Final = re.compile(r"^[0-9]{1,3}$")

T = TypeVar("T")
_CONTROL: Final = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # Cc but tab and line feed


class BodyError(ValueError):
    """A body refused: ``reason`` names the field; ``status`` is 400, or 413 (too large)."""

    def __init__(self, reason: str, status: int = 400) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status


class Acknowledgement(msgspec.Struct, forbid_unknown_fields=True):
    note: str = ""
    by: str | None = None  # if given, the caller's own name (the token's holder)


_Label = Annotated[str, msgspec.Meta(max_length=MAX_LABEL_NAME)]
_Value = Annotated[str, msgspec.Meta(max_length=MAX_LABEL_VALUE)]


class NotifiedAlert(msgspec.Struct):
    status: Annotated[str, msgspec.Meta(max_length=16)] = ""
    labels: Annotated[dict[_Label, _Value], msgspec.Meta(max_length=MAX_LABELS)] = {}


class Notification(msgspec.Struct):
    """Alertmanager's webhook body (the fields the alerter reads; the rest is skipped)."""

    receiver: Annotated[str, msgspec.Meta(max_length=MAX_RECEIVER)] = ""
    alerts: Annotated[list[NotifiedAlert], msgspec.Meta(max_length=MAX_ALERTS)] = []


@dataclass(frozen=True, slots=True)
class Delivered:
    """One firing alert of a notification, checked: its labels and its level."""

    labels: dict[str, str]
    level: int


def decode(raw: bytes, kind: type[T], max_bytes: int) -> T:
    """``raw`` as ``kind``; :class:`BodyError` when it is too large, not JSON, or not that."""
    if len(raw) > max_bytes:
        raise BodyError(f"the body is {len(raw):,} bytes: at most {max_bytes:,}", 413)
    try:
        return msgspec.json.decode(raw, type=kind)
    except msgspec.ValidationError as exc:
        raise BodyError(f"the body is refused: {exc}") from None
    except msgspec.DecodeError as exc:
        raise BodyError(f"the body is not JSON (UTF-8): {exc}") from None
    except RecursionError:
        raise BodyError("the body is nested too deep") from None


def acknowledgement(raw: bytes, caller: str) -> str:
    """The note of an acknowledgement by ``caller``; :class:`BodyError` (422 for a ``by``
    other than the caller)."""
    body = decode(raw, Acknowledgement, MAX_ACK_BYTES) if raw.strip() else Acknowledgement()
    if body.by is not None and body.by.strip() != caller:
        raise BodyError(
            f"by: {printable(body.by)!r} is not the caller ({caller}): an acknowledgement "
            "is recorded under its token's holder; leave by out",
            422,
        )
    return checked_note(body.note)


def checked_note(note: str) -> str:
    """``note`` if it may be stored: at most 2,000 characters, no control characters but
    tab and line feed; :class:`BodyError` otherwise."""
    if len(note) > MAX_NOTE_CHARS:
        raise BodyError(f"note: {len(note):,} characters, at most {MAX_NOTE_CHARS:,}")
    bad = sorted(set(_CONTROL.findall(note)))
    if bad:
        raise BodyError(f"note: control characters are refused ({printable(''.join(bad))})")
    return note


def deliveries(
    notification: Notification, receivers: Collection[str], max_level: int
) -> list[Delivered]:
    """The firing alerts of ``notification``, each checked; :class:`BodyError` naming the
    first that is refused (then nothing of the notification is recorded)."""
    if notification.receiver not in receivers:
        raise BodyError(
            f"receiver: {printable(notification.receiver)!r} is not a receiver of these rules"
        )
    found: list[Delivered] = []
    for i, alert in enumerate(notification.alerts):
        where = f"alerts[{i}]"
        if alert.status not in ("firing", "resolved"):
            raise BodyError(f"{where}.status: {printable(alert.status)!r}: firing or resolved")
        if alert.status != "firing":
            continue
        alert_id = alert.labels.get("alert_id", "")
        if not ALERT_ID.match(alert_id):
            raise BodyError(
                f"{where}.labels.alert_id: {printable(alert_id)!r} is not an alert id "
                "(20 hex digits)"
            )
        text = alert.labels.get("escalation", "0")
        level = int(text) if LEVEL.match(text) else -1
        if not 0 <= level <= max_level:
            raise BodyError(
                f"{where}.labels.escalation: {printable(text)!r} is not a level of these "
                f"rules (0 to {max_level})"
            )
        found.append(Delivered(dict(alert.labels), level))
    return found
