"""Rows written and read back: cents as int, timestamps as epoch ms, NULLs as None."""

from __future__ import annotations

from clickhouse_connect.driver.client import Client

from tablewatch.rules.events import ts_to_ms
from tablewatch.store import queries
from tablewatch.store.rows import round_finding_ids, settlement_lines
from tablewatch.store.writer import InsertCounts, StoreWriter
from tests.store import scenario
from tests.store.helpers import INGESTED_AT, JUDGED_AT, audit_scripted


def test_a_judged_round_reads_back_as_written(store: Client) -> None:
    audited = audit_scripted(scenario.events())
    counts = StoreWriter(store).insert_batch(audited.batch())
    assert counts == InsertCounts(events=len(audited.raw), rounds=2, settlements=6, findings=4)

    r1 = audited.rounds[0]
    detail = queries.round_detail(store, "LIR-1", "R-1")
    assert detail is not None
    rnd = detail.round
    assert (rnd.table_id, rnd.round_id, rnd.game) == ("LIR-1", "R-1", "let_it_ride")
    assert rnd.start_event_id == r1.start_event_id == "LIR-1-e4"  # its round_start
    assert (rnd.start_ms, rnd.end_ms) == (ts_to_ms(r1.start_ts), ts_to_ms(r1.end_ts))
    assert (rnd.start_ts, rnd.end_ts) == (r1.start_ts, r1.end_ts)
    assert (rnd.dealer_id, rnd.deck_id, rnd.seats) == (r1.dealer_id, r1.deck_id, r1.seats)
    assert (rnd.wagered, rnd.paid) == (7500, 6000)
    assert all(type(v) is int for v in (rnd.wagered, rnd.paid, rnd.start_ms, rnd.judged_at_ms))
    assert (rnd.voided, rnd.complete, rnd.finding_count) == (False, True, 3)
    assert rnd.judged_at_ms == JUDGED_AT

    lines = [
        (s.seat, s.bet, s.stake, s.expected_result, s.expected_paid, s.actual_result, s.actual_paid)
        for s in detail.settlements
    ]
    assert lines == [
        (x.seat, x.bet, x.stake, x.expected_result, x.expected_paid, x.actual_result, x.actual_paid)
        for x in settlement_lines(r1)
    ]
    assert {s.start_ms for s in detail.settlements} == {rnd.start_ms}
    assert {s.start_event_id for s in detail.settlements} == {r1.start_event_id}

    assert [f.finding_id for f in detail.findings] == round_finding_ids(r1)
    for stored, original in zip(detail.findings, r1.findings, strict=True):
        mine = stored.as_dict()
        theirs = original.as_dict()
        assert mine.pop("start_event_id") == r1.start_event_id
        for key in ("finding_id", "judged_at"):
            mine.pop(key)
        assert mine == theirs
        assert stored.ts_ms == ts_to_ms(original.ts or "")
        assert type(stored.expected) is int and type(stored.actual) is int


def test_table_level_finding_and_nulls(store: Client) -> None:
    audited = audit_scripted(scenario.events())
    StoreWriter(store).insert_batch(audited.batch())
    (gap,) = [f for f in queries.findings(store) if f.check == "SEQUENCE_GAP"]
    original = next(f for f in audited.findings if f.check == "SEQUENCE_GAP")
    assert (gap.round_id, gap.seat, gap.bet, gap.expected, gap.actual) == (None,) * 5
    assert gap.start_event_id is None  # part of no judged round
    assert gap.as_dict() | {"finding_id": None, "judged_at": None} == original.as_dict() | {
        "finding_id": None,
        "start_event_id": None,
        "judged_at": None,
    }


def test_raw_events_read_back_verbatim(store: Client) -> None:
    audited = audit_scripted(scenario.events())
    StoreWriter(store).insert_batch(audited.batch())
    rows = store.query(
        "SELECT event_id, seq, toUnixTimestamp64Milli(ts), type, round_id, payload,"
        " kafka_partition, kafka_offset, toUnixTimestamp64Milli(ingested_at)"
        " FROM raw_events_v ORDER BY kafka_offset"
    ).result_rows
    assert len(rows) == len(audited.raw)
    for offset, (row, (raw, event)) in enumerate(zip(rows, audited.raw, strict=True)):
        event_id, seq, ts, kind, round_id, payload, partition, kafka_offset, ingested = row
        assert (event_id, seq, ts) == (event.event_id, event.seq, ts_to_ms(event.ts))
        assert kind == raw.split(b'"type":"')[1].split(b'"')[0].decode()
        assert round_id == getattr(event, "round_id", "")
        assert payload == raw.decode()
        assert (partition, kafka_offset, ingested) == (0, offset, INGESTED_AT)


def test_an_unknown_round_has_no_detail(store: Client) -> None:
    assert queries.round_detail(store, "LIR-1", "R-404") is None
