"""Redelivered events, replayed batches and re-judged rounds never show twice."""

from __future__ import annotations

from clickhouse_connect.driver.client import Client

from tablewatch.store import queries
from tablewatch.store.batch import StoreBatch
from tablewatch.store.rows import SETTLEMENT_COLUMNS, finding_id
from tablewatch.store.writer import StoreWriter
from tests.store import scenario
from tests.store.helpers import JUDGED_AT, audit_scripted

Counts = tuple[int, int, int, int]


def view_counts(client: Client) -> Counts:
    def one(sql: str) -> int:
        ((n,),) = client.query(sql).result_rows
        return int(n)

    return (
        one("SELECT count() FROM raw_events_v"),
        one("SELECT count() FROM rounds_v"),
        one("SELECT count() FROM settlements_v"),
        one("SELECT count() FROM findings_v"),
    )


def distinct_counts(client: Client) -> Counts:
    ((events, rounds, lines, found),) = client.query(
        "SELECT"
        " (SELECT uniqExact(table_id, event_id) FROM raw_events),"
        " (SELECT uniqExact(table_id, round_id) FROM rounds),"
        " (SELECT uniqExact(table_id, round_id, seat, bet) FROM settlements),"
        " (SELECT uniqExact(finding_id) FROM findings)"
    ).result_rows
    return int(events), int(rounds), int(lines), int(found)


def physical_rows(client: Client) -> int:
    ((n,),) = client.query(
        "SELECT (SELECT count() FROM raw_events) + (SELECT count() FROM rounds)"
        " + (SELECT count() FROM settlements) + (SELECT count() FROM findings)"
    ).result_rows
    return int(n)


def test_the_same_batch_written_three_times_shows_once(store: Client) -> None:
    audited = audit_scripted(scenario.events())
    writer = StoreWriter(store)
    once = writer.insert_batch(audited.batch())
    expected = (once.events, once.rounds, once.settlements, once.findings)
    assert view_counts(store) == distinct_counts(store) == expected
    summary = queries.summary(store)

    writer.insert_batch(audited.batch())  # a retried batch: same rows
    writer.insert_batch(audited.batch(JUDGED_AT + 60_000, JUDGED_AT + 60_000))  # a replay
    assert physical_rows(store) == 3 * once.total  # the duplicates are there, unmerged
    assert view_counts(store) == distinct_counts(store) == expected
    assert queries.summary(store) == summary
    assert len(queries.findings(store)) == once.findings

    for table in ("raw_events", "rounds", "settlements", "findings"):
        store.command(f"OPTIMIZE TABLE {table} FINAL")
    assert physical_rows(store) == once.total
    assert view_counts(store) == expected


def test_a_redelivered_event_at_another_offset_is_one_row(store: Client) -> None:
    audited = audit_scripted(scenario.events())
    raw, event = audited.raw[3]
    batch = StoreBatch()
    batch.add_event(raw, event, 0, 3, JUDGED_AT)
    batch.add_event(raw, event, 0, 977, JUDGED_AT + 5)  # re-sent by the controller
    batch.add_event(raw, event, 1, 12, JUDGED_AT + 9)  # a replayed copy of the topic
    StoreWriter(store).insert_batch(batch)
    rows = store.query(
        "SELECT event_id, kafka_partition, kafka_offset FROM raw_events_v"
    ).result_rows
    assert rows == [(event.event_id, 1, 12)]  # the latest copy (ingested_at) is the one kept


def test_a_rejudged_round_replaces_its_rows_findings_and_lines(store: Client) -> None:
    writer = StoreWriter(store)
    # first judgement: R-2's end had not arrived -> incomplete, ROUND_INCOMPLETE
    early = audit_scripted(scenario.events(round_end=False))
    first = early.batch(JUDGED_AT)
    # a line the first judgement had and the second will not (as after a rules fix)
    stale_line = dict(zip(SETTLEMENT_COLUMNS, first.settlements[-1], strict=True))
    stale_line.update(seat=6, bet="five_card_bonus")
    first.settlements.append(tuple(stale_line.values()))  # type: ignore[arg-type]
    writer.insert_batch(first)

    before = queries.round_detail(store, "LIR-1", "R-2")
    assert before is not None
    assert before.round.complete is False
    assert [f.check for f in before.findings] == ["ROUND_INCOMPLETE"]
    assert len(before.settlements) == 4

    # second judgement: every event
    late = audit_scripted(scenario.events())
    second_at = JUDGED_AT + 3_600_000
    writer.insert_batch(late.batch(second_at))

    after = queries.round_detail(store, "LIR-1", "R-2")
    assert after is not None
    assert after.round.complete is True
    assert after.round.judged_at_ms == second_at
    assert after.findings == ()
    assert [(s.seat, s.bet, s.actual_result) for s in after.settlements] == [
        (2, "bet1", "win"),
        (2, "bet2", "win"),
        (2, "bet3", "win"),
    ]
    assert {f.finding_id for f in queries.findings(store)} == late.finding_ids()
    assert view_counts(store)[1:] == (2, 6, len(late.findings))

    # the first judgement's rows written again late (a slow or replaying writer) change nothing
    writer.insert_batch(first)
    assert queries.round_detail(store, "LIR-1", "R-2") == after
    assert {f.finding_id for f in queries.findings(store)} == late.finding_ids()


def test_findings_written_before_their_round_row_are_shown(store: Client) -> None:
    # the writer's order: lines and findings first, round rows last
    audited = audit_scripted(scenario.events())
    batch = audited.batch()
    StoreWriter(store).insert(settlements=batch.settlements, findings=batch.findings)
    assert {f.finding_id for f in queries.findings(store)} == audited.finding_ids()
    ((lines,),) = store.query("SELECT count() FROM settlements_v").result_rows
    assert lines == len(batch.settlements)


def test_same_finding_judged_again_keeps_its_id(store: Client) -> None:
    one = audit_scripted(scenario.events()).findings
    two = audit_scripted(scenario.events()).findings
    assert [finding_id(f) for f in one] == [finding_id(f) for f in two]
