"""Writing rows: one batch insert per table.

Idempotent by design of the tables (see ``migrations/``): inserting the same
rows again, or a round judged again with a later ``judged_at``, never shows
a duplicate through the ``*_v`` views. Retrying a failed batch is safe.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from clickhouse_connect.driver.client import Client
from clickhouse_connect.driver.insert import InsertContext

from tablewatch.integrity.checkpoints import CHECKPOINT_COLUMNS, CHECKPOINTS
from tablewatch.store.batch import StoreBatch
from tablewatch.store.rows import (
    EVENT_COLUMNS,
    FINDING_COLUMNS,
    FINDINGS,
    RAW_EVENTS,
    ROUND_COLUMNS,
    ROUNDS,
    SETTLEMENT_COLUMNS,
    SETTLEMENTS,
)

# Rows in their table's column order: the ``*Row`` tuples of rows.py (EventRow, RoundRow,
# SettlementRow, FindingRow), or any sequences of values.
Rows = Sequence[Sequence[object]]


@dataclass(frozen=True, slots=True)
class InsertCounts:
    events: int = 0
    rounds: int = 0
    settlements: int = 0
    findings: int = 0
    checkpoints: int = 0

    @property
    def total(self) -> int:
        return self.events + self.rounds + self.settlements + self.findings + self.checkpoints


class StoreWriter:
    """Batch inserts through one client; the table layouts are read once per table."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self._contexts: dict[str, InsertContext] = {}

    def insert(
        self,
        *,
        events: Rows = (),
        rounds: Rows = (),
        settlements: Rows = (),
        findings: Rows = (),
        checkpoints: Rows = (),
    ) -> InsertCounts:
        """One insert per non-empty table; rows counted per table.

        Order matters for readers: settlement lines and findings go before the
        round rows (a reader may briefly see a round's old and new findings
        together, never neither), events first, then the checkpoints of their
        chains (a checkpoint is never stored before the events it vouches for).
        """
        self._insert(RAW_EVENTS, EVENT_COLUMNS, events)
        self._insert(CHECKPOINTS, CHECKPOINT_COLUMNS, checkpoints)
        self._insert(SETTLEMENTS, SETTLEMENT_COLUMNS, settlements)
        self._insert(FINDINGS, FINDING_COLUMNS, findings)
        self._insert(ROUNDS, ROUND_COLUMNS, rounds)
        return InsertCounts(
            len(events), len(rounds), len(settlements), len(findings), len(checkpoints)
        )

    def insert_batch(self, batch: StoreBatch) -> InsertCounts:
        return self.insert(
            events=batch.events,
            rounds=batch.rounds,
            settlements=batch.settlements,
            findings=batch.findings,
        )

    def _insert(self, table: str, columns: tuple[str, ...], rows: Rows) -> None:
        if not rows:
            return
        context = self._contexts.get(table)
        if context is None:
            context = self.client.create_insert_context(table, column_names=list(columns))
            self._contexts[table] = context
        context.data = rows
        try:
            self.client.insert(context=context)
        finally:
            context.data = None
