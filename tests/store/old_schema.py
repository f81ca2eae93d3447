"""A store as migrations 0001-0004 made it, filled as the code of that schema filled it.

The rows are built here with that schema's column lists and finding ids, not with
``tablewatch.store.rows``: a round was keyed (table_id, round_id), a finding's id
hashed [table_id, round_id, check, seat, bet, sorted(event_ids)] (and the origin of
an EVENT_NOT_PROCESSED), an event row had no place in a chain.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec
from clickhouse_connect.driver.client import Client

from tablewatch.rules.events import AnyEvent, RoundEvent, event_type, ts_to_ms
from tablewatch.rules.findings import Finding
from tablewatch.rules.judge import RoundResult
from tablewatch.store.migrate import SCHEMA_MIGRATIONS_DDL, available

LAST_OLD_VERSION = "0004"

EVENT_COLUMNS = (
    "table_id", "event_id", "seq", "ts", "type", "round_id", "payload",
    "kafka_partition", "kafka_offset", "ingested_at",
)  # fmt: skip
ROUND_COLUMNS = (
    "table_id", "round_id", "game", "start_ts", "end_ts", "dealer_id", "deck_id", "seats",
    "wagered", "paid", "voided", "complete", "finding_count", "judged_at",
)  # fmt: skip
SETTLEMENT_COLUMNS = (
    "table_id", "round_id", "seat", "bet", "stake", "expected_result", "expected_paid",
    "actual_result", "actual_paid", "start_ts", "judged_at",
)  # fmt: skip
FINDING_COLUMNS = (
    "finding_id", "table_id", "round_id", "check", "severity", "regulation", "seat", "bet",
    "expected", "actual", "message", "event_ids", "ts", "judged_at",
)  # fmt: skip
VIEW_COLUMNS = {
    "raw_events_v": EVENT_COLUMNS,
    "rounds_v": ROUND_COLUMNS,
    "settlements_v": SETTLEMENT_COLUMNS,
    "findings_v": FINDING_COLUMNS,
}
# What the code of the old schema never raised
NEW_CHECKS = frozenset({"ROUND_ID_REUSED"})

_ENCODER = msgspec.json.Encoder()
Row = tuple[Any, ...]


def migrate_to_old_schema(client: Client, later: bool = False) -> None:
    """Apply migrations 0001-0004 only (``later``: and those after 0005, as a store migrated
    by code that had them and not 0005), recorded as ``migrate`` records them."""
    client.command(SCHEMA_MIGRATIONS_DDL)
    for migration in available():
        # later: 0006-0010 (0011, which re-creates the tables 0005 keys, needs 0005 first)
        if migration.version > LAST_OLD_VERSION and not (
            later and "0005" < migration.version < "0011"
        ):
            continue
        for statement in migration.statements():
            client.command(statement)
        client.insert(
            "schema_migrations",
            [[migration.version, migration.name, int(time.time() * 1000)]],
            column_names=["version", "name", "applied_at"],
        )


def old_finding_id(finding: Finding) -> str:
    key: list[object] = [
        finding.table_id,
        finding.round_id or "",
        finding.check,
        finding.seat,
        finding.bet or "",
        sorted(finding.event_ids),
    ]
    return hashlib.blake2b(_ENCODER.encode(key), digest_size=16).hexdigest()


def event_row(raw: bytes, event: AnyEvent, offset: int, ingested_at_ms: int) -> Row:
    return (
        event.table_id,
        event.event_id,
        event.seq,
        ts_to_ms(event.ts),
        event_type(event),
        event.round_id if isinstance(event, RoundEvent) else "",
        raw,
        0,
        offset,
        ingested_at_ms,
    )


def finding_row(finding: Finding, judged_at_ms: int, default_ts_ms: int | None = None) -> Row:
    return (
        old_finding_id(finding),
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


def old_findings(result: RoundResult) -> list[Finding]:
    return [f for f in result.findings if f.check not in NEW_CHECKS]


def round_rows(
    result: RoundResult, judged_at_ms: int, findings: Sequence[Finding] | None = None
) -> tuple[Row, list[Row], list[Row]]:
    """The round's row, lines and findings (``findings``: those of this judgement, the
    round's own by default)."""
    found = old_findings(result) if findings is None else list(findings)
    start_ms = ts_to_ms(result.start_ts)
    round_row = (
        result.table_id, result.round_id, result.game, start_ms, ts_to_ms(result.end_ts),
        result.dealer_id, result.deck_id, result.seats, result.wagered, result.paid,
        result.voided, result.complete, len(found), judged_at_ms,
    )  # fmt: skip
    lines = [
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
        for line in result.settlements
    ]
    return round_row, lines, [finding_row(f, judged_at_ms, start_ms) for f in found]


class OldWriter:
    """Rows gathered as the old writer gathered them, inserted in its order."""

    def __init__(self) -> None:
        self.events: list[Row] = []
        self.rounds: list[Row] = []
        self.settlements: list[Row] = []
        self.findings: list[Row] = []

    def add_events(self, raw_events: Iterable[tuple[bytes, AnyEvent]], ingested_at: int) -> None:
        for offset, (raw, event) in enumerate(raw_events):
            self.events.append(event_row(raw, event, offset, ingested_at))

    def add_outcome(
        self,
        outcome: RoundResult | Finding,
        judged_at_ms: int,
        findings: Sequence[Finding] | None = None,
    ) -> None:
        if isinstance(outcome, RoundResult):
            round_row, lines, found = round_rows(outcome, judged_at_ms, findings)
            self.rounds.append(round_row)
            self.settlements.extend(lines)
            self.findings.extend(found)
        else:
            self.findings.append(finding_row(outcome, judged_at_ms))

    def insert(self, client: Client) -> None:
        for table, columns, rows in (
            ("raw_events", EVENT_COLUMNS, self.events),
            ("settlements", SETTLEMENT_COLUMNS, self.settlements),
            ("findings", FINDING_COLUMNS, self.findings),
            ("rounds", ROUND_COLUMNS, self.rounds),
        ):
            if rows:
                client.insert(table, rows, column_names=list(columns))


def view_rows(client: Client, view: str) -> set[Row]:
    """Every row of ``view``, in the columns it had under the old schema."""
    columns = ", ".join(VIEW_COLUMNS[view])
    rows = client.query(f"SELECT {columns} FROM {view}").result_rows
    return {tuple(tuple(v) if isinstance(v, list) else v for v in row) for row in rows}


def all_view_rows(client: Client) -> dict[str, set[Row]]:
    return {view: view_rows(client, view) for view in VIEW_COLUMNS}
