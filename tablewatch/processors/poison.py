"""Messages the worker cannot process: what can be read of them, and their dead letters.

A message the worker cannot decode, judge or store is set aside instead of
stopping it (see ``docs/pipeline.md``, "A message the worker cannot
process"): its dead letter carries the reason, the stage that failed and its
Kafka coordinates, and its table, when one can be read, gets an
EVENT_NOT_PROCESSED finding. Nothing here may fail on the message, whatever
its bytes: they are read with msgspec in C, in a ``try``, never with a
recursive parser.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from tablewatch.message_fate import readable_id as readable_id
from tablewatch.topics import worker_dead_letter


@dataclass(frozen=True, slots=True)
class Origin:
    """The message rows and refusals come from: its coordinates, bytes (None: not at hand)
    and, once read, its table and event ids. ``note``: what failed when it was not the
    message itself (the silence timer closing a round after it)."""

    partition: int
    offset: int
    raw: bytes | None
    table_id: str | None = None
    event_id: str | None = None
    note: str = ""

    def where(self, topic: str) -> str:
        """The coordinates in words, as findings and logs give them."""
        at = f"{topic} partition {self.partition} offset {self.offset}"
        return f"{self.note} (after {at})" if self.note else at

    def key(self, topic: str) -> str:
        """The same for the same message read again: part of its finding's id."""
        key = f"{topic}/{self.partition}/{self.offset}"
        return f"{key}/{self.note}" if self.note else key


class _Ids(msgspec.Struct):
    table_id: Any = None
    event_id: Any = None


_read_ids = msgspec.json.Decoder(_Ids).decode


def peek_ids(raw: bytes) -> tuple[str | None, str | None]:
    """The (table_id, event_id) of a message that did not decode, where readable.

    Bytes that are not UTF-8 are read again with the bad bytes replaced: a bad
    byte in another field leaves the table readable. Nothing raises: a value
    nested too deeply, not JSON, not an object all give (None, None).
    """
    for attempt in (raw, None):
        try:
            ids = _read_ids(raw if attempt is not None else raw.decode("utf-8", "replace"))
        except Exception:
            continue
        return readable_id(ids.table_id), readable_id(ids.event_id)
    return None, None


def dead_letter_record(
    *,
    topic: str,
    origin: Origin,
    stage: str,
    reason: str,
    field: str | None,
    received_at: str,
) -> tuple[bytes | None, bytes]:
    """The dead-letter record of a message the worker did not process (key, value):
    :func:`tablewatch.topics.worker_dead_letter`, where ``origin`` was read."""
    where = f"partition {origin.partition} offset {origin.offset}"
    if origin.note:
        where = f"{origin.note} (after {where})"
    letter = worker_dead_letter(
        topic=topic,
        partition=origin.partition,
        offset=origin.offset,
        stage=stage,
        reason=reason,
        field=field,
        where=where,
        event_id=origin.event_id,
        table_id=origin.table_id,
        raw=origin.raw or b"",
        received_at=received_at,
    )
    return letter.key, letter.value
