"""The access log's queue and writer: bounded, waits out a store that is down, loses
nothing silently."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import fields

import pytest

from tablewatch.access.log import (
    MAX_REQUEST_CHARS,
    AccessLog,
    AccessLogFull,
    AccessLogWriter,
    AccessOutcome,
    AccessRow,
)
from tablewatch.store.access_log import ACCESS_LOG_COLUMNS


class Store:
    """A store that fails ``down`` times, then takes rows; refuses rows whose request is
    ``poison`` on their data."""

    def __init__(self, down: int = 0) -> None:
        self.down = down
        self.rows: list[AccessRow] = []
        self.calls = 0

    async def insert(self, rows: list[AccessRow]) -> None:
        self.calls += 1
        if self.down > 0:
            self.down -= 1
            raise ConnectionError("store down")
        if any(row[5] == "poison" for row in rows):
            raise ValueError("bad data")
        self.rows += rows


def _record(log: AccessLog, request: str = "SELECT 1", status: int = 200) -> None:
    entry = log.begin("/query", request, "127.0.0.1")
    entry.principal, entry.role = "alice", "auditor"
    entry.set(AccessOutcome.OK, status)
    entry.rows_returned = 1
    log.end(entry)


def _writer(log: AccessLog, store: Store) -> AccessLogWriter:
    return AccessLogWriter(
        log,
        store.insert,
        every_s=0.01,
        batch=3,
        is_data_error=lambda exc: isinstance(exc, ValueError),
        retry_first_s=0.001,
        retry_max_s=0.004,
    )


def test_a_record_is_a_row_of_access_log() -> None:
    from tablewatch.access.log import AccessRecord

    assert tuple(f.name for f in fields(AccessRecord)) == ACCESS_LOG_COLUMNS
    log = AccessLog()
    entry = log.begin("/query", "x" * (MAX_REQUEST_CHARS + 10), "10.0.0.9")
    entry.set(AccessOutcome.REFUSED, 400, "not readable")
    record = log.end(entry)
    assert len(record.request) == MAX_REQUEST_CHARS
    row = record.row()
    assert len(row) == len(ACCESS_LOG_COLUMNS)
    assert row[6:9] == ("refused", 400, 0) and row[10:] == ("10.0.0.9", "not readable")
    assert len(record.request_id) == 32


def test_a_full_queue_refuses_requests_rather_than_serving_them_unrecorded(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log = AccessLog(capacity=3)
    _record(log)
    _record(log)
    waiting = log.begin("/metrics", "GET /metrics", "127.0.0.1")  # being served: its place
    with caplog.at_level(logging.ERROR), pytest.raises(AccessLogFull):
        log.begin("/query", "SELECT secret", "10.1.1.1")
    assert log.refused_full == 1
    assert "SELECT secret" in caplog.text and "10.1.1.1" in caplog.text  # in the process log
    log.end(waiting)
    assert log.waiting() == 3


def test_rows_wait_for_a_store_that_is_down() -> None:
    log, store = AccessLog(), Store(down=4)
    for i in range(7):
        _record(log, f"SELECT {i}")
    writer = _writer(log, store)
    asyncio.run(writer.flush())
    assert [row[5] for row in store.rows] == [f"SELECT {i}" for i in range(7)]
    assert writer.retries == 4 and writer.written == 7 and log.waiting() == 0


def test_a_row_the_store_refuses_is_kept_in_the_process_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log, store = AccessLog(), Store()
    for request in ("SELECT 1", "poison", "SELECT 2", "SELECT 3"):
        _record(log, request)
    writer = _writer(log, store)
    with caplog.at_level(logging.ERROR):
        asyncio.run(writer.flush())
    assert [row[5] for row in store.rows] == ["SELECT 1", "SELECT 2", "SELECT 3"]
    assert writer.set_aside == 1 and writer.written == 3 and log.waiting() == 0
    assert '"request": "poison"' in caplog.text


def test_the_timer_writes_and_shutdown_logs_what_the_store_did_not_take(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def scenario() -> tuple[Store, AccessLogWriter, AccessLog]:
        log, store = AccessLog(), Store()
        writer = _writer(log, store)
        task = asyncio.create_task(writer.run())
        _record(log, "SELECT 'timed'")
        for _ in range(200):
            await asyncio.sleep(0.01)
            if store.rows:
                break
        store.down = 10**9  # now the store stops answering
        _record(log, "SELECT 'late'")
        with caplog.at_level(logging.ERROR):
            await writer.close(timeout_s=0.1)
        task.cancel()
        return store, writer, log

    store, _, log = asyncio.run(scenario())
    assert [row[5] for row in store.rows] == ["SELECT 'timed'"]
    assert "access log row not written" in caplog.text and "SELECT 'late'" in caplog.text
    assert log.waiting() == 0
