"""Migrations: applied in order once, creating every table and view; rows.py matches the tables."""

from __future__ import annotations

import pytest
from clickhouse_connect.driver.client import Client

from tablewatch.store.migrate import applied, available, migrate
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

TABLES = {RAW_EVENTS, ROUNDS, SETTLEMENTS, FINDINGS, "schema_migrations"}
VIEWS = {"raw_events_v", "rounds_v", "settlements_v", "findings_v"}


def test_versions_are_numbered_without_gaps() -> None:
    versions = [m.version for m in available()]
    assert versions == [f"{n:04d}" for n in range(1, len(versions) + 1)]
    assert all(m.statements() for m in available())


def test_migrate_creates_every_table_and_view_then_applies_nothing(bare_store: Client) -> None:
    labels = migrate(bare_store)
    assert labels == [m.label for m in available()]
    rows = bare_store.query(
        "SELECT name, engine FROM system.tables WHERE database = currentDatabase()"
    ).result_rows
    engines = {str(name): str(engine) for name, engine in rows}
    assert set(engines) >= TABLES
    assert set(engines) >= VIEWS
    assert {engines[t] for t in TABLES} == {"ReplacingMergeTree"}
    assert {engines[v] for v in VIEWS} == {"View"}

    assert migrate(bare_store) == []
    assert migrate(bare_store) == []
    assert applied(bare_store) == {m.version for m in available()}
    ((count,),) = bare_store.query("SELECT count() FROM schema_migrations FINAL").result_rows
    assert count == len(available())


def test_a_half_applied_migration_is_applied_again(bare_store: Client) -> None:
    # what a crash between two statements of a file leaves behind
    first = available()[0]
    bare_store.command(first.statements()[0])
    assert migrate(bare_store)[0] == first.label
    assert migrate(bare_store) == []


@pytest.mark.parametrize(
    ("table", "columns"),
    [
        (RAW_EVENTS, EVENT_COLUMNS),
        (ROUNDS, ROUND_COLUMNS),
        (SETTLEMENTS, SETTLEMENT_COLUMNS),
        (FINDINGS, FINDING_COLUMNS),
    ],
)
def test_row_columns_are_the_table_columns(
    store: Client, table: str, columns: tuple[str, ...]
) -> None:
    described = store.query(f"DESCRIBE TABLE {table}").result_rows
    # and stored_at, the store's own time of the insert (migration 0019): never written
    assert tuple(str(row[0]) for row in described) == (*columns, "stored_at")
    view = store.query(f"DESCRIBE TABLE {table}_v").result_rows
    assert [(r[0], r[1]) for r in view] == [(r[0], r[1]) for r in described[:-1]]


def test_money_and_time_types(store: Client) -> None:
    types = {
        (str(t), str(c)): str(ty)
        for t, c, ty in store.query(
            "SELECT table, name, type FROM system.columns WHERE database = currentDatabase()"
        ).result_rows
    }
    for table, column in [
        (ROUNDS, "wagered"),
        (ROUNDS, "paid"),
        (SETTLEMENTS, "stake"),
        (SETTLEMENTS, "expected_paid"),
        (FINDINGS, "actual"),
    ]:
        assert "Int64" in types[(table, column)], (table, column)
    for table, column in [(RAW_EVENTS, "ts"), (ROUNDS, "start_ts"), (FINDINGS, "judged_at")]:
        assert "DateTime64(3, 'UTC')" in types[(table, column)], (table, column)
