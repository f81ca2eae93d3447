"""The pure ingest step: split a batch, validate each event, classify it (no I/O).

A batch is either an HTTP body (a JSON array of events) or a run of JSON
Lines. Every item keeps the exact bytes it arrived as (``msgspec.Raw`` slices
of the body), so what is produced to Kafka is the controller's own text.

Each item is classified:

- **accepted**: a valid protocol event whose ``event_id`` is new; it is to be
  produced to the events topic (``table-events``);
- **duplicate**: a valid event whose ``event_id`` was accepted before (earlier
  in this batch, or in an earlier batch still in the :class:`SeenWindow`);
  answered, never produced again;
- **rejected**: refused by the rules engine's decoder
  (:func:`tablewatch.rules.decode.decode_event`) or larger than the per-event
  limit; it goes to the dead-letter topic with its reason.

A body that is not a JSON array, is not JSON at all, or breaks a size limit is
refused as a whole (:class:`BodyRefused`) and nothing in it is produced.

Nothing here touches the window: :func:`classify` only *reads* it. The caller
adds the ids of the events Kafka confirmed (:meth:`SeenWindow.add`), so an
event whose delivery failed is not answered ``duplicate`` when it is re-sent.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import msgspec

from tablewatch.rules.decode import EventRejected, decode_event, peek_field
from tablewatch.rules.events import AnyEvent
from tablewatch.topics import DeadLetter, dead_letter

MAX_BODY_BYTES = 1024 * 1024  # 1 MiB per HTTP body
MAX_EVENTS = 5_000  # events per batch
MAX_EVENT_BYTES = 64 * 1024  # one event's raw text (valid events are well under 2 KiB)
WINDOW_IDS = 1_000_000  # accepted event_ids remembered for duplicate detection

Status = Literal["accepted", "duplicate", "rejected"]
_FLAT = "a JSON array of flat event objects"


@dataclass(frozen=True, slots=True)
class Limits:
    max_body_bytes: int = MAX_BODY_BYTES
    max_events: int = MAX_EVENTS
    max_event_bytes: int = MAX_EVENT_BYTES


DEFAULT_LIMITS = Limits()


@dataclass(frozen=True, slots=True)
class Item:
    """One event of a batch: where it came from and its bytes exactly as received."""

    where: str  # "item 3" (0-based position in the array), "events.jsonl:17"
    raw: bytes
    size: int | None = None  # its size when ``raw`` is not all of it (a file's overlong line)

    @property
    def bytes_in(self) -> int:
        return len(self.raw) if self.size is None else self.size


@dataclass(frozen=True, slots=True)
class Accepted:
    index: int
    where: str
    raw: bytes
    event: AnyEvent

    status: Literal["accepted"] = "accepted"

    @property
    def event_id(self) -> str:
        return self.event.event_id

    @property
    def table_id(self) -> str:
        return self.event.table_id


@dataclass(frozen=True, slots=True)
class Duplicate:
    index: int
    where: str
    event_id: str
    table_id: str
    reason: str

    status: Literal["duplicate"] = "duplicate"


@dataclass(frozen=True, slots=True)
class Rejected:
    index: int
    where: str
    raw: bytes
    rejection: EventRejected
    table_id: str | None  # when the item is an object with a readable table_id
    size: int | None = None  # the item's size when ``raw`` is not all of it

    status: Literal["rejected"] = "rejected"

    @property
    def event_id(self) -> str | None:
        return self.rejection.event_id


ItemVerdict = Accepted | Duplicate | Rejected


class BodyRefused(Exception):
    """A whole batch refused: ``kind`` is ``"malformed"`` or ``"oversized"``."""

    def __init__(self, kind: Literal["malformed", "oversized"], reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


@dataclass(frozen=True, slots=True)
class ClassifiedBatch:
    """The classified items of one batch, in their order."""

    outcomes: list[ItemVerdict]

    @property
    def accepted(self) -> list[Accepted]:
        return [o for o in self.outcomes if isinstance(o, Accepted)]

    @property
    def duplicates(self) -> list[Duplicate]:
        return [o for o in self.outcomes if isinstance(o, Duplicate)]

    @property
    def rejected(self) -> list[Rejected]:
        return [o for o in self.outcomes if isinstance(o, Rejected)]


class SeenWindow:
    """The last ``capacity`` accepted event_ids, oldest forgotten first.

    An insertion-ordered dict: membership is O(1) and eviction pops the oldest
    key. About 100 bytes per id of 20 characters: 1,000,000 ids take ~100 MB.
    """

    def __init__(self, capacity: int = WINDOW_IDS) -> None:
        if capacity < 1:
            raise ValueError("the window holds at least one id")
        self.capacity = capacity
        self._ids: dict[str, None] = {}

    def __contains__(self, event_id: object) -> bool:
        return event_id in self._ids

    def __len__(self) -> int:
        return len(self._ids)

    def add(self, event_ids: Iterable[str]) -> None:
        ids = self._ids
        for event_id in event_ids:
            if event_id in ids:
                continue
            ids[event_id] = None
            if len(ids) > self.capacity:
                del ids[next(iter(ids))]


def split_body(body: bytes, limits: Limits = DEFAULT_LIMITS) -> list[Item]:
    """The items of an HTTP body (a JSON array), each with its exact bytes.

    Raises :class:`BodyRefused` for a body over the byte or event limit, bad
    JSON, or JSON that is not an array.
    """
    if len(body) > limits.max_body_bytes:
        raise BodyRefused(
            "oversized", f"body of {len(body):,} bytes exceeds {limits.max_body_bytes:,} bytes"
        )
    try:
        raws = msgspec.json.decode(body, type=list[msgspec.Raw])
    except msgspec.ValidationError as exc:
        reason = str(exc)
        if reason.startswith("Expected `array`"):
            reason = f"the body must be a JSON array of events: {reason}"
        raise BodyRefused("malformed", reason) from None
    except msgspec.DecodeError as exc:
        raise BodyRefused("malformed", f"bad JSON: {exc}") from None
    except RecursionError:
        raise BodyRefused("malformed", f"bad JSON: nested too deeply ({_FLAT})") from None
    if len(raws) > limits.max_events:
        raise BodyRefused(
            "oversized", f"{len(raws):,} events exceed {limits.max_events:,} per batch"
        )
    return [Item(f"item {i}", bytes(raw)) for i, raw in enumerate(raws)]


# A rule applied to each event that decoded (the signature rule, ingest/signing.py):
# (event, its raw bytes, where) -> None to go on, or the rejection
Verify = Callable[[AnyEvent, bytes, str], EventRejected | None]


def classify(
    items: Sequence[Item],
    seen: Container[str],
    limits: Limits = DEFAULT_LIMITS,
    verify: Verify | None = None,
) -> ClassifiedBatch:
    """Validate every item and sort it into accepted, duplicate or rejected.

    ``seen`` holds the event_ids accepted by earlier batches; it is read, not
    changed. A later item with the event_id of an item accepted earlier in the
    same batch is a duplicate too. Validation comes first: an invalid event is
    rejected even when its event_id was seen. ``verify``, if given, is asked about
    each event that decoded, before the duplicate check (a forged copy of an event
    already accepted is rejected, not answered duplicate).
    """
    outcomes: list[ItemVerdict] = []
    here: set[str] = set()
    for index, item in enumerate(items):
        size = item.bytes_in
        if size > limits.max_event_bytes:
            rejection = EventRejected(
                item.where,
                peek_field(item.raw, "event_id", MAX_EVENT_BYTES),
                None,
                f"event of {size:,} bytes exceeds {limits.max_event_bytes:,} bytes",
            )
            table_id = peek_field(item.raw, "table_id", MAX_EVENT_BYTES)
            outcomes.append(Rejected(index, item.where, item.raw, rejection, table_id, item.size))
            continue
        try:
            event = decode_event(item.raw, item.where)
        except EventRejected as rejection:
            table_id = peek_field(item.raw, "table_id", MAX_EVENT_BYTES)
            outcomes.append(Rejected(index, item.where, item.raw, rejection, table_id))
            continue
        if verify is not None:
            refused = verify(event, item.raw, item.where)
            if refused is not None:
                outcomes.append(Rejected(index, item.where, item.raw, refused, event.table_id))
                continue
        event_id = event.event_id
        if event_id in here:
            outcomes.append(
                Duplicate(
                    index,
                    item.where,
                    event_id,
                    event.table_id,
                    "event_id already accepted earlier in this batch",
                )
            )
        elif event_id in seen:
            outcomes.append(
                Duplicate(index, item.where, event_id, event.table_id, "event_id already accepted")
            )
        else:
            here.add(event_id)
            outcomes.append(Accepted(index, item.where, item.raw, event))
    return ClassifiedBatch(outcomes)


def check_body(
    body: bytes, seen: Container[str], limits: Limits = DEFAULT_LIMITS
) -> ClassifiedBatch:
    """:func:`split_body` then :func:`classify`; raises :class:`BodyRefused`."""
    return classify(split_body(body, limits), seen, limits)


def result_row(outcome: ItemVerdict) -> dict[str, Any]:
    """One entry of the HTTP reply's ``results``."""
    if isinstance(outcome, Accepted):
        return {
            "index": outcome.index,
            "event_id": outcome.event_id,
            "status": "accepted",
            "field": None,
            "reason": None,
        }
    if isinstance(outcome, Duplicate):
        return {
            "index": outcome.index,
            "event_id": outcome.event_id,
            "status": "duplicate",
            "field": None,
            "reason": outcome.reason,
        }
    return {
        "index": outcome.index,
        "event_id": outcome.event_id,
        "status": "rejected",
        "field": outcome.rejection.field,
        "reason": outcome.rejection.reason,
    }


# ---- dead letters (the record: tablewatch.topics) ------------------------------


def dead_letter_of(rejected: Rejected, received_at: str, source: str) -> DeadLetter:
    r = rejected.rejection
    return dead_letter(
        reason=r.reason,
        field=r.field,
        where=r.where,
        event_id=r.event_id,
        raw=rejected.raw,
        received_at=received_at,
        source=source,
        table_id=rejected.table_id,
        raw_bytes=rejected.size,
    )


def dead_letter_of_body(
    refused: BodyRefused, body: bytes, received_at: str, source: str, body_bytes: int | None = None
) -> DeadLetter:
    """The record of a refused body; ``body`` may be only the part that was read."""
    return dead_letter(
        reason=f"{refused.kind}: {refused.reason}",
        field=None,
        where="body",
        event_id=None,
        raw=body,
        received_at=received_at,
        source=source,
        raw_bytes=body_bytes,
    )
