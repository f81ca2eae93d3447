"""The access_log table: made by its migration as rows.py-style columns say, written by the
writer's client, read once per request through access_log_v, by admins only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from clickhouse_connect.driver.client import Client

from tablewatch.access.log import AccessLog, AccessOutcome
from tablewatch.access.roles import Role, extra_tables
from tablewatch.store.access_log import (
    ACCESS_LOG,
    ACCESS_LOG_COLUMNS,
    ACCESS_LOG_TYPES,
    ACCESS_LOG_VIEW,
    AccessLogTable,
)
from tablewatch.store.client import connect
from tablewatch.store.migrate import migrate
from tablewatch.store.read_only import QueryRefused, open_reader


@pytest.fixture
def store_dsn(tmp_path: Path) -> str:
    return f"chdb:///{tmp_path / 'store'}"


@pytest.fixture
def store(store_dsn: str) -> Iterator[Client]:
    client = connect(store_dsn)  # one engine per process: closed before the next test
    try:
        migrate(client)
        yield client
    finally:
        client.close()


def test_columns_and_types(store: Client) -> None:
    for table in (ACCESS_LOG, ACCESS_LOG_VIEW):
        described = store.query(f"DESCRIBE TABLE {table}").result_rows
        assert tuple(str(r[0]) for r in described) == ACCESS_LOG_COLUMNS, table
        assert tuple(str(r[1]) for r in described) == ACCESS_LOG_TYPES, table


def _rows(count: int) -> list[tuple[object, ...]]:
    log = AccessLog()
    for i in range(count):
        entry = log.begin("/query", f"SELECT {i} FROM rounds_v", "127.0.0.1")
        entry.principal, entry.role = "alice", "auditor"
        entry.set(AccessOutcome.OK, 200)
        entry.rows_returned = i
        log.end(entry)
    return [record.row() for record in log.peek(count)]


def test_rows_written_twice_are_read_once(store: Client) -> None:
    table = AccessLogTable(store)
    rows = _rows(3)
    assert table.insert(rows) == 3
    assert table.insert(rows) == 3  # a batch written again (the store failed after taking it)
    assert table.insert([]) == 0
    got = store.query(
        "SELECT principal, role, endpoint, request, outcome, status, rows_returned "
        "FROM access_log_v ORDER BY rows_returned"
    ).result_rows
    assert [tuple(r) for r in got] == [
        ("alice", "auditor", "/query", f"SELECT {i} FROM rounds_v", "ok", 200, i) for i in range(3)
    ]


def test_only_admins_read_it_through_the_query_readers(store: Client, store_dsn: str) -> None:
    AccessLogTable(store).insert(_rows(1))
    reader = open_reader(store_dsn)
    try:
        for role in (None, Role.AUDITOR, Role.SURVEILLANCE, Role.FLOOR_MANAGER):
            for sql in (
                "SELECT request FROM access_log_v",
                "SELECT request FROM access_log",
                f"SELECT request FROM {reader.database}.access_log",
                "SELECT 1 FROM rounds_v WHERE round_id IN access_log",
                "SELECT * FROM (SELECT request FROM access_log_v)",
            ):
                with pytest.raises(QueryRefused, match="is not readable"):
                    reader.run(sql, also=extra_tables(role))
        admin = extra_tables(Role.ADMIN)
        assert reader.run("SELECT principal FROM access_log_v", also=admin).rows == [("alice",)]
        assert reader.run(f"SELECT count() FROM {reader.database}.access_log", also=admin).rows == [
            (1,)
        ]
        refused = pytest.raises(QueryRefused, match="access_log_v")
        with refused:  # an admin's refusals name the tables it may read
            reader.run("SELECT * FROM system.tables", also=admin)
    finally:
        reader.close()
