"""The store source: each table's events in the worker's order, read in chunks, while the
run's rows are written on the same client."""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from clickhouse_connect.driver.client import Client

from tablewatch.replay import store_source
from tablewatch.replay.run import Recorder, RunRecord, findings_json, new_run_id, replay
from tablewatch.replay.store_source import StoreSource, read_ahead
from tablewatch.rules.audit import Auditor, findings_of
from tablewatch.rules.config import parse_config
from tablewatch.rules.decode import EventRejected, decode_event, encode_event
from tablewatch.sim.floor import Floor
from tablewatch.store.client import connect, open_store
from tablewatch.store.migrate import migrate
from tablewatch.store.rows import EVENT_COLUMNS, event_row
from tests.sim.floors import FIRST_TWO


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Client]:
    with open_store(f"chdb:///{tmp_path / 'store'}") as opened:
        migrate(opened)
        yield opened


def test_a_store_replay_writes_as_it_reads_and_finds_what_the_file_audit_finds(
    client: Client,
) -> None:
    floor = Floor(tables=3, rounds=40, seed=11, error_rate=0.3, games=FIRST_TWO)
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


def test_payloads_over_several_lines_or_with_escapes_replay_as_each_decodes_alone(
    client: Client,
) -> None:
    """A payload holding a newline (valid JSON over several lines, kept verbatim by the
    ingest) is one event, one holding two JSON values is refused, and one with an escape
    has its strings checked one by one: an escaped letter is that letter, an escaped
    control character in an id is refused, as when the payload is decoded alone."""
    floor = Floor(tables=2, rounds=12, seed=5, error_rate=0.3)
    events = list(floor.events())
    payloads = [encode_event(event) for event in events]
    tables = sorted({event.table_id for event in events})
    first = next(i for i, e in enumerate(events) if e.table_id == tables[0])
    second, third = [i for i, e in enumerate(events) if e.table_id == tables[1]][:2]
    payloads[first] = json.dumps(json.loads(payloads[first]), indent=2).encode()
    payloads[second] = payloads[second].replace(b'"event_id":"', b'"event_id":"\\u0065', 1)
    payloads[third] = payloads[third].replace(b'"event_id":"', b'"event_id":"\\u0007', 1)
    fourth = [i for i, e in enumerate(events) if e.table_id == tables[1]][5]
    payloads[fourth] += b" " + payloads[fourth]  # two JSON values: refused, the pair
    assert b"\n" in payloads[first]
    positions: dict[str, int] = {}
    rows = []
    for payload, event in zip(payloads, events, strict=True):
        position = positions[event.table_id] = positions.get(event.table_id, 0) + 1
        row = event_row(payload, event, 0, 0, 1_796_000_000_000)
        rows.append((*row[:10], position, "", ""))
    client.insert("raw_events", rows, column_names=EVENT_COLUMNS)

    def alone(payload: bytes) -> object:
        try:
            return decode_event(payload)
        except EventRejected as rejected:
            return rejected.reason

    expected = [
        alone(payload)
        for table in tables
        for payload, event in zip(payloads, events, strict=True)
        if event.table_id == table
    ]
    replayed = [
        item
        for run in StoreSource(client, chunk=50).runs()
        for item in ([run.reason] if isinstance(run, EventRejected) else run)
    ]
    assert replayed == expected
    assert replayed[0] == events[first]  # the payload over several lines: the event it is
    assert replayed[positions[tables[0]]] == msgspec.structs.replace(
        events[second], event_id="e" + events[second].event_id
    )
    assert replayed[positions[tables[0]] + 1] == (
        "holds U+0007, which is not a printable character: an id is 1 to 64 printable characters"
    )
    refused = [item for item in replayed if isinstance(item, str)]
    assert len(refused) == 2
    assert replayed[positions[tables[0]] + 5] == refused[1]
    assert refused[1].startswith("bad JSON: JSON is malformed: trailing characters")


def test_well_formed_payloads_are_decoded_a_chunk_at_a_time(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Payloads each an object alone on one line (what the worker stores) are read as text
    and decoded together, never one by one: every table's events, in its order."""
    floor = Floor(tables=2, rounds=15, seed=7, error_rate=0.3)
    events = list(floor.events())
    positions: dict[str, int] = {}
    rows = []
    for event in events:
        position = positions[event.table_id] = positions.get(event.table_id, 0) + 1
        row = event_row(encode_event(event), event, 0, 0, 1_796_000_000_000)
        rows.append((*row[:10], position, "", ""))
    client.insert("raw_events", rows, column_names=EVENT_COLUMNS)

    def one_by_one(*_: object, **__: object) -> None:
        raise AssertionError("payloads decoded one by one")

    monkeypatch.setattr(store_source, "decode_lines", one_by_one)
    runs = list(StoreSource(client, chunk=60).runs())
    assert all(isinstance(run, list) and 0 < len(run) <= store_source.DECODE_BLOCK for run in runs)
    by_table = sorted(events, key=lambda e: e.table_id)  # each table's in its own order
    assert [event for run in runs if isinstance(run, list) for event in run] == by_table


def test_read_ahead_replays_the_store_as_a_read_in_turn(client: Client, tmp_path: Path) -> None:
    floor = Floor(tables=3, rounds=30, seed=3, error_rate=0.3)
    events = list(floor.events())
    rows = []
    positions: dict[str, int] = {}
    for event in events:
        position = positions[event.table_id] = positions.get(event.table_id, 0) + 1
        row = event_row(encode_event(event), event, 0, 0, 1_796_000_000_000)
        rows.append((*row[:10], position, "", ""))
    client.insert("raw_events", rows, column_names=EVENT_COLUMNS)
    dsn = f"chdb:///{tmp_path / 'store'}"
    in_turn = list(StoreSource(client, chunk=70).runs())
    ahead = list(StoreSource(client, chunk=70, connect=lambda: connect(dsn)).runs())
    assert not any(isinstance(run, EventRejected) for run in in_turn)
    assert sum(len(run) for run in in_turn if not isinstance(run, EventRejected)) == len(events)
    assert ahead == in_turn


class _Client:
    closed = False

    def close(self) -> None:
        self.closed = True


def test_read_ahead_reads_the_next_item_while_the_caller_holds_one() -> None:
    opened = _Client()
    making_second = threading.Event()

    def produce(client: Client) -> Iterator[int]:
        assert client is opened  # type: ignore[comparison-overlap]
        yield 0
        making_second.set()
        yield 1
        yield 2

    items = read_ahead(lambda: opened, produce)  # type: ignore[arg-type,return-value]
    assert next(items) == 0
    assert making_second.wait(10)  # read on the thread while the caller holds item 0
    assert list(items) == [1, 2]
    assert opened.closed
    assert not [t for t in threading.enumerate() if t.name == "replay-read-ahead"]


def test_an_error_reading_ahead_is_raised_where_its_item_would_be() -> None:
    opened = _Client()

    def produce(client: Client) -> Iterator[int]:
        yield 0
        raise RuntimeError("the store went away")

    items = read_ahead(lambda: opened, produce)  # type: ignore[arg-type,return-value]
    assert next(items) == 0
    with pytest.raises(RuntimeError, match="the store went away"):
        next(items)
    assert opened.closed


def test_a_caller_that_stops_early_stops_the_thread_and_its_client() -> None:
    opened = _Client()

    def produce(client: Client) -> Iterator[int]:
        yield from itertools.count()

    items = read_ahead(lambda: opened, produce)  # type: ignore[arg-type,return-value]
    assert [next(items), next(items)] == [0, 1]
    items.close()
    assert opened.closed
    assert not [t for t in threading.enumerate() if t.name == "replay-read-ahead"]
