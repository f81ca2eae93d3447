"""What the queries return: stored rounds, settlement lines and findings, and the summary.

Money in integer cents, times in integer milliseconds since the epoch (UTC);
``*_ts`` properties give the protocol's RFC 3339 text.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from tablewatch.rules.events import ms_to_ts


@dataclass(frozen=True, slots=True)
class StoredRound:
    table_id: str
    round_id: str
    start_event_id: str  # the event that began the round: with table and round_id, its identity
    game: str
    start_ms: int
    end_ms: int
    dealer_id: str | None
    deck_id: str | None
    seats: int
    wagered: int
    paid: int
    voided: bool
    complete: bool
    finding_count: int
    judged_at_ms: int

    @property
    def start_ts(self) -> str:
        return ms_to_ts(self.start_ms)

    @property
    def end_ts(self) -> str:
        return ms_to_ts(self.end_ms)


@dataclass(frozen=True, slots=True)
class StoredSettlement:
    table_id: str
    round_id: str
    start_event_id: str  # its round's
    seat: int
    bet: str
    stake: int
    expected_result: str | None
    expected_paid: int | None
    actual_result: str | None
    actual_paid: int | None
    start_ms: int
    judged_at_ms: int


@dataclass(frozen=True, slots=True)
class StoredFinding:
    finding_id: str
    table_id: str
    round_id: str | None  # None: a table-level finding
    start_event_id: str | None  # its round's (None: not part of a judged round)
    check: str
    severity: str
    regulation: str
    seat: int | None
    bet: str | None
    expected: int | None
    actual: int | None
    message: str
    event_ids: tuple[str, ...]
    ts_ms: int | None
    judged_at_ms: int

    @property
    def ts(self) -> str | None:
        return None if self.ts_ms is None else ms_to_ts(self.ts_ms)

    def as_dict(self) -> dict[str, Any]:
        """The keys of ``tablewatch audit --format json`` plus ``finding_id``,
        ``start_event_id`` and ``judged_at``."""
        out = asdict(self)
        out["event_ids"] = list(self.event_ids)
        out["ts"] = self.ts
        out["judged_at"] = ms_to_ts(self.judged_at_ms)
        del out["ts_ms"], out["judged_at_ms"]
        return out


@dataclass(frozen=True, slots=True)
class RoundDetail:
    round: StoredRound
    settlements: tuple[StoredSettlement, ...]
    findings: tuple[StoredFinding, ...]


@dataclass(frozen=True, slots=True)
class CheckCount:
    check: str
    severity: str
    findings: int


@dataclass(frozen=True, slots=True)
class TableCount:
    table_id: str
    findings: int
    rounds: int


@dataclass(frozen=True, slots=True)
class Summary:
    events: int  # raw events stored
    rounds: int  # rounds judged
    voided: int
    incomplete: int
    wagered: int  # cents
    paid: int  # cents
    findings: int
    by_check: tuple[CheckCount, ...]  # most frequent first
    top_tables: tuple[TableCount, ...]  # most findings first

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
