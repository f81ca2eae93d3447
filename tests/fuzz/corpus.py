"""Valid protocol events to mutate: a simulated floor (both games, errors and jackpots
injected), plus the event types a floor of that size does not send."""

from __future__ import annotations

import functools
import json
from typing import Any

import msgspec

from tablewatch.rules.decode import encode_event
from tablewatch.rules.events import EVENT_TYPES, AnyEvent, event_type
from tablewatch.script import TableScript
from tablewatch.sim.floor import Floor

# Every field name of the protocol, and the optional ones (a JSON null decodes as absent).
FIELD_NAMES = frozenset({"type"} | {name for cls in EVENT_TYPES for name in cls.__struct_fields__})
TYPE_NAMES = tuple(sorted(str(cls.__struct_config__.tag) for cls in EVENT_TYPES))


def _optional_fields() -> dict[str, frozenset[str]]:
    optional: dict[str, frozenset[str]] = {}
    for cls in EVENT_TYPES:
        info = msgspec.inspect.type_info(cls)
        assert isinstance(info, msgspec.inspect.StructType)
        optional[str(cls.__struct_config__.tag)] = frozenset(
            f.name for f in info.fields if not f.required
        )
    return optional


OPTIONAL_FIELDS = _optional_fields()


def _extra_events() -> list[AnyEvent]:
    script = TableScript("FUZZ-1", id_prefix="fz")
    script.table_open("let_it_ride", "lir-std")
    script.device_fault("shuffler", "jam")
    script.deck_in("D-\u00e9-1", "automated_shoe")
    script.round_start("R-\u03a9", "D-\u00e9-1", "DL-\u5f20")
    script.wager(3, "bet1", 500)
    script.void("shoe fault \u2013 cards re-dealt")
    script.settle(3, "bet1", "returned", 500, paid_from="cage", meter=12, validated_by="SUP-1")
    script.deck_out("D-\u00e9-1", "scheduled change")
    return script.events


@functools.cache
def valid_events() -> tuple[AnyEvent, ...]:
    floor = Floor(tables=4, rounds=60, seed=11, error_rate=0.1, jackpot_rate=0.2)
    return (*floor.events(), *_extra_events())


@functools.cache
def valid_raws() -> tuple[bytes, ...]:
    """Each valid event as compact JSON, one of each type first."""
    events = valid_events()
    first: dict[str, AnyEvent] = {}
    for event in events:
        first.setdefault(event_type(event), event)
    ordered = [*first.values(), *(e for e in events if first[event_type(e)] is not e)]
    return tuple(encode_event(e) for e in ordered)


@functools.cache
def valid_set() -> frozenset[bytes]:
    return frozenset(valid_raws())


def as_pairs(raw: bytes) -> list[tuple[str, Any]]:
    """A valid event's fields in order, as (key, value)."""
    obj: dict[str, Any] = json.loads(raw)
    return list(obj.items())
