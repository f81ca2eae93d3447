"""Messages to rows: pure functions from events, judged rounds and findings to table rows.

No client here (snuba-style "message -> rows"): the worker builds rows with
these and hands them to :class:`tablewatch.store.writer.StoreWriter`. Each
row is a tuple in the order of its table's ``*_COLUMNS``. Money stays
integer cents; every timestamp is integer milliseconds since the epoch (UTC),
which clickhouse-connect writes to ``DateTime64(3, 'UTC')`` as is.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

import msgspec

from tablewatch.rules.events import AnyEvent, RoundEvent, event_type, ms_to_ts, ts_to_ms
from tablewatch.rules.findings import Finding
from tablewatch.rules.judge import RoundResult

NOT_FROM_KAFKA = -1  # kafka_partition and kafka_offset of events read from files or HTTP

# ---- raw_events ---------------------------------------------------------------

RAW_EVENTS = "raw_events"
EVENT_COLUMNS = (
    "table_id",
    "event_id",
    "seq",
    "ts",
    "type",
    "round_id",
    "payload",
    "kafka_partition",
    "kafka_offset",
    "ingested_at",
    "chain_pos",
    "chain_prev",
    "chain_hash",
)
# chain_pos, chain_prev, chain_hash: the event's place in its table's hash chain
# (tablewatch.integrity.chain); 0, "", "" outside any chain.
EventRow = tuple[str, str, int, int, str, str, bytes, int, int, int, int, str, str]
# Each column's type, as the migrations declare it (tests compare them with the store's).
EVENT_TYPES: Final = (
    "LowCardinality(String)",
    "String",
    "UInt64",
    "DateTime64(3, 'UTC')",
    "LowCardinality(String)",
    "String",
    "String",
    "Int32",
    "Int64",
    "DateTime64(3, 'UTC')",
    "UInt64",
    "String",
    "String",
)


def event_row(
    raw: bytes | bytearray | memoryview | str,
    event: AnyEvent,
    partition: int,
    offset: int,
    ingested_at_ms: int,
) -> EventRow:
    """The ``raw_events`` row of ``event``, decoded from ``raw`` (kept verbatim as the payload),
    outside any chain (see :func:`chained`)."""
    payload = raw.encode() if isinstance(raw, str) else bytes(raw)
    return (
        event.table_id,
        event.event_id,
        event.seq,
        ts_to_ms(event.ts),
        event_type(event),
        event.round_id if isinstance(event, RoundEvent) else "",
        payload,
        partition,
        offset,
        ingested_at_ms,
        0,
        "",
        "",
    )


def chained(row: EventRow, position: int, prev: str, digest: str) -> EventRow:
    """``row`` at ``position`` of its table's chain, after the event whose hash is ``prev``."""
    return (*row[:10], position, prev, digest)


# ---- rounds -------------------------------------------------------------------

ROUNDS = "rounds"
ROUND_COLUMNS = (
    "table_id",
    "round_id",
    "start_event_id",
    "game",
    "start_ts",
    "end_ts",
    "dealer_id",
    "deck_id",
    "seats",
    "wagered",
    "paid",
    "voided",
    "complete",
    "finding_count",
    "judged_at",
)
# start_event_id (rounds, settlements, findings): the event_id of the event that began the
# round (RoundResult.start_event_id); with table_id and round_id, a stored round's identity.
# '' for a table-level finding.
RoundRow = tuple[
    str, str, str, str, int, int, str | None, str | None, int, int, int, bool, bool, int, int
]
ROUND_TYPES: Final = (
    "LowCardinality(String)",
    "String",
    "String",
    "LowCardinality(String)",
    "DateTime64(3, 'UTC')",
    "DateTime64(3, 'UTC')",
    "LowCardinality(Nullable(String))",
    "Nullable(String)",
    "UInt8",
    "Int64",
    "Int64",
    "Bool",
    "Bool",
    "UInt32",
    "DateTime64(3, 'UTC')",
)

# ---- settlements --------------------------------------------------------------

SETTLEMENTS = "settlements"
SETTLEMENT_COLUMNS = (
    "table_id",
    "round_id",
    "start_event_id",
    "seat",
    "bet",
    "stake",
    "expected_result",
    "expected_paid",
    "actual_result",
    "actual_paid",
    "start_ts",
    "judged_at",
    "game",  # the round's (its table_open's): the hold rollups count its bets by it
)
SettlementRow = tuple[
    str, str, str, int, str, int, str | None, int | None, str | None, int | None, int, int, str
]
SETTLEMENT_TYPES: Final = (
    "LowCardinality(String)",
    "String",
    "String",
    "UInt8",
    "LowCardinality(String)",
    "Int64",
    "LowCardinality(Nullable(String))",
    "Nullable(Int64)",
    "LowCardinality(Nullable(String))",
    "Nullable(Int64)",
    "DateTime64(3, 'UTC')",
    "DateTime64(3, 'UTC')",
    "LowCardinality(String)",
)


class SettlementLineLike(Protocol):
    """What a settlement line of a :class:`RoundResult` offers (judge.SettlementLine)."""

    @property
    def seat(self) -> int: ...
    @property
    def bet(self) -> str: ...
    @property
    def stake(self) -> int: ...
    @property
    def expected_result(self) -> str | None: ...
    @property
    def expected_paid(self) -> int | None: ...
    @property
    def actual_result(self) -> str | None: ...
    @property
    def actual_paid(self) -> int | None: ...


def settlement_lines(result: RoundResult) -> tuple[SettlementLineLike, ...]:
    """``result.settlements``, whether an attribute or (computed lazily) a method."""
    lines: object = result.settlements
    if callable(lines):
        lines = lines()
    if not isinstance(lines, Iterable):
        raise TypeError(f"RoundResult.settlements gave {type(lines).__name__}, not lines")
    return tuple(lines)


# ---- findings -----------------------------------------------------------------

FINDINGS = "findings"
FINDING_COLUMNS = (
    "finding_id",
    "table_id",
    "round_id",
    "start_event_id",
    "check",
    "severity",
    "regulation",
    "seat",
    "bet",
    "expected",
    "actual",
    "message",
    "event_ids",
    "ts",
    "judged_at",
)
FindingRow = tuple[
    str,
    str,
    str,
    str,
    str,
    str,
    str,
    int | None,
    str,
    int | None,
    int | None,
    str,
    list[str],
    int | None,
    int,
]

FINDING_TYPES: Final = (
    "String",
    "LowCardinality(String)",
    "String",
    "String",
    "LowCardinality(String)",
    "LowCardinality(String)",
    "LowCardinality(String)",
    "Nullable(UInt8)",
    "LowCardinality(String)",
    "Nullable(Int64)",
    "Nullable(Int64)",
    "String",
    "Array(String)",
    "Nullable(DateTime64(3, 'UTC'))",
    "DateTime64(3, 'UTC')",
)

_ID_ENCODER = msgspec.json.Encoder()


def finding_id(
    finding: Finding, origin: str = "", start_event_id: str = "", repeat: int = 0
) -> str:
    """A stable id: the same finding judged again (same table, round, check, seat, bet and
    evidence) gets the same id. 32 hex digits (BLAKE2b, 128 bits).

    ``start_event_id``: the round's (:attr:`RoundResult.start_event_id`), for a finding
    of a judged round: the same finding of two rounds given one round_id has two ids.
    ``origin`` tells apart findings that rest on no readable event: the Kafka
    coordinates of a message the worker could not process (EVENT_NOT_PROCESSED),
    the same when the message is read again. A table-level finding has neither
    start nor, but for those, origin: its id is what it was before either existed.
    ``repeat``: a judged round's findings that would share one id (two seats dealt no
    card say so in two findings with the same check, no seat and the same evidence) are
    told apart by their place among them (:func:`round_finding_ids`): the first keeps
    the id, the k-th after it has ``k`` in its key, so that the store (whose tables keep
    one row an id) holds each of them."""
    key: list[object] = [
        finding.table_id,
        finding.round_id or "",
        finding.check,
        finding.seat,
        finding.bet or "",
        sorted(finding.event_ids),
    ]
    if origin:
        key.append(origin)
    if start_event_id:
        key.append({"start_event_id": start_event_id})
    if repeat:
        key.append({"repeat": repeat})
    return hashlib.blake2b(_ID_ENCODER.encode(key), digest_size=16).hexdigest()


def round_finding_ids(result: RoundResult) -> list[str]:
    """The ids of a judged round's findings, in order, as :func:`round_rows` stores them:
    a key repeated in the round has its number in the ids after the first (see
    :func:`finding_id`). The judge gives a round's findings in one order for the same
    events, so a repeat's number, and its id, is the same when the round is judged again."""
    start = result.start_event_id
    seen: dict[str, int] = {}
    ids: list[str] = []
    for finding in result.findings:
        base = finding_id(finding, start_event_id=start)
        repeat = seen.get(base, 0)
        seen[base] = repeat + 1
        ids.append(finding_id(finding, start_event_id=start, repeat=repeat) if repeat else base)
    return ids


def stored_finding_ids(outcomes: Iterable[RoundResult | Finding]) -> set[str]:
    """The ids the findings of ``outcomes`` (judged rounds, table-level findings) are stored
    under (but EVENT_NOT_PROCESSED's, which name their message's origin)."""
    ids: set[str] = set()
    for outcome in outcomes:
        if isinstance(outcome, RoundResult):
            ids.update(round_finding_ids(outcome))
        else:
            ids.add(finding_id(outcome))
    return ids


def finding_row(
    finding: Finding,
    judged_at_ms: int,
    default_ts_ms: int | None = None,
    origin: str = "",
    start_event_id: str = "",
    stored_id: str | None = None,
) -> FindingRow:
    """The ``findings`` row of ``finding``; ``default_ts_ms`` stands in for a missing ``ts``;
    ``origin``, ``start_event_id`` (of the judged round it is part of, "" when table-level):
    see :func:`finding_id`; ``stored_id``: its id when the caller has it (a judged round's,
    from :func:`round_finding_ids`)."""
    return (
        stored_id or finding_id(finding, origin, start_event_id),
        finding.table_id,
        finding.round_id or "",
        start_event_id,
        finding.check,
        finding.severity,
        finding.regulation,
        finding.seat,
        finding.bet or "",
        finding.expected,
        finding.actual,
        finding.message,
        list(finding.event_ids),
        ts_to_ms(finding.ts) if finding.ts else default_ts_ms,
        judged_at_ms,
    )


# ---- a judged round -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoundRows:
    round_row: RoundRow
    settlement_rows: tuple[SettlementRow, ...]
    finding_rows: tuple[FindingRow, ...]


def round_rows(result: RoundResult, judged_at_ms: int) -> RoundRows:
    """The rows of one judged round: its ``rounds`` row, settlement lines and findings.

    Write all three with the same ``judged_at_ms``: the views show a round's
    lines and findings from its latest judgement only.
    """
    start_ms = ts_to_ms(result.start_ts)
    start = result.start_event_id
    round_row: RoundRow = (
        result.table_id,
        result.round_id,
        start,
        result.game,
        start_ms,
        ts_to_ms(result.end_ts),
        result.dealer_id,
        result.deck_id,
        result.seats,
        result.wagered,
        result.paid,
        result.voided,
        result.complete,
        len(result.findings),
        judged_at_ms,
    )
    settlements = tuple(
        (
            result.table_id,
            result.round_id,
            start,
            line.seat,
            line.bet,
            line.stake,
            line.expected_result,
            line.expected_paid,
            line.actual_result,
            line.actual_paid,
            start_ms,
            judged_at_ms,
            result.game,
        )
        for line in settlement_lines(result)
    )
    findings = tuple(
        finding_row(f, judged_at_ms, start_ms, start_event_id=start, stored_id=stored_id)
        for f, stored_id in zip(result.findings, round_finding_ids(result), strict=True)
    )
    return RoundRows(round_row, settlements, findings)


# ---- what a column can hold ---------------------------------------------------
#
# clickhouse-connect refuses a whole insert for one value it cannot write (an
# integer outside its column's type: the UInt64 ``seq`` of 2^64), and a
# DateTime64 outside 1900-2299, the range ClickHouse documents, is kept or not
# depending on the engine's version. The worker checks each row against its
# columns before the row joins a batch, so that one message's values never
# stop the insert of everybody else's.

INT_RANGES: Final = {
    "UInt8": (0, 2**8 - 1),
    "UInt16": (0, 2**16 - 1),
    "UInt32": (0, 2**32 - 1),
    "UInt64": (0, 2**64 - 1),
    "Int8": (-(2**7), 2**7 - 1),
    "Int16": (-(2**15), 2**15 - 1),
    "Int32": (-(2**31), 2**31 - 1),
    "Int64": (-(2**63), 2**63 - 1),
}
# DateTime64's range (ClickHouse: 1900-01-01 00:00:00 to 2299-12-31 23:59:59.99999999), in ms
DATETIME64_MS: Final = (-2_208_988_800_000, 10_413_791_999_999)
COLUMN_TYPES: Final = {
    RAW_EVENTS: (EVENT_COLUMNS, EVENT_TYPES),
    ROUNDS: (ROUND_COLUMNS, ROUND_TYPES),
    SETTLEMENTS: (SETTLEMENT_COLUMNS, SETTLEMENT_TYPES),
    FINDINGS: (FINDING_COLUMNS, FINDING_TYPES),
}
_WRAPPED = re.compile(r"^(Nullable|LowCardinality|Array)\((.*)\)$")
Fits = Callable[[object], bool]


def _int_fits(low: int, high: int) -> Fits:
    return lambda v: isinstance(v, int) and low <= v <= high


def _fits(type_text: str) -> Fits:
    """Whether a Python value can be written to a column of ``type_text``, as the rows of
    this module write them (strings, ints, bools, epoch milliseconds)."""
    wrapped = _WRAPPED.match(type_text)
    if wrapped:
        kind, inner = wrapped.groups()
        fits = _fits(inner)
        if kind == "Nullable":
            return lambda v: v is None or fits(v)
        if kind == "Array":
            return lambda v: isinstance(v, (list, tuple)) and all(fits(x) for x in v)
        return fits  # LowCardinality: the same values
    if type_text == "String":
        return lambda v: isinstance(v, (str, bytes))
    if type_text == "Bool":
        return lambda v: isinstance(v, bool)
    if type_text.startswith("DateTime64("):
        return _int_fits(*DATETIME64_MS)
    if type_text in INT_RANGES:
        return _int_fits(*INT_RANGES[type_text])
    raise ValueError(f"no range known for the column type {type_text}")


_CHECKS: Final = {
    table: tuple(zip(columns, map(_fits, types), types, strict=True))
    for table, (columns, types) in COLUMN_TYPES.items()
}


def _bounds(type_text: str) -> tuple[int, int, bool] | None:
    """(low, high, nullable) of an integer or time column, None for the others."""
    nullable = type_text.startswith("Nullable(")
    inner = type_text.removeprefix("Nullable(").removesuffix(")") if nullable else type_text
    if inner.startswith("DateTime64("):
        return (*DATETIME64_MS, nullable)
    if inner in INT_RANGES:
        return (*INT_RANGES[inner], nullable)
    return None


# The integer and time columns of each table: (index, low, high, nullable). Each row is
# checked against these first (values out of range), and for None where a column is not
# Nullable (the types of strings and flags are the code's, checked by mypy), then in full
# only to word a problem.
_RANGES: Final = {
    table: tuple(
        (index, *bounds) for index, t in enumerate(types) if (bounds := _bounds(t)) is not None
    )
    for table, (_, types) in COLUMN_TYPES.items()
}


# The other columns that are not Nullable: a None there fails the whole insert.
_REQUIRED: Final = {
    table: tuple(
        index for index, t in enumerate(types) if _bounds(t) is None and "Nullable(" not in t
    )
    for table, (_, types) in COLUMN_TYPES.items()
}


def row_problem(table: str, row: Sequence[object]) -> str | None:
    """Why ``row`` cannot be written to ``table`` (a value its column cannot hold), or None."""
    if len(row) == len(_CHECKS[table]) and all(row[i] is not None for i in _REQUIRED[table]):
        try:
            for index, low, high, nullable in _RANGES[table]:
                value = row[index]
                if value is None:
                    if not nullable:
                        break
                elif not low <= value <= high:  # type: ignore[operator]
                    break
            else:
                return None
        except TypeError:  # not a number: worded below
            pass
    return _full_problem(table, row)


def _full_problem(table: str, row: Sequence[object]) -> str | None:
    checks = _CHECKS[table]
    if len(row) != len(checks):
        return f"{table}: {len(row)} values for {len(checks)} columns"
    for value, (column, fits, type_text) in zip(row, checks, strict=True):
        if not fits(value):
            return f"{table}.{column} cannot hold {_shown(value, type_text)} ({type_text})"
    return None


def _shown(value: object, type_text: str) -> str:
    shown = repr(value)
    shown = shown if len(shown) <= 80 else shown[:80] + "..."
    if "DateTime64" in type_text and isinstance(value, int):
        with contextlib.suppress(OverflowError, ValueError):
            shown += f" ms = {ms_to_ts(value)}"
    return shown


_SEQ_MAX: Final = INT_RANGES["UInt64"][1]
_TS_MIN, _TS_MAX = DATETIME64_MS


def event_row_problem(row: EventRow) -> str | None:
    """:func:`row_problem` for a ``raw_events`` row built by :func:`event_row`, checking only
    what a decoded event can put out of range (its seq and ts): called for every event."""
    seq, ts = row[2], row[3]
    if 0 <= seq <= _SEQ_MAX and _TS_MIN <= ts <= _TS_MAX:
        return None
    return row_problem(RAW_EVENTS, row)
