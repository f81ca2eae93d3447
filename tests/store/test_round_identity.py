"""A stored round is known by its table, round_id and start_event_id: a round_id given
again keeps both rounds; a store of the old schema (keyed by round_id) migrates without
losing or showing anything new, each row with the identity the rules give its round."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from clickhouse_connect.driver.client import Client

from tablewatch.rules.audit import Auditor
from tablewatch.rules.config import parse_config
from tablewatch.rules.decode import decode_event, encode_event
from tablewatch.rules.events import AnyEvent, RoundEvent, ts_to_ms
from tablewatch.rules.judge import RoundResult
from tablewatch.script import TableScript
from tablewatch.sim.floor import Floor
from tablewatch.store import queries
from tablewatch.store.batch import StoreBatch
from tablewatch.store.client import connect
from tablewatch.store.migrate import available, migrate
from tablewatch.store.writer import StoreWriter
from tests.scenarios import CONFIG, lir_round, lir_table
from tests.store import old_schema
from tests.store.conftest import dsn_of
from tests.store.helpers import INGESTED_AT, JUDGED_AT, Audited, audit_events, ids

IDENTITY = "0005"


def reused_table() -> TableScript:
    """LIR-1: R-1 paid right, R-2 underpaid, then R-1 again (a controller reset) underpaid."""
    t = lir_table()
    lir_round(t, "R-1")
    lir_round(t, "R-2", paid_each=2000)
    lir_round(t, "R-1", paid_each=1500)
    return t


def _audit(events: list[AnyEvent], document: dict[str, Any] | None = None) -> Audited:
    return audit_events(events, Auditor(parse_config(document or CONFIG)))


def _round_keys(client: Client) -> list[tuple[str, str, str]]:
    rows = client.query(
        "SELECT table_id, round_id, start_event_id FROM rounds_v ORDER BY start_ts"
    ).result_rows
    return [(str(t), str(r), str(s)) for t, r, s in rows]


def test_a_reused_round_id_keeps_both_rounds_their_lines_and_findings(store: Client) -> None:
    audited = _audit(reused_table().events)
    first, second = (r for r in audited.rounds if r.round_id == "R-1")
    assert first.start_event_id != second.start_event_id
    StoreWriter(store).insert_batch(audited.batch())

    assert _round_keys(store) == [
        ("LIR-1", "R-1", first.start_event_id),
        ("LIR-1", "R-2", audited.rounds[1].start_event_id),
        ("LIR-1", "R-1", second.start_event_id),
    ]
    for result, paid in ((first, 2500), (second, 1500)):
        detail = queries.round_detail(store, "LIR-1", "R-1", result.start_event_id)
        assert detail is not None
        assert detail.round.start_event_id == result.start_event_id
        assert detail.round.start_ts == result.start_ts
        assert [(s.bet, s.actual_paid) for s in detail.settlements] == [
            ("bet1", paid),
            ("bet2", paid),
            ("bet3", paid),
        ]
        assert {s.start_event_id for s in detail.settlements} == {result.start_event_id}
        assert {f.finding_id for f in detail.findings} == ids([result])
        assert detail.round.finding_count == len(result.findings)
    assert [f.check for f in first.findings] == []
    reused = [f for f in second.findings if f.check == "ROUND_ID_REUSED"]
    assert len(reused) == 1 and first.start_event_id in reused[0].message
    # without a start_event_id: the round that began last
    latest = queries.round_detail(store, "LIR-1", "R-1")
    assert latest is not None and latest.round.start_event_id == second.start_event_id
    # a WRONG_PAYOUT of the same wager in both rounds would be two findings, two ids
    assert {f.finding_id for f in queries.findings(store)} == audited.finding_ids()


def test_the_keys_hold_the_start(store: Client) -> None:
    keys = {
        str(name): str(key)
        for name, key in store.query(
            "SELECT name, sorting_key FROM system.tables WHERE database = currentDatabase()"
            " AND name IN ('rounds', 'settlements', 'findings')"
        ).result_rows
    }
    # start_ts (the time of the round's start event, so part of its identity) after
    # table_id since 0011: time-range reads (docs/dashboards.md)
    assert keys == {
        "rounds": "table_id, start_ts, round_id, start_event_id",
        "settlements": "table_id, start_ts, round_id, seat, bet, start_event_id",
        "findings": "table_id, round_id, finding_id, start_event_id",
    }


def test_a_round_delivered_and_judged_again_is_still_one(store: Client) -> None:
    audited = _audit(reused_table().events)
    writer = StoreWriter(store)
    writer.insert_batch(audited.batch())
    writer.insert_batch(audited.batch(JUDGED_AT + 60_000, INGESTED_AT + 60_000))
    again = _audit(reused_table().events)  # the same events judged anew: same identities
    writer.insert_batch(again.batch(JUDGED_AT + 120_000, INGESTED_AT + 120_000))
    assert len(_round_keys(store)) == 3
    ((lines, found),) = store.query(
        "SELECT (SELECT count() FROM settlements_v), (SELECT count() FROM findings_v)"
    ).result_rows
    assert (lines, found) == (9, len(audited.findings))


# ---- from the old schema ---------------------------------------------------------------------


def old_floor() -> tuple[Audited, dict[str, Any]]:
    """A simulated floor, plus LIR-1: a reused round id, a round with no round_start, an event
    after its round's end, lost events, and a round whose events will not be stored."""
    floor = Floor(tables=3, rounds=45, seed=11, error_rate=0.15, jackpot_rate=0.05)
    document = {"tables": dict(floor.config["tables"]) | {"LIR-1": CONFIG["tables"]["LIR-1"]}}
    t = reused_table()
    t.round_id = "R-3"  # its round_start never came: the round begins with a wager
    for bet in ("bet1", "bet2", "bet3"):
        t.wager(2, bet, 2500)
    t.round_end()
    t.round_id = "R-2"
    t.settle(2, "bet1", "win", 2500)  # EVENT_OUTSIDE_ROUND, of a round that was stored
    t.skip_seq(2)
    t.meter(100_000)  # a table-level SEQUENCE_GAP
    lir_round(t, "R-4", paid_each=2000)
    return _audit([*floor.events(), *t.events], document), document


def fill_old_store(client: Client, audited: Audited) -> None:
    """What the old code stored of ``audited``: LIR-1's R-4 events missing, and a round
    judged twice (the second judgement without the first's first finding)."""
    writer = old_schema.OldWriter()
    writer.add_events(
        (
            (raw, event)
            for raw, event in audited.raw
            if not isinstance(event, RoundEvent)
            or (event.table_id, event.round_id) != ("LIR-1", "R-4")
        ),
        INGESTED_AT,
    )
    for outcome in audited.outcomes:
        writer.add_outcome(outcome, JUDGED_AT)
    rejudged = next(
        r for r in audited.rounds if r.table_id != "LIR-1" and old_schema.old_findings(r)
    )
    writer.add_outcome(rejudged, JUDGED_AT + 60_000, old_schema.old_findings(rejudged)[1:])
    writer.insert(client)


def expected_identities(audited: Audited) -> set[tuple[str, str, str]]:
    """The identity of each round the old store kept: the last judged of its (table, round_id),
    as the rules give it; R-4 of LIR-1, whose events are not stored, the fallback's."""
    last: dict[tuple[str, str], RoundResult] = {}
    for result in audited.rounds:
        last[(result.table_id, result.round_id)] = result
    out = {(t, r, result.start_event_id) for (t, r), result in last.items()}
    r4 = last[("LIR-1", "R-4")]
    out.discard(("LIR-1", "R-4", r4.start_event_id))
    out.add(("LIR-1", "R-4", f"no-start-event@{ts_to_ms(r4.start_ts)}"))
    return out


@pytest.fixture(scope="module")
def floor() -> tuple[Audited, dict[str, Any]]:
    return old_floor()


def _ttls(client: Client) -> dict[str, str]:
    rows = client.query(
        "SELECT name, engine_full FROM system.tables WHERE database = currentDatabase()"
        " AND name IN ('rounds', 'settlements', 'findings')"
    ).result_rows
    return {str(name): str(engine).partition(" TTL ")[2] for name, engine in rows}


def _check_migrated(
    client: Client, audited: Audited, before: dict[str, set[tuple[object, ...]]]
) -> None:
    assert old_schema.all_view_rows(client) == before
    assert set(_round_keys(client)) == expected_identities(audited)
    ((empty_rounds, empty_lines, round_findings_without),) = client.query(
        "SELECT (SELECT count() FROM rounds WHERE start_event_id = ''),"
        " (SELECT count() FROM settlements WHERE start_event_id = ''),"
        " (SELECT count() FROM findings_v WHERE start_event_id = '' AND round_id != ''"
        "   AND check != 'EVENT_OUTSIDE_ROUND')"
    ).result_rows
    assert (empty_rounds, empty_lines, round_findings_without) == (0, 0, 0)
    # every line and finding of a round carries its round row's identity
    ((strays,),) = client.query(
        "SELECT count() FROM (SELECT table_id, round_id, start_event_id FROM settlements"
        " UNION ALL SELECT table_id, round_id, start_event_id FROM findings"
        "   WHERE start_event_id != '')"
        " WHERE (table_id, round_id, start_event_id) NOT IN"
        "   (SELECT table_id, round_id, start_event_id FROM rounds)"
    ).result_rows
    assert strays == 0


@pytest.mark.parametrize("later", [False, True], ids=["after-0004", "after-0007"])
def test_an_old_store_migrates_without_loss(
    bare_store: Client, floor: tuple[Audited, dict[str, Any]], later: bool
) -> None:
    """From a store of 0001-0004, or of every migration but this one (the later ones were
    applied first: their columns and TTLs stay)."""
    audited, _ = floor
    old_schema.migrate_to_old_schema(bare_store, later)
    ttls = _ttls(bare_store)
    fill_old_store(bare_store, audited)
    before = old_schema.all_view_rows(bare_store)
    # what the old keys did: one R-1 of LIR-1 (the second), its lines over the first's
    assert sum(1 for row in before["rounds_v"] if row[:2] == ("LIR-1", "R-1")) == 1
    ((stored,),) = bare_store.query("SELECT count() FROM findings FINAL").result_rows
    assert stored == len(before["findings_v"]) + 1  # the finding the round's rejudgement lost

    applied = migrate(bare_store)
    assert applied[0] == next(m.label for m in available() if m.version == IDENTITY)
    after_0010 = [m for m in available() if m.version > "0010"]
    assert len(applied) == (1 + len(after_0010) if later else len(available()) - 4)
    _check_migrated(bare_store, audited, before)
    if later:
        assert _ttls(bare_store) == ttls and all(ttls.values())
    ((outside,),) = bare_store.query(
        "SELECT start_event_id FROM findings_v WHERE check = 'EVENT_OUTSIDE_ROUND'"
    ).result_rows
    r2 = next(r for r in audited.rounds if (r.table_id, r.round_id) == ("LIR-1", "R-2"))
    assert outside == r2.start_event_id  # stored with its round's id, as the rows had it

    # the rounds judged again by this code land on the rows migrated (same identity); the first
    # R-1, lost under the old keys, and R-4 (its events were not stored) are new rows
    batch = StoreBatch()
    batch.add_outcomes(audited.outcomes, JUDGED_AT + 120_000)
    StoreWriter(bare_store).insert_batch(batch)
    first_r1 = next(r for r in audited.rounds if (r.table_id, r.round_id) == ("LIR-1", "R-1"))
    r4 = audited.rounds[-1]
    assert set(_round_keys(bare_store)) == expected_identities(audited) | {
        ("LIR-1", "R-1", first_r1.start_event_id),
        ("LIR-1", "R-4", r4.start_event_id),
    }
    for result in audited.rounds:
        key = (result.table_id, result.round_id, result.start_event_id)
        detail = queries.round_detail(bare_store, *key)
        assert detail is not None, key
        assert {f.finding_id for f in detail.findings} == ids([result]), key


# Statements of the migration run before a crash: its keys changed (some), a copy done and
# its delete not, a delete done and the next copy not, the findings copied, a view replaced.
CUTS = (1, 4, 5, 8, 10)


def _stores(root: Path) -> Iterator[tuple[int, Client]]:
    for cut in CUTS:
        client = connect(dsn_of(root / f"cut{cut}"))
        try:
            yield cut, client
        finally:
            client.close()


def test_a_migration_cut_short_then_run_again_loses_nothing(
    tmp_path: Path, floor: tuple[Audited, dict[str, Any]]
) -> None:
    """Each statement of the migration safe to repeat: what a crash after one of them leaves,
    migrated again from the file's start, is the same store."""
    audited, _ = floor
    statements = next(m for m in available() if m.version == IDENTITY).statements()
    assert len(statements) == 12 and "VIEW" in statements[10]  # CUTS name these
    for cut, client in _stores(tmp_path):
        old_schema.migrate_to_old_schema(client)
        fill_old_store(client, audited)
        before = old_schema.all_view_rows(client)
        for statement in statements[:cut]:
            client.command(statement)
        migrate(client)
        _check_migrated(client, audited, before)


def test_the_floor_has_what_the_migration_test_needs(
    floor: tuple[Audited, dict[str, Any]],
) -> None:
    audited, _ = floor
    checks = {f.check for f in audited.findings}
    assert {"ROUND_ID_REUSED", "EVENT_OUTSIDE_ROUND", "SEQUENCE_GAP", "WRONG_PAYOUT"} <= checks
    r3 = next(r for r in audited.rounds if r.round_id == "R-3")
    first_event = next(e for _, e in audited.raw if getattr(e, "round_id", None) == "R-3")
    assert r3.start_event_id == first_event.event_id  # no round_start: its first event
    assert decode_event(encode_event(first_event)).event_id == r3.start_event_id
