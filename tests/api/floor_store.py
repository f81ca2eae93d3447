"""A small store stamped in the present, for the live floor's tests: tables open and
dealing now, and helpers that write findings and case steps as the worker and the
casework desk do (rows written with a client of the test process's own)."""

from __future__ import annotations

import time
from pathlib import Path

from clickhouse_connect.driver.client import Client

from tablewatch.store.client import connect
from tablewatch.store.migrate import migrate
from tests.store.conftest import dsn_of

TABLES = {"BJ-01": "A", "BJ-02": "A", "LIR-01": "B"}  # table -> pit
QUIET = "LIR-01"  # opened 20 minutes ago and silent since: stale
CLOSED = "BJ-02"  # opened and closed again


def now_ms() -> int:
    return int(time.time() * 1000)


def make_store(directory: Path) -> str:
    """A migrated store with the directory's tables and their events; its DSN."""
    dsn = dsn_of(directory)
    client = connect(dsn)
    try:
        migrate(client)
        now = now_ms()
        client.insert(
            "table_directory",
            [(t, "let_it_ride", pit, ["cam-1"], "{}", "0" * 64, now) for t, pit in TABLES.items()],
            column_names=["table_id", "game", "pit", "cameras", "config", "config_sha256",
                          "updated_at"],
        )  # fmt: skip
        events = [
            ("BJ-01", "table_open", now - 60_000),
            ("BJ-01", "round_start", now - 5_000),
            ("BJ-02", "table_open", now - 120_000),
            ("BJ-02", "table_close", now - 30_000),
            (QUIET, "table_open", now - 20 * 60_000),
        ]
        event(client, events)
    finally:
        client.close()
    return dsn


def event(client: Client, events: list[tuple[str, str, int]]) -> None:
    """Raw events (table, type, ts ms), as stored."""
    client.insert(
        "raw_events",
        [
            (t, f"{t}-{kind}-{ts}", i, ts, kind, "", "{}", -1, -1, ts)
            for i, (t, kind, ts) in enumerate(events)
        ],
        column_names=["table_id", "event_id", "seq", "ts", "type", "round_id", "payload",
                      "kafka_partition", "kafka_offset", "ingested_at"],
    )  # fmt: skip


def finding(
    client: Client, finding_id: str, table_id: str, severity: str, ts_ms: int | None = None
) -> None:
    """A finding of a round of ``table_id``, judged now (as the worker writes one)."""
    now = now_ms()
    client.insert(
        "findings",
        [(finding_id, table_id, f"r-{finding_id}", f"e-{finding_id}", "WRONG_PAYOUT", severity,
          "LIR 4.1", 2, "bet_1", 2500, 5000, "paid 5000, owed 2500", [f"e-{finding_id}"],
          now if ts_ms is None else ts_ms, now)],
        column_names=["finding_id", "table_id", "round_id", "start_event_id", "check",
                      "severity", "regulation", "seat", "bet", "expected", "actual", "message",
                      "event_ids", "ts", "judged_at"],
    )  # fmt: skip


def case_step(
    client: Client,
    finding_id: str,
    table_id: str,
    severity: str,
    step: int,
    kind: str,
    state: str,
    assignee: str = "",
) -> None:
    """One ``case_events`` row (the case after the step), as the casework desk writes."""
    now = now_ms()
    client.insert(
        "case_events",
        [(finding_id, step, kind, now, "sam", "surveillance", "", "", state, assignee,
          "duplicate" if state == "closed" else "", 0, "", None, None, [], table_id,
          f"r-{finding_id}", "WRONG_PAYOUT", severity, TABLES.get(table_id, ""), now)],
        column_names=["finding_id", "step", "kind", "at", "by", "role", "note", "reason",
                      "state", "assignee", "disposition", "recovered_cents", "camera",
                      "window_start", "window_end", "links", "table_id", "round_id", "check",
                      "severity", "pit", "finding_ts"],
    )  # fmt: skip
