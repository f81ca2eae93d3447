"""Messages to rows: pure functions from events, judged rounds and findings to table rows.

No client here (snuba-style "message -> rows"): the worker builds rows with
these and hands them to :class:`tablewatch.store.writer.StoreWriter`. Each
row is a tuple in the order of its table's ``*_COLUMNS``. Money stays
integer cents; every timestamp is integer milliseconds since the epoch (UTC),
which clickhouse-connect writes to ``DateTime64(3, 'UTC')`` as is.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

import msgspec

from tablewatch.rules.events import AnyEvent, RoundEvent, event_type, ts_to_ms
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
)
EventRow = tuple[str, str, int, int, str, str, bytes, int, int, int]


def event_row(
    raw: bytes | bytearray | memoryview | str,
    event: AnyEvent,
    partition: int,
    offset: int,
    ingested_at_ms: int,
) -> EventRow:
    """The ``raw_events`` row of ``event``, decoded from ``raw`` (kept verbatim as the payload)."""
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
    )


# ---- rounds -------------------------------------------------------------------

ROUNDS = "rounds"
ROUND_COLUMNS = (
    "table_id",
    "round_id",
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
RoundRow = tuple[
    str, str, str, int, int, str | None, str | None, int, int, int, bool, bool, int, int
]

# ---- settlements --------------------------------------------------------------

SETTLEMENTS = "settlements"
SETTLEMENT_COLUMNS = (
    "table_id",
    "round_id",
    "seat",
    "bet",
    "stake",
    "expected_result",
    "expected_paid",
    "actual_result",
    "actual_paid",
    "start_ts",
    "judged_at",
)
SettlementRow = tuple[
    str, str, int, str, int, str | None, int | None, str | None, int | None, int, int
]


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
    int | None,
    str,
    int | None,
    int | None,
    str,
    list[str],
    int | None,
    int,
]

_ID_ENCODER = msgspec.json.Encoder()


def finding_id(finding: Finding) -> str:
    """A stable id: the same finding judged again (same table, round, check, seat, bet and
    evidence) gets the same id. 32 hex digits (BLAKE2b, 128 bits)."""
    key = [
        finding.table_id,
        finding.round_id or "",
        finding.check,
        finding.seat,
        finding.bet or "",
        sorted(finding.event_ids),
    ]
    return hashlib.blake2b(_ID_ENCODER.encode(key), digest_size=16).hexdigest()


def finding_row(
    finding: Finding, judged_at_ms: int, default_ts_ms: int | None = None
) -> FindingRow:
    """The ``findings`` row of ``finding``; ``default_ts_ms`` stands in for a missing ``ts``."""
    return (
        finding_id(finding),
        finding.table_id,
        finding.round_id or "",
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
    round_row: RoundRow = (
        result.table_id,
        result.round_id,
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
            line.seat,
            line.bet,
            line.stake,
            line.expected_result,
            line.expected_paid,
            line.actual_result,
            line.actual_paid,
            start_ms,
            judged_at_ms,
        )
        for line in settlement_lines(result)
    )
    findings = tuple(finding_row(f, judged_at_ms, start_ms) for f in result.findings)
    return RoundRows(round_row, settlements, findings)
