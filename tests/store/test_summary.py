"""The summary and the finding queries match a hand count of a small simulated floor."""

from __future__ import annotations

from collections import Counter

import pytest
from clickhouse_connect.driver.client import Client

from tablewatch.rules.checks.catalog import CHECKS
from tablewatch.rules.events import ms_to_ts
from tablewatch.sim.floor import Floor
from tablewatch.store import queries
from tablewatch.store.records import CheckCount, Summary, TableCount
from tablewatch.store.writer import StoreWriter
from tests.store.helpers import Audited, audit_floor, ids


@pytest.fixture(scope="module")
def floor() -> Audited:
    audited = audit_floor(Floor(tables=4, rounds=160, seed=7, error_rate=0.25, jackpot_rate=0.1))
    assert len(audited.findings) >= 15
    return audited


@pytest.fixture
def loaded(store: Client, floor: Audited) -> Client:
    writer = StoreWriter(store)
    writer.insert_batch(floor.batch())
    writer.insert_batch(floor.batch())  # and a redelivery of it all
    return store


def test_summary_matches_the_audit(loaded: Client, floor: Audited) -> None:
    by_code = Counter(f.check for f in floor.findings)
    by_table = Counter(f.table_id for f in floor.findings)
    rounds_by_table = Counter(r.table_id for r in floor.rounds)
    got = queries.summary(loaded, top=3)
    assert isinstance(got, Summary)
    assert got.events == len({(e.table_id, e.event_id) for _, e in floor.raw})
    assert got.rounds == len(floor.rounds) == 160
    assert got.voided == sum(r.voided for r in floor.rounds)
    assert got.incomplete == sum(not r.complete for r in floor.rounds)
    assert got.wagered == sum(r.wagered for r in floor.rounds)
    assert got.paid == sum(r.paid for r in floor.rounds)
    assert got.findings == len(floor.findings)
    assert sorted(got.by_check, key=lambda c: c.check) == sorted(
        (CheckCount(code, CHECKS[code].severity, n) for code, n in by_code.items()),
        key=lambda c: c.check,
    )
    assert [c.findings for c in got.by_check] == sorted(by_code.values(), reverse=True)
    assert len(got.top_tables) == 3
    for t in got.top_tables:
        assert t == TableCount(t.table_id, by_table[t.table_id], rounds_by_table[t.table_id])
    assert [t.findings for t in got.top_tables] == sorted(by_table.values(), reverse=True)[:3]


def test_findings_filtered_by_table_and_time(loaded: Client, floor: Audited) -> None:
    everything = queries.findings(loaded, limit=10_000)
    assert {f.finding_id for f in everything} == floor.finding_ids()
    stamps = [f.ts_ms for f in everything if f.ts_ms is not None]
    assert stamps == sorted(stamps, reverse=True)

    table = Counter(f.table_id for f in floor.findings).most_common(1)[0][0]
    of_table = queries.findings(loaded, table_id=table, limit=10_000)
    assert {f.finding_id for f in of_table} == floor.finding_ids(table)

    middle = sorted(stamps)[len(stamps) // 2]
    for since in (middle, ms_to_ts(middle)):
        recent = queries.findings(loaded, since=since, limit=10_000)
        assert recent and all(f.ts_ms is not None and f.ts_ms >= middle for f in recent)
        assert len(recent) == sum(1 for s in stamps if s >= middle)

    assert len(queries.findings(loaded, limit=5)) == 5
    assert queries.findings(loaded, table_id="NO-SUCH-TABLE") == []


def test_round_detail_of_every_round_with_findings(loaded: Client, floor: Audited) -> None:
    judged = [r for r in floor.rounds if r.findings]
    assert len(judged) >= 5
    for result in judged[:8]:
        detail = queries.round_detail(loaded, result.table_id, result.round_id)
        assert detail is not None
        assert detail.round.finding_count == len(detail.findings) == len(result.findings)
        assert {f.finding_id for f in detail.findings} == ids([result])


def test_an_empty_store(store: Client) -> None:
    empty = queries.summary(store)
    assert empty == Summary(0, 0, 0, 0, 0, 0, 0, (), ())
