"""The store source: each table's events in the worker's order, read in chunks, while the
run's rows are written on the same client."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from clickhouse_connect.driver.client import Client

from tablewatch.replay.run import Recorder, RunRecord, findings_json, new_run_id, replay
from tablewatch.replay.store_source import StoreSource
from tablewatch.rules.audit import Auditor, findings_of
from tablewatch.rules.config import parse_config
from tablewatch.rules.decode import EventRejected, encode_event
from tablewatch.sim.floor import Floor
from tablewatch.store.client import open_store
from tablewatch.store.migrate import migrate
from tablewatch.store.rows import EVENT_COLUMNS, event_row


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Client]:
    with open_store(f"chdb:///{tmp_path / 'store'}") as opened:
        migrate(opened)
        yield opened


def test_a_store_replay_writes_as_it_reads_and_finds_what_the_file_audit_finds(
    client: Client,
) -> None:
    floor = Floor(tables=3, rounds=40, seed=11, error_rate=0.3)
    events = list(floor.events())
    # the rows as the worker chains them: each table's positions in arrival order; the
    # first table's events stored before the chain existed (position 0), by seq
    positions: dict[str, int] = {}
    rows = []
    before_chain = events[0].table_id
    for event in events:
        row = event_row(encode_event(event), event, 0, 0, 1_796_000_000_000)
        if event.table_id != before_chain:
            positions[event.table_id] = positions.get(event.table_id, 0) + 1
            row = (*row[:10], positions[event.table_id], "", "")
        rows.append(row)
    client.insert("raw_events", rows[::-1], column_names=EVENT_COLUMNS)  # stored in any order
    configs = parse_config(floor.config)
    expected = list(findings_of(Auditor(configs).feed_all(events)))
    assert len(expected) > 10
    record = RunRecord(new_run_id(), "store", "raw_events_v", (), "v", "h", int(time.time() * 1000))
    recorder = Recorder(client, record, batch_rows=4)  # written while a chunk is folded
    source = StoreSource(client, chunk=400)  # several chunks a table
    assert source.total == len(events)
    replay(source, configs, recorder)
    assert (record.events, record.findings) == (len(events), len(expected))
    assert record.seen_tables == {e.table_id for e in events}
    stored = [line for line in findings_json(client, record.run_id)]
    assert len(stored) == len(expected)
    found = {(f.table_id, f.round_id or "", f.check, f.seat, f.bet or "") for f in expected}
    assert {
        (d["table_id"], d["round_id"], d["check"], d["seat"], d["bet"])
        for d in map(_decoded, stored)
    } == found
    assert not any(isinstance(run, EventRejected) for run in source.runs())


def _decoded(line: bytes) -> dict[str, object]:
    import json

    value: dict[str, object] = json.loads(line)
    return value
