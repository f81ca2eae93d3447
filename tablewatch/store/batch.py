"""A batch of rows to write together: what a worker gathers between two commits."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from tablewatch.rules.events import AnyEvent
from tablewatch.rules.findings import Finding
from tablewatch.rules.judge import RoundResult
from tablewatch.store.rows import (
    EventRow,
    FindingRow,
    RoundRow,
    SettlementRow,
    event_row,
    finding_row,
    round_rows,
)


@dataclass(slots=True)
class StoreBatch:
    """Rows for :meth:`tablewatch.store.writer.StoreWriter.insert_batch`."""

    events: list[EventRow] = field(default_factory=list)
    rounds: list[RoundRow] = field(default_factory=list)
    settlements: list[SettlementRow] = field(default_factory=list)
    findings: list[FindingRow] = field(default_factory=list)

    def add_event(
        self,
        raw: bytes | bytearray | memoryview | str,
        event: AnyEvent,
        partition: int,
        offset: int,
        ingested_at_ms: int,
    ) -> None:
        self.events.append(event_row(raw, event, partition, offset, ingested_at_ms))

    def add_outcome(self, outcome: RoundResult | Finding, judged_at_ms: int) -> None:
        """A judged round (its row, lines and findings) or a table-level finding."""
        if isinstance(outcome, RoundResult):
            rows = round_rows(outcome, judged_at_ms)
            self.rounds.append(rows.round_row)
            self.settlements.extend(rows.settlement_rows)
            self.findings.extend(rows.finding_rows)
        else:
            self.findings.append(finding_row(outcome, judged_at_ms))

    def add_outcomes(self, outcomes: Iterable[RoundResult | Finding], judged_at_ms: int) -> None:
        for outcome in outcomes:
            self.add_outcome(outcome, judged_at_ms)

    def __len__(self) -> int:
        return len(self.events) + len(self.rounds) + len(self.settlements) + len(self.findings)

    def clear(self) -> None:
        self.events.clear()
        self.rounds.clear()
        self.settlements.clear()
        self.findings.clear()
