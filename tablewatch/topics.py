"""The pipeline's Kafka topics: their names, their keys, and the dead-letter record.

| topic | written by | key | value |
|---|---|---|---|
| ``table-events`` | ingest | ``table_id`` | the event's JSON bytes as received |
| ``table-events-dlq`` | ingest, worker | ``table_id`` if readable, else none | dead letter |
| ``rounds`` | worker | ``table_id`` | a judged round (JSON) |
| ``findings`` | worker | ``table_id`` | a finding (JSON) |
| ``chain-checkpoints`` | worker (signing) | the worker process | checkpoint or manifest |

A dead letter is :func:`dead_letter` (ingest) or :func:`worker_dead_letter`. Every
message is keyed by its table (:func:`table_key`): one table, one partition, in the
controller's order. A prefix (``--topics-prefix``) goes before every name: a test, a
benchmark or ``tablewatch live`` runs on topics of its own (:meth:`Topics.prefixed`).
``deploy/kafka.sh topics`` creates the unprefixed ones (its list is checked against
:data:`NAMES` by ``tests/test_topics.py``).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

if TYPE_CHECKING:
    from tablewatch.rules.findings import Finding

EVENTS = "table-events"
DEAD_LETTERS = "table-events-dlq"
ROUNDS = "rounds"
FINDINGS = "findings"
NAMES = (EVENTS, DEAD_LETTERS, ROUNDS, FINDINGS)
# the record of the chains' checkpoints kept outside the store: written only by a worker that
# signs them, which creates it (prefixed as the others); not one of NAMES, which every
# deployment has
CHECKPOINTS = "chain-checkpoints"
PARTITIONS = 4  # of each topic when TableWatch creates them (tests, live), and of the state
DLQ_RAW_BYTES = 128 * 1024  # raw text kept in one dead-letter record (escaped: < 1 MiB)


@dataclass(frozen=True, slots=True)
class Topics:
    """The four names one deployment uses."""

    events: str = EVENTS
    dead_letters: str = DEAD_LETTERS
    rounds: str = ROUNDS
    findings: str = FINDINGS

    @classmethod
    def prefixed(cls, prefix: str) -> Topics:
        """Every name with ``prefix`` before it (the ``--topics-prefix`` rule)."""
        return cls(*(f"{prefix}{name}" for name in NAMES))

    def names(self) -> tuple[str, ...]:
        return (self.events, self.dead_letters, self.rounds, self.findings)


def table_key(table_id: str) -> bytes:
    """The key of a message about ``table_id``, in every topic."""
    return table_id.encode()


_JSON = msgspec.json.Encoder()


def finding_message(finding: Finding, start_event_id: str, finding_id: str) -> tuple[bytes, bytes]:
    """A ``findings`` message, (key, value): the finding, with ``start_event_id`` of the
    judged round it is part of ("" for a table-level finding) and the ``finding_id`` of its
    stored row, as the row has them (a reader links the message to the stored finding
    without computing the id: that of EVENT_NOT_PROCESSED rests on the message's Kafka
    coordinates). The worker's findings and the patterns companion's alike."""
    value = finding.as_dict() | {"start_event_id": start_event_id, "finding_id": finding_id}
    return table_key(finding.table_id), _JSON.encode(value)


# ---- dead letters -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DeadLetter:
    """A record for the dead-letter topic: key (``table_id`` if readable) and JSON value."""

    key: bytes | None
    value: bytes


_JSON = msgspec.json.Encoder()


def _record(
    *,
    reason: str,
    field: str | None,
    where: str,
    event_id: str | None,
    raw: bytes,
    received_at: str,
    source: str,
    table_id: str | None,
    raw_bytes: int | None,
) -> dict[str, Any]:
    size = max(len(raw), raw_bytes or 0)
    kept = raw[:DLQ_RAW_BYTES]
    try:
        text = kept.decode("utf-8")
        encoding = "utf-8"
    except UnicodeDecodeError as exc:
        if exc.reason == "unexpected end of data" and len(kept) < size:
            # the cut split a multi-byte character: drop its head
            text = kept[: exc.start].decode("utf-8")
            encoding = "utf-8"
        else:
            text = base64.b64encode(kept).decode("ascii")
            encoding = "base64"
    return {
        "reason": reason,
        "field": field,
        "where": where,
        "event_id": event_id,
        "table_id": table_id,
        "raw": text,
        "raw_encoding": encoding,
        "raw_bytes": size,
        "truncated": len(kept) < size,
        "received_at": received_at,
        "source": source,
    }


def _key(table_id: str | None) -> bytes | None:
    return table_key(table_id) if table_id else None


def dead_letter(
    *,
    reason: str,
    field: str | None,
    where: str,
    event_id: str | None,
    raw: bytes,
    received_at: str,
    source: str,
    table_id: str | None = None,
    raw_bytes: int | None = None,
) -> DeadLetter:
    """The dead-letter record of one refused item or body.

    ``raw`` is kept as UTF-8 text (``raw_encoding: "utf-8"``), or base64 when it
    is not valid UTF-8; at most :data:`DLQ_RAW_BYTES` of it (``truncated``),
    so a record stays under Kafka's default 1 MiB message size. ``raw_bytes``:
    the full size when ``raw`` is only the part of a body that was read.
    """
    record = _record(
        reason=reason,
        field=field,
        where=where,
        event_id=event_id,
        raw=raw,
        received_at=received_at,
        source=source,
        table_id=table_id,
        raw_bytes=raw_bytes,
    )
    return DeadLetter(_key(table_id), _JSON.encode(record))


def worker_dead_letter(
    *,
    topic: str,
    partition: int,
    offset: int,
    stage: str,
    reason: str,
    field: str | None,
    where: str,
    event_id: str | None,
    table_id: str | None,
    raw: bytes,
    received_at: str,
) -> DeadLetter:
    """The record of a message the worker did not process: :func:`dead_letter`'s
    (``source: "worker"``) with the stage that failed (``decode``, ``judge``, ``store``)
    and the message's coordinates (``topic``, ``partition``, ``offset``).

    Never raises on what the message holds: a record that cannot be made whole is
    made without its raw bytes, with the reason saying why.
    """
    record: dict[str, Any]
    try:
        record = _record(
            reason=reason,
            field=field,
            where=where,
            event_id=event_id,
            raw=raw,
            received_at=received_at,
            source="worker",
            table_id=table_id,
            raw_bytes=None,
        )
        record.update(stage=stage, topic=topic, partition=partition, offset=offset)
        return DeadLetter(_key(table_id), _JSON.encode(record))
    except Exception as exc:  # never lose the letter itself
        record = {
            "reason": f"{reason} (and its record could not be written whole: {exc!r})",
            "field": field,
            "where": where,
            "event_id": event_id,
            "table_id": table_id,
            "received_at": received_at,
            "source": "worker",
        }
    record.update(stage=stage, topic=topic, partition=partition, offset=offset)
    return DeadLetter(_key(table_id), _JSON.encode(record))
