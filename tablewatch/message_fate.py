"""What one message of the events topic becomes: refused, delivered again, a duplicate, or chained.

One pure function, :func:`message_fate`, decides it for the worker
(``processors/processor.py``, which stores and chains what it says) and for
``tablewatch verify --kafka`` (``integrity/kafka_source.py``, which recomputes
each table's chain from the topic by it): the two can never disagree on which
message is stored and at which chain position, and a change here changes both.

In order:

1. bytes the decoder refuses (or fails on): :class:`Refused` at stage ``decode``;
2. an event whose ``raw_events`` row the store could not hold (seq or ts out of
   the column's range, an amount or count past Int64) or whose row cannot be
   built: :class:`Refused` at stage ``store``;
3. a message at or below the offset its table last applied (Kafka delivering
   it again after a seek, a crash or a rebalance): :class:`Redelivered`, stored
   and chained the first time;
4. an event_id among the last ones of its table's duplicate window (the
   table's own :class:`~tablewatch.rules.id_window.IdWindow`, asked, never
   changed: the table remembers the id when it folds the event; a table with no
   configuration has no window and ignores no duplicate): :class:`Duplicate`,
   neither stored nor chained (its row, of the original's key when its ts is
   the same, would replace the row of the event that was judged);
5. otherwise :class:`Chained`: its row is stored at its table's next chain
   position.

No I/O here: the caller's ``view`` gives the table's window and last offset
(the worker restores a table from its saved state on first sight there). The
fates are msgspec Structs: made for every message, one is made in about a
quarter of a frozen dataclass's time (75 against 325 ns).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Literal

import msgspec

from tablewatch.rules.decode import EventRejected, decode_event
from tablewatch.rules.events import EVENT_TYPES, AnyEvent, Event
from tablewatch.rules.id_window import IdWindow
from tablewatch.store.errors import describe
from tablewatch.store.rows import INT_RANGES, EventRow, event_row, event_row_problem

ID_MAX = 64  # the protocol's longest id
_INT64_MIN, _INT64_MAX = INT_RANGES["Int64"]
_SMALL = 2**16  # an integer field the decoder keeps within 0 to this is not checked again


class Refused(msgspec.Struct, frozen=True):
    """Not processed: dead-lettered at ``stage`` (``decode``: the decoder refused or failed on
    the bytes; ``store``: the store could not hold its row) for ``reason``, naming ``field``
    when one is at fault; the table_id and event_id read, when they were."""

    stage: Literal["decode", "store"]
    reason: str
    field: str | None = None
    table_id: str | None = None
    event_id: str | None = None


class Redelivered(msgspec.Struct, frozen=True):
    """At or below the offset its table last applied: stored and chained already."""

    event: AnyEvent


class Duplicate(msgspec.Struct, frozen=True):
    """An event_id its table's window holds: ignored, its ``row`` neither stored nor chained."""

    event: AnyEvent
    row: EventRow


class Chained(msgspec.Struct, frozen=True):
    """Stored as ``row`` at its table's next chain position."""

    event: AnyEvent
    row: EventRow


Fate = Refused | Redelivered | Duplicate | Chained


class TableView(msgspec.Struct, frozen=True):
    """What the fate of a table's message rests on: its duplicate window (None: the table has
    no configuration, and ignores no duplicate) and the offset of the last message it applied
    (None: none, or a reader that reads each offset once)."""

    window: IdWindow | None
    applied_to: int | None = None


# (table_id, partition) -> the table's view, read once its message decoded and its row held
ViewOf = Callable[[str, int], TableView]


def message_fate(raw: bytes, partition: int, offset: int, now_ms: int, view: ViewOf) -> Fate:
    """What the message ``raw`` at ``partition``/``offset`` becomes, received at ``now_ms``
    (its row's ingested time). Raises only what ``view`` raises."""
    try:
        event = decode_event(raw, f"partition {partition} offset {offset}")
    except EventRejected as rejected:
        return Refused(
            "decode", rejected.reason, rejected.field, event_id=readable_id(rejected.event_id)
        )
    except Exception as exc:  # the decoder itself failed on these bytes
        return Refused("decode", f"decoder: {describe(exc)}")
    try:
        row = event_row(raw, event, partition, offset, now_ms)
        problem = event_row_problem(row) or event_problem(event)
    except Exception as exc:
        problem = f"its row could not be built: {describe(exc)}"
    if problem is not None:
        return Refused("store", problem, table_id=event.table_id, event_id=event.event_id)
    table = view(event.table_id, partition)
    if table.applied_to is not None and offset <= table.applied_to:
        return Redelivered(event)
    if table.window is not None and table.window.is_seen(event.event_id):
        return Duplicate(event, row)
    return Chained(event, row)


def readable_id(value: object) -> str | None:
    """``value`` if it can stand for an id: a string of 1 to 64 printable characters."""
    if isinstance(value, str) and 0 < len(value) <= ID_MAX and value.isprintable():
        return value
    return None


def _int_fields(cls: type[Event]) -> tuple[str, ...]:
    """The integer fields of an event type but ``seq`` (checked on the event's row) and those
    the decoder keeps to a few digits (seats, indexes): amounts and counts. Checked whatever
    the decoder's ranges: a wider one must not reach the store."""
    info = msgspec.inspect.type_info(cls)
    assert isinstance(info, msgspec.inspect.StructType)
    names = []
    for field in info.fields:
        kinds = field.type.types if isinstance(field.type, msgspec.inspect.UnionType) else (
            field.type,
        )  # fmt: skip
        for kind in kinds:
            if isinstance(kind, msgspec.inspect.IntType) and field.name != "seq":
                low = kind.ge if kind.gt is None else kind.gt + 1
                high = kind.le if kind.lt is None else kind.lt - 1
                if low is None or high is None or low < 0 or high > _SMALL:
                    names.append(field.name)
    return tuple(names)


_INT_FIELDS: Final = {cls: _int_fields(cls) for cls in EVENT_TYPES}


def event_problem(event: AnyEvent) -> str | None:
    """Why the store could not hold what ``event`` carries, or None: an amount or a count
    outside Int64, the type of the store's money columns (its seq and ts are checked on
    its row)."""
    for name in _INT_FIELDS[type(event)]:
        value = getattr(event, name)
        if value is not None and not _INT64_MIN <= value <= _INT64_MAX:
            return f"{name} {value} does not fit the store's Int64 columns"
    return None
