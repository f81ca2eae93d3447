"""A failed insert: the rows' fault (set them aside) or the store's (wait and retry)."""

from __future__ import annotations

import struct

import pytest
from clickhouse_connect.driver.client import Client
from clickhouse_connect.driver.exceptions import (
    DatabaseError,
    DataError,
    OperationalError,
    ProgrammingError,
)

from tablewatch.store.client import StoreError, connect
from tablewatch.store.errors import describe, error_code, is_data_error
from tablewatch.store.writer import StoreWriter


@pytest.mark.parametrize(
    "exc",
    [
        DataError("Unable to create native array for column `seq`: error"),
        struct.error("argument out of range"),
        OverflowError("int too big to convert"),
        ValueError("invalid literal for int() with base 10: 'x'"),
        DatabaseError("Code: 53. DB::Exception: Type mismatch in IN or VALUES section"),
        DatabaseError("Code: 252. DB::Exception: Too many partitions for single INSERT block"),
    ],
)
def test_the_rows_fault(exc: Exception) -> None:
    assert is_data_error(exc)


@pytest.mark.parametrize(
    "exc",
    [
        OperationalError("Error HTTPConnectionPool: Max retries exceeded (Connection refused)"),
        OperationalError("Code: 53. an error text inside a connection failure"),
        ConnectionRefusedError(111, "Connection refused"),
        TimeoutError("timed out"),
        OSError("no route to host"),
        DatabaseError("Code: 252. DB::Exception: Too many parts (300). Merges are slow"),
        DatabaseError("Code: 241. DB::Exception: Memory limit (total) exceeded"),
        DatabaseError("Code: 60. DB::Exception: Table default.raw_events does not exist"),
        ProgrammingError("Insert data column count does not match column names"),
        RuntimeError("something else"),
    ],
)
def test_the_stores_fault(exc: Exception) -> None:
    assert not is_data_error(exc)


def test_the_code_and_a_one_line_account() -> None:
    exc = DatabaseError("Code: 241. DB::Exception:\n  Memory limit\n exceeded")
    assert error_code(exc) == 241
    assert error_code(OSError("no code")) is None
    assert describe(exc) == "DatabaseError: Code: 241. DB::Exception: Memory limit exceeded"
    assert describe(ValueError("x" * 1000), limit=20) == "ValueError: xxxxxxxx..."


def test_what_the_embedded_engine_raises(store: Client) -> None:
    rows = [("T", f"e{m}", m, (946_684_800 + m * 31 * 86_400) * 1000, "meter", "", b"",
             0, m, 0, 0, "", "") for m in range(120)]  # fmt: skip
    with pytest.raises(Exception) as too_wide:  # 120 months in one block
        StoreWriter(store).insert(events=rows)
    assert is_data_error(too_wide.value) and error_code(too_wide.value) == 252
    StoreWriter(store).insert(events=rows[:60])  # in parts, it goes in
    StoreWriter(store).insert(events=rows[60:])
    with pytest.raises(Exception) as wrong:
        StoreWriter(store).insert(
            events=[("T", "e", 2**64, 0, "meter", "", b"", 0, 0, 0, 0, "", "")]
        )
    assert is_data_error(wrong.value)
    with pytest.raises(Exception) as missing:
        store.insert("no_such_table", [[1]], column_names=["x"])
    assert not is_data_error(missing.value)


def test_a_server_that_cannot_be_reached_is_the_stores_fault() -> None:
    with pytest.raises(StoreError) as down:
        connect("http://user:pw@127.0.0.1:9/tablewatch")  # nothing listens on port 9
    cause = down.value.__cause__
    assert cause is not None and not is_data_error(cause)
