"""Message -> rows: pure functions, no store."""

from __future__ import annotations

import dataclasses
from typing import Any

from tablewatch.rules.decode import encode_event
from tablewatch.rules.events import ts_to_ms
from tablewatch.rules.findings import Finding
from tablewatch.store.batch import StoreBatch
from tablewatch.store.rows import (
    EVENT_COLUMNS,
    FINDING_COLUMNS,
    ROUND_COLUMNS,
    SETTLEMENT_COLUMNS,
    event_row,
    finding_id,
    finding_row,
    round_rows,
    settlement_lines,
)
from tests.store import scenario
from tests.store.helpers import JUDGED_AT, audit_scripted


def test_event_row_keeps_the_raw_bytes_and_the_kafka_position() -> None:
    events = scenario.events()
    table_event, round_event = events[0], events[5]
    raw = encode_event(round_event) + b" "  # as received, not re-encoded
    row = dict(zip(EVENT_COLUMNS, event_row(raw, round_event, 3, 42, 1_000), strict=True))
    assert row == {
        "table_id": "LIR-1",
        "event_id": round_event.event_id,
        "seq": round_event.seq,
        "ts": ts_to_ms(round_event.ts),
        "type": "wager",
        "round_id": "R-1",
        "payload": raw,
        "kafka_partition": 3,
        "kafka_offset": 42,
        "ingested_at": 1_000,
        "chain_pos": 0,  # outside any chain until the worker chains it (rows.chained)
        "chain_prev": "",
        "chain_hash": "",
    }
    table_row = event_row(encode_event(table_event).decode(), table_event, -1, -1, 1_000)
    assert table_row[4:7] == ("table_open", "", encode_event(table_event))


def test_round_rows_of_a_judged_round() -> None:
    audited = audit_scripted(scenario.events())
    r1 = audited.rounds[0]
    rows = round_rows(r1, JUDGED_AT)
    rnd = dict(zip(ROUND_COLUMNS, rows.round_row, strict=True))
    assert rnd["round_id"] == "R-1"
    assert (rnd["wagered"], rnd["paid"]) == (7500, 6000)
    assert rnd["start_ts"] == ts_to_ms("2026-11-29T20:00:02.000Z")
    assert (rnd["voided"], rnd["complete"], rnd["finding_count"]) == (False, True, 3)
    assert rnd["judged_at"] == JUDGED_AT
    lines = [dict(zip(SETTLEMENT_COLUMNS, s, strict=True)) for s in rows.settlement_rows]
    assert [(s["bet"], s["expected_paid"], s["actual_paid"]) for s in lines] == [
        ("bet1", 2500, 2000),
        ("bet2", 2500, 2000),
        ("bet3", 2500, 2000),
    ]
    assert {s["start_ts"] for s in lines} == {rnd["start_ts"]}
    found = [dict(zip(FINDING_COLUMNS, f, strict=True)) for f in rows.finding_rows]
    assert [(f["check"], f["severity"], f["expected"], f["actual"]) for f in found] == [
        ("WRONG_PAYOUT", "critical", 2500, 2000)
    ] * 3


def test_table_level_finding_row() -> None:
    gap = next(f for f in audit_scripted(scenario.events()).findings if f.round_id is None)
    row = dict(zip(FINDING_COLUMNS, finding_row(gap, JUDGED_AT), strict=True))
    assert (row["round_id"], row["bet"], row["seat"]) == ("", "", None)
    assert row["ts"] == ts_to_ms(gap.ts or "")
    no_ts = dataclasses.replace(gap, ts=None)
    assert finding_row(no_ts, JUDGED_AT)[FINDING_COLUMNS.index("ts")] is None
    assert finding_row(no_ts, JUDGED_AT, 7)[FINDING_COLUMNS.index("ts")] == 7


def test_finding_id_is_stable_and_tells_findings_apart() -> None:
    f = Finding("T", "R", "WRONG_PAYOUT", "§", "m", 2, "bet1", 1, 2, ("e1", "e2"), "x")
    same = dataclasses.replace(f, message="reworded", expected=5, ts=None)
    assert (
        finding_id(f)
        == finding_id(same)
        == finding_id(dataclasses.replace(f, event_ids=("e2", "e1")))
    )
    assert len(finding_id(f)) == 32
    changes: list[dict[str, Any]] = [
        {"table_id": "U"},
        {"round_id": None},
        {"check": "UNSETTLED_WAGER"},
        {"seat": 3},
        {"seat": None},
        {"bet": "bet2"},
        {"event_ids": ("e1",)},
    ]
    for change in changes:
        assert finding_id(dataclasses.replace(f, **change)) != finding_id(f), change


def test_finding_ids_are_unique_within_an_audit() -> None:
    found = audit_scripted(scenario.events()).findings
    assert len({finding_id(f) for f in found}) == len(found) == 4


def test_settlements_may_become_a_method() -> None:
    result = audit_scripted(scenario.events()).rounds[0]

    class Lazy:
        def __init__(self, wrapped: Any) -> None:
            self._wrapped = wrapped

        def __getattr__(self, name: str) -> Any:
            return getattr(self._wrapped, name)

        def settlements(self) -> Any:
            return self._wrapped.settlements

    lazy: Any = Lazy(result)
    assert settlement_lines(lazy) == settlement_lines(result) == result.settlements
    assert round_rows(lazy, 1) == round_rows(result, 1)


def test_batch_gathers_events_and_outcomes() -> None:
    audited = audit_scripted(scenario.events())
    batch = audited.batch()
    assert len(batch.events) == len(audited.raw)
    assert len(batch.rounds) == 2
    assert len(batch.settlements) == 6
    assert len(batch.findings) == 4
    assert len(batch) == len(audited.raw) + 12
    batch.clear()
    assert len(batch) == 0 and batch == StoreBatch()
