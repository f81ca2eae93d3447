"""``round_index`` (migration 0015), what the round reconstruction reads first: what it holds
of a stored round, the same whether its views filled it or the migration's fill did, and a
reconstruction that is the same without it."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from tablewatch.api.sources import ReaderPool, open_product_reader
from tablewatch.rounds.from_store import _last_of, load_round
from tablewatch.rounds.report import RoundReport
from tablewatch.rules.events import ts_to_ms
from tablewatch.store.client import open_store
from tablewatch.store.migrate import available
from tablewatch.store.read_only import Answer, open_reader
from tests.rounds.conftest import fill_store
from tests.rounds.golden import FCP_EVENTS, LIR_EVENTS, write_files

INDEXED = (
    "SELECT table_id, round_id, toUnixTimestamp64Milli(min(first_ts)), "
    "toUnixTimestamp64Milli(max(last_ts)), toJSONString(maxMap(judged)), sum(finding_rows) "
    "FROM round_index GROUP BY table_id, round_id ORDER BY table_id, round_id"
)


def _store(tmp_path: Path) -> str:
    dsn = f"chdb:///{tmp_path / 'store'}"
    fill_store(dsn, *write_files(tmp_path))
    return dsn


def _rows(dsn: str, sql: str) -> list[tuple[Any, ...]]:
    with open_store(dsn) as client:
        return [tuple(r) for r in client.query(sql).result_rows]


def _golden_lir_round(dsn: str) -> RoundReport:
    reader = open_reader(dsn)
    try:
        return load_round(reader, "LIR-G", "R-77")
    finally:
        reader.close()


def test_a_stored_round_is_indexed_by_its_events_times_judgements_and_findings(
    tmp_path: Path,
) -> None:
    dsn = _store(tmp_path)
    stored = {
        (t, r): (first, last, json.loads(judged), rows)
        for t, r, first, last, judged, rows in _rows(dsn, INDEXED)
    }
    judged = dict(
        _rows(
            dsn,
            "SELECT concat(table_id, ' ', round_id, ' ', start_event_id), "
            "toUnixTimestamp64Milli(judged_at) FROM rounds",
        )
    )
    findings = dict(
        _rows(
            dsn,
            "SELECT concat(table_id, ' ', round_id), count() FROM findings "
            "WHERE round_id != '' GROUP BY table_id, round_id",
        )
    )
    expected = {}
    for events in (LIR_EVENTS, FCP_EVENTS):
        own = [e for e in events if e.get("round_id")]
        table, rnd = own[0]["table_id"], own[0]["round_id"]
        start = own[0]["event_id"]
        expected[(table, rnd)] = (
            min(ts_to_ms(e["ts"]) for e in own),
            max(ts_to_ms(e["ts"]) for e in own),
            [[start], [judged[f"{table} {rnd} {start}"]]],
            findings.get(f"{table} {rnd}", 0),
        )
    assert stored == expected
    assert stored[("LIR-G", "R-77")][3] == 1  # its WRONG_PAYOUT


def test_the_migrations_fill_indexes_what_its_views_index(tmp_path: Path) -> None:
    dsn = _store(tmp_path)
    by_views = _rows(dsn, INDEXED)
    [migration] = [m for m in available() if m.version == "0015"]
    with open_store(dsn) as client:
        client.command("TRUNCATE TABLE round_index")
        assert client.query("SELECT count() FROM round_index").result_rows == [(0,)]
        for statement in migration.statements():  # the tables and views exist: the fill
            client.command(statement)
    assert _rows(dsn, INDEXED) == by_views
    assert len(by_views) == 2


def test_a_round_the_index_lost_is_read_as_the_store_holds_it(tmp_path: Path) -> None:
    dsn = _store(tmp_path)
    indexed = _golden_lir_round(dsn)
    with open_store(dsn) as client:
        client.command("TRUNCATE TABLE round_index")
    lost = _golden_lir_round(dsn)
    assert lost == indexed
    assert lost.findings_source == "store"
    assert [f.check for f in lost.findings] == ["WRONG_PAYOUT"]


def test_a_round_stored_since_the_last_refresh_is_read_as_once_refreshed(
    tmp_path: Path,
) -> None:
    """The rollups a reconstruction reads (round_index, round_judgements, procedure_events:
    the deck and the meter before the round) are refreshed
    every few seconds: a round stored since the last refresh is read from the facts
    stored since it, the same as it is once refreshed."""
    dsn = _store(tmp_path)
    refreshed = _golden_lir_round(dsn)
    with open_store(dsn) as client:
        client.command("TRUNCATE TABLE round_index")
        client.command("TRUNCATE TABLE round_judgements")
        client.command("TRUNCATE TABLE procedure_events")
        client.command("TRUNCATE TABLE rollup_watermarks")
        # the last refresh ran just before the golden rounds were stored
        client.command(
            "INSERT INTO rollup_watermarks (name, watermark, covered) "
            "SELECT arrayJoin(['round_index', 'round_judgements', 'procedure_events']), "
            "min(stored_at), min(stored_at) FROM raw_events"
        )
    unrefreshed = _golden_lir_round(dsn)
    assert unrefreshed == refreshed
    assert [f.check for f in unrefreshed.findings] == ["WRONG_PAYOUT"]
    # the deck changes and meter readings looked for before a round (its deck's dealing)
    reader = open_reader(dsn)
    try:
        decks = reader.run(_last_of("table_id = 'LIR-G' AND type = 'deck_in'")).rows
    finally:
        reader.close()
    assert [(r[0], r[3], r[4]) for r in decks] == [("deck_in", "D-9", "hand")]


class _InPairs:
    """A source that says it runs statements at once: a pool of two readers on the store,
    whose first four statements must arrive two at a time (each waits for its partner at a
    barrier, which breaks after 20 s alone)."""

    concurrent = True

    def __init__(self, dsn: str) -> None:
        self.pool = ReaderPool(lambda: open_product_reader(dsn), size=2)
        self.barrier = threading.Barrier(2, timeout=20)
        self.lock = threading.Lock()
        self.statements: list[str] = []

    def run(self, sql: str) -> Answer:
        with self.lock:
            self.statements.append(sql)
            paired = len(self.statements) <= 4
        if paired:
            self.barrier.wait()
        return self.pool.run(sql)


def test_a_concurrent_source_reads_a_round_in_two_pairs_of_statements_run_at_once(
    tmp_path: Path,
) -> None:
    dsn = _store(tmp_path)
    one_by_one = _golden_lir_round(dsn)  # a single reader: two statements, one after the other
    source = _InPairs(dsn)
    try:
        at_once = load_round(source, "LIR-G", "R-77")
    finally:
        source.pool.close()
    assert at_once == one_by_one
    assert [f.check for f in at_once.findings] == ["WRONG_PAYOUT"]
    first, second = source.statements[:2], source.statements[2:4]
    assert sorted("round_index" in s for s in first) == [False, True]  # with the directory
    assert any("FROM table_directory" in s for s in first)
    assert sorted("procedure_events" in s for s in second) == [False, True]  # events apart
    assert len(source.statements) == 4
