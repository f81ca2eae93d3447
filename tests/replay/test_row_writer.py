"""A replay's rows written as JSON: every value as the typed insert would store it, the
times to the millisecond; behind the fold, on a thread of their own, in order, with an
insert's error raised in the caller's thread."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from clickhouse_connect.driver.client import Client

from tablewatch.replay.row_writer import QUEUED, RowsBehind, RowWriter, seconds
from tablewatch.replay.run import (
    FINDINGS,
    REPLAY_FINDING_COLUMNS,
    ROUND_COLUMNS,
    ROUNDS,
    Recorder,
    RunRecord,
    record_end,
)
from tablewatch.rules.findings import Finding
from tablewatch.store.client import connect, open_store
from tablewatch.store.migrate import migrate
from tests.store.helpers import round_cut_before_the_cards

EARLIEST_MS = 946_684_800_000  # 2000-01-01T00:00:00.000Z, the protocol's first year
LATEST_MS = 7_258_118_399_999  # 2199-12-31T23:59:59.999Z, its last


@pytest.fixture
def dsn(tmp_path: Path) -> str:
    return f"chdb:///{tmp_path / 'store'}"


@pytest.fixture
def client(dsn: str) -> Iterator[Client]:
    with open_store(dsn) as opened:
        migrate(opened)
        yield opened


def _millis(client: Client, run_id: str) -> list[tuple[str, int, int]]:
    return [
        (str(r[0]), int(r[1]), int(r[2]))
        for r in client.query(
            "SELECT round_id, toUnixTimestamp64Milli(start_ts), toUnixTimestamp64Milli(end_ts) "
            "FROM replay_rounds_v WHERE run_id = {r:String} ORDER BY round_id",
            parameters={"r": run_id},
        ).result_rows
    ]


@pytest.mark.parametrize("behind", [False, True], ids=["inline", "behind"])
def test_times_are_stored_to_the_millisecond(client: Client, dsn: str, behind: bool) -> None:
    chosen = random.Random(20261202)
    millis = [EARLIEST_MS, EARLIEST_MS + 1, LATEST_MS, LATEST_MS - 1, 1_796_000_000_100]
    millis += [chosen.randrange(EARLIEST_MS, LATEST_MS) for _ in range(5_000)]
    millis += [ms - ms % 1000 + 999 for ms in millis[5:50]]  # a second's last millisecond
    millis += [ms - ms % 1000 for ms in millis[50:95]]  # and its first
    rows = [
        ("run", "T-1", f"R-{i:05d}", f"e{i}", seconds(ms), seconds(ms + 7), 0)
        for i, ms in enumerate(millis)
    ]
    writer = RowsBehind(lambda: connect(dsn)) if behind else RowWriter(client)
    for at in range(0, len(rows), 1_000):
        writer.insert(ROUNDS, ROUND_COLUMNS, rows[at : at + 1_000])
    writer.wait()
    writer.close()
    assert _millis(client, "run") == [(f"R-{i:05d}", ms, ms + 7) for i, ms in enumerate(millis)]


def test_a_recorded_finding_reads_back_as_the_typed_insert_stores_it(client: Client) -> None:
    """Every column of ``replay_findings``: the text with quotes, a backslash, a line break
    and letters outside ASCII; a seat, a bet and amounts given or not; the event ids."""
    findings = [
        Finding(
            table_id="LIR-07", round_id="R-5521", check="WRONG_PAYOUT",
            regulation="§ 643a.7(b)", message='paid "$80.00"\\ on 3 of a kind\nñ€😀',
            seat=5, bet="aces_up", expected=9_000, actual=8_000,
            event_ids=("e-1", "e-2"), ts="2026-11-29T18:21:01.935Z",
        ),
        Finding(
            table_id="FCP-02", round_id=None, check="SEQUENCE_GAP",
            regulation="§ 641a.2", message="seq 7 after 5", seat=None, bet=None,
            expected=None, actual=None, event_ids=(), ts=None,
        ),
    ]  # fmt: skip
    record = RunRecord("run-typed", "store", "range", (), "v", "h", 1_796_000_000_123)
    recorder = Recorder(client, record)
    for finding in findings:
        recorder.add(finding)
    record_end(recorder, "complete")
    # the same rows through clickhouse-connect's typed insert, under another run id
    typed = [("run-typed-insert", *row) for row in _finding_rows(findings, record.started_ms)]
    client.insert(FINDINGS, typed, column_names=REPLAY_FINDING_COLUMNS)
    columns = ", ".join(c for c in REPLAY_FINDING_COLUMNS if c != "run_id")
    read = {
        run: client.query(
            f"SELECT {columns} FROM replay_findings_v WHERE run_id = {{r:String}} "
            "ORDER BY table_id",
            parameters={"r": run},
        ).result_rows
        for run in ("run-typed", "run-typed-insert")
    }
    assert len(read["run-typed"]) == 2
    assert read["run-typed"] == read["run-typed-insert"]
    lir = read["run-typed"][1]
    assert lir[11] == 'paid "$80.00"\\ on 3 of a kind\nñ€😀'
    assert (lir[7], lir[9], lir[10], lir[12]) == (5, 9_000, 8_000, ["e-1", "e-2"])


def _finding_rows(findings: Sequence[Finding], judged_ms: int) -> list[tuple[Any, ...]]:
    from datetime import UTC, datetime

    from tablewatch.rules.events import ts_to_ms
    from tablewatch.store.rows import finding_row

    def when(ms: int | None) -> datetime | None:
        return None if ms is None else datetime.fromtimestamp(ms / 1000, UTC)

    rows = []
    for finding in findings:
        *columns, ts_ms, judged = finding_row(finding, judged_ms, None)
        rows.append((*columns, when(ts_ms), when(judged)))
        assert ts_ms == (ts_to_ms(finding.ts) if finding.ts else None)
    return rows


class _Held:
    """A client whose inserts wait until released, noting the thread and the data."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.inserted: list[tuple[str, bytes]] = []
        self.threads: set[str] = set()
        self.closed = False
        self.fail_on: str | None = None

    def raw_insert(self, table: str, columns: Sequence[str], data: bytes, fmt: str) -> None:
        self.threads.add(threading.current_thread().name)
        assert self.release.wait(30)
        if table == self.fail_on:
            raise RuntimeError(f"{table}: the store refused the rows")
        self.inserted.append((table, data))

    def close(self) -> None:
        self.closed = True


def test_rows_behind_are_written_on_their_own_thread_in_order_while_the_caller_goes_on() -> None:
    held = _Held()
    writer = RowsBehind(lambda: held)  # type: ignore[arg-type,return-value]
    started = time.monotonic()
    for k in range(QUEUED + 1):  # one being written, QUEUED waiting: the caller never waits
        writer.insert(ROUNDS, ("a",), [(k,)])
    assert time.monotonic() - started < 5
    assert held.inserted == []  # nothing written yet: all of it is behind
    done = threading.Thread(target=writer.wait)
    done.start()
    done.join(0.5)
    assert done.is_alive()  # wait() waits for the rows
    held.release.set()
    done.join(30)
    assert not done.is_alive()
    assert held.inserted == [(ROUNDS, f"[{k}]".encode()) for k in range(QUEUED + 1)]
    assert held.threads == {"replay-rows"}
    writer.close()
    assert held.closed


def test_an_insert_that_fails_behind_is_raised_in_the_callers_thread() -> None:
    held = _Held()
    held.fail_on = FINDINGS
    held.release.set()
    writer = RowsBehind(lambda: held)  # type: ignore[arg-type,return-value]
    writer.insert(ROUNDS, ("a",), [(1,)])
    writer.insert(FINDINGS, ("a",), [(2,)])
    writer.insert(ROUNDS, ("a",), [(3,)])  # after the failure: dropped
    with pytest.raises(RuntimeError, match="findings: the store refused the rows"):
        writer.wait()
    with pytest.raises(RuntimeError, match="findings: the store refused the rows"):
        writer.insert(ROUNDS, ("a",), [(4,)])
    writer.close()
    assert held.inserted == [(ROUNDS, b"[1]")]
    assert held.closed


def test_a_failed_write_fails_the_run_and_never_records_it_complete(
    client: Client, dsn: str
) -> None:
    record = RunRecord("run-fails", "store", "range", (), "v", "h", 1_796_000_000_000)

    def broken() -> Client:
        opened = connect(dsn)
        opened.raw_insert = _refuse  # type: ignore[method-assign,assignment]
        return opened

    recorder = Recorder(client, record, batch_rows=1, rows=RowsBehind(broken))
    recorder.write_run()
    finding = Finding(
        table_id="T-1",
        round_id=None,
        check="SEQUENCE_GAP",
        regulation="§ 641a.2",
        message="gap",
    )
    with pytest.raises(RuntimeError, match="no room"):
        recorder.add(finding)
        recorder.written()
    record_end(recorder, "failed", "no room")
    assert client.query(
        "SELECT status, detail, findings FROM replay_runs_v WHERE run_id = 'run-fails'"
    ).result_rows == [("failed", "no room", 1)]
    assert client.query("SELECT count() FROM replay_findings").result_rows == [(0,)]


def _refuse(*args: object, **kwargs: object) -> None:
    raise RuntimeError("no room left on the device")


def test_a_rounds_findings_that_share_a_key_are_each_recorded(client: Client) -> None:
    result = round_cut_before_the_cards()
    record = RunRecord("run-repeats", "store", "range", (), "v", "h", 1_796_000_000_000)
    recorder = Recorder(client, record)
    recorder.add(result)
    record_end(recorder, "complete")
    stored = client.query(
        "SELECT message FROM replay_findings_v WHERE run_id = 'run-repeats' ORDER BY message"
    ).result_rows
    assert record.findings == len(result.findings) >= 4
    assert [m for (m,) in stored] == sorted(f.message for f in result.findings)
