"""What a column can hold: the checks of ``rows.py`` against the real engine.

The worker checks each row before it joins a batch, because one value the
engine cannot take fails the whole insert. The checks must know the store's
columns exactly (compared with ``DESCRIBE``), accept every value of a
column's range, and refuse the ones the engine rejects or does not promise
to keep.
"""

from __future__ import annotations

import pytest
from clickhouse_connect.driver.client import Client

from tablewatch.rules.events import ms_to_ts
from tablewatch.store.errors import is_data_error
from tablewatch.store.rows import (
    COLUMN_TYPES,
    DATETIME64_MS,
    FINDINGS,
    INT_RANGES,
    RAW_EVENTS,
    ROUNDS,
    SETTLEMENTS,
    event_row_problem,
    row_problem,
)
from tablewatch.store.writer import StoreWriter

TS = 1_796_000_000_000


def event(**values: object) -> tuple[object, ...]:
    row: dict[str, object] = {
        "table_id": "T-1", "event_id": "e-1", "seq": 1, "ts": TS, "type": "meter",
        "round_id": "", "payload": b"{}", "kafka_partition": 0, "kafka_offset": 0,
        "ingested_at": TS, "chain_pos": 0, "chain_prev": "", "chain_hash": "",
    }  # fmt: skip
    row.update(values)
    return tuple(row.values())


def round_row(**values: object) -> tuple[object, ...]:
    row: dict[str, object] = {
        "table_id": "T-1", "round_id": "R-1", "start_event_id": "e-1", "game": "let_it_ride",
        "start_ts": TS, "end_ts": TS, "dealer_id": None, "deck_id": None, "seats": 1,
        "wagered": 0, "paid": 0, "voided": False, "complete": True, "finding_count": 0,
        "judged_at": TS,
    }  # fmt: skip
    row.update(values)
    return tuple(row.values())


def test_the_column_types_are_the_stores(store: Client) -> None:
    for table, (columns, types) in COLUMN_TYPES.items():
        described = store.query(f"DESCRIBE TABLE {table}").result_rows
        want = list(zip(columns, types, strict=True))
        # and stored_at, the store's own time of the insert (migration 0019): never written
        assert [(str(r[0]), str(r[1])) for r in described[:-1]] == want, table
        assert (str(described[-1][0]), str(described[-1][1])) == (
            "stored_at",
            "DateTime64(3, 'UTC')",
        )


def test_the_ends_of_every_range_are_stored_as_given(store: Client) -> None:
    low_ts, high_ts = DATETIME64_MS
    uint64 = INT_RANGES["UInt64"][1]
    int64_low, int64_high = INT_RANGES["Int64"]
    events = [
        event(event_id="low", seq=0, ts=low_ts, kafka_offset=int64_low),
        event(event_id="high", seq=uint64, ts=high_ts, kafka_offset=int64_high),
    ]
    rounds = [
        round_row(round_id="low", wagered=int64_low, seats=0, finding_count=0),
        round_row(round_id="high", wagered=int64_high, seats=255, finding_count=2**32 - 1),
    ]
    for row in events:
        assert row_problem(RAW_EVENTS, row) is None and event_row_problem(row) is None  # type: ignore[arg-type]
    for row in rounds:
        assert row_problem(ROUNDS, row) is None
    StoreWriter(store).insert(events=events, rounds=rounds)
    stored = store.query(
        "SELECT event_id, seq, toUnixTimestamp64Milli(ts), kafka_offset FROM raw_events_v "
        "ORDER BY event_id"
    ).result_rows
    assert [tuple(r) for r in stored] == [
        ("high", uint64, high_ts, int64_high),
        ("low", 0, low_ts, int64_low),
    ]
    wagered = store.query("SELECT round_id, wagered, seats, finding_count FROM rounds_v "
                          "ORDER BY round_id").result_rows  # fmt: skip
    assert [tuple(r) for r in wagered] == [
        ("high", int64_high, 255, 2**32 - 1),
        ("low", int64_low, 0, 0),
    ]
    assert ms_to_ts(high_ts) == "2299-12-31T23:59:59.999Z"
    assert ms_to_ts(low_ts) == "1900-01-01T00:00:00.000Z"


@pytest.mark.parametrize(
    ("values", "column"),
    [
        ({"seq": 2**64}, "seq"),
        ({"seq": -1}, "seq"),
        ({"kafka_offset": 2**63}, "kafka_offset"),
        ({"kafka_partition": 2**31}, "kafka_partition"),
    ],
)
def test_an_integer_past_its_column_is_refused_by_the_check_as_by_the_engine(
    store: Client, values: dict[str, object], column: str
) -> None:
    row = event(**values)
    assert f"raw_events.{column} cannot hold" in str(row_problem(RAW_EVENTS, row))
    with pytest.raises(Exception) as refused:
        StoreWriter(store).insert(events=[row])
    assert is_data_error(refused.value)


@pytest.mark.parametrize("ts", [DATETIME64_MS[0] - 1, DATETIME64_MS[1] + 1, 253_402_300_799_999])
def test_a_time_outside_datetime64s_documented_range_is_refused(ts: int) -> None:
    """ClickHouse documents DateTime64 for 1900 to 2299; what it does with a time outside
    depends on its version (this one keeps it), so the worker does not send one."""
    assert "raw_events.ts cannot hold" in str(event_row_problem(event(ts=ts)))  # type: ignore[arg-type]


def test_money_past_int64_and_wrong_types_are_refused() -> None:
    assert "rounds.wagered cannot hold 9223372036854775808 (Int64)" in str(
        row_problem(ROUNDS, round_row(wagered=2**63))
    )
    assert "rounds.seats cannot hold 256 (UInt8)" in str(row_problem(ROUNDS, round_row(seats=256)))
    assert "rounds.voided" in str(row_problem(ROUNDS, round_row(voided=None)))
    assert "rounds: 2 values for 15 columns" in str(row_problem(ROUNDS, ("T", "R")))
    settlement = ("T", "R", "e-1", 1, "bet1", 100, None, None, None, 2**63, TS, TS, "g")
    assert "settlements.actual_paid cannot hold" in str(row_problem(SETTLEMENTS, settlement))
    finding = ("f", "T", "", "", "X", "high", "r", None, "", None, None, "m", None, None, TS)
    assert "findings.event_ids cannot hold" in str(row_problem(FINDINGS, finding))
    good = ("f", "T", "", "", "X", "high", "r", 7, "", -(2**63), None, "m", ["e"], TS, TS)
    assert row_problem(FINDINGS, good) is None
