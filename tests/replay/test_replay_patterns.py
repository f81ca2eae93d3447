"""``tablewatch replay --patterns``: the patterns across rounds computed by a replay as the
live companion computes them, and the diff of a run without them.

The floor: Three Card Poker on three tables, 100 rounds each. At TCP-01 a hole-carder
(tracking card PC-7, seat 3) sees the dealer's first card every round and plays it best;
at TCP-02 a colluding dealer (DL-TCP-02-C) pays seat 2 a losing wager as won in half of his
rounds with it played; at TCP-03 the progressive meter grows 20% faster than its rate. So
the patterns, by hand: ADVANTAGE_PLAY_SUSPECTED of PC-7 at TCP-01 (no other player),
DEALER_FAVOURS_SEAT of TCP-02:DL-TCP-02-C:2 and DEALER_ERROR_RATE_HIGH of DL-TCP-02-C
(on TCP-02's rounds), METER_INCREMENT_WRONG at TCP-03; no hold out of band.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from tablewatch.api.app import create_app
from tablewatch.api.sources import ReaderPool, open_product_reader
from tablewatch.patterns.finding import PatternFinding
from tablewatch.patterns.floor_folds import FloorFolds
from tablewatch.replay.diff import replay_diff
from tablewatch.replay.run import findings_json
from tablewatch.rules.audit import Auditor
from tablewatch.rules.checks.catalog import PATTERN_CHECKS
from tablewatch.rules.config import parse_config
from tablewatch.rules.events import AnyEvent, ts_to_ms
from tablewatch.rules.round_result import RoundResult
from tablewatch.sim.floor import Floor
from tablewatch.sim.games import simulated
from tablewatch.sim.injections import FavouringDealer, MeterDrift
from tablewatch.sim.players import HoleCarder
from tablewatch.store.client import open_store
from tablewatch.store.migrate import migrate
from tablewatch.store.query_limits import QueryLimits
from tablewatch.store.read_only import ReadOnlyReader
from tablewatch.store.rows import FINDING_COLUMNS, finding_row
from tablewatch.store.writer import StoreWriter
from tests.replay.helpers import replay_json, write_config, write_events
from tests.store.helpers import JUDGED_AT, audit_events

EXPECTED_CODES = {
    "ADVANTAGE_PLAY_SUSPECTED",
    "DEALER_FAVOURS_SEAT",
    "DEALER_ERROR_RATE_HIGH",
    "METER_INCREMENT_WRONG",
}


@cache
def _floor() -> tuple[dict[str, Any], tuple[AnyEvent, ...]]:
    """The floor's configuration and events (played once: its players' draws go on)."""
    floor = Floor(
        3,
        300,
        11,
        games=(simulated("three_card_poker"),),
        hole_carders=(HoleCarder(0, 3, 1.0, "PC-7", 11),),
        patterns=(FavouringDealer(1, 2, 0.5), MeterDrift(2, 0.2)),
    )
    return floor.config, tuple(floor.events())


@cache
def _folded() -> tuple[PatternFinding, ...]:
    """The floor's judged rounds, sorted by (end time, table, round), through one
    FloorFolds of its configuration, in memory."""
    config, events = _floor()
    configs = parse_config(config)
    results = [r for r in Auditor(configs).feed_all(events) if isinstance(r, RoundResult)]
    folds = FloorFolds(configs)
    rounds = sorted(
        (folds.round_of(r) for r in results),
        key=lambda r: (ts_to_ms(r.end_ts), r.table_id, r.round_id),
    )
    return tuple(found for rnd in rounds for found in folds.take(rnd))


def _store_floor(dsn: str, with_patterns: bool) -> int:
    """The store as the worker leaves it after the floor (with the companion's pattern
    findings, stored as it stores them); the count of live findings."""
    config, events = _floor()
    audited = audit_events(events, Auditor(parse_config(config)))
    rows = (
        [finding_row(f.as_finding(), JUDGED_AT, origin=f.origin) for f in _folded()]
        if with_patterns
        else []
    )
    with open_store(dsn) as client:
        migrate(client)
        StoreWriter(client).insert_batch(audited.batch())
        if rows:
            StoreWriter(client).insert(findings=rows)
        return int(client.query("SELECT count() FROM findings_v").result_rows[0][0])


def _inputs(tmp_path: Path) -> tuple[Path, Path]:
    config, events = _floor()
    files = write_events(tmp_path / "events.jsonl", events)
    return files, write_config(tmp_path / "tables.yaml", config)


def _lines(dsn: str, run_id: str) -> list[bytes]:
    with open_store(dsn) as client:
        return list(findings_json(client, run_id))


def _pattern_dicts(lines: list[bytes]) -> list[dict[str, Any]]:
    return [d for d in map(json.loads, lines) if d["check"] in PATTERN_CHECKS]


def test_a_replay_with_patterns_records_the_folds_findings_from_files_and_store_alike(
    tmp_path: Path,
) -> None:
    dsn = f"chdb:///{tmp_path / 'store'}"
    live = _store_floor(dsn, with_patterns=False)  # a live store without the companion
    files, tables = _inputs(tmp_path)
    runs: dict[str, dict[str, Any]] = {}
    sources = {"files": ["--source", "files", str(files)], "store": ["--source", "store"]}
    for name, source in sources.items():
        args = [*source, "--config", str(tables), "--dsn", dsn, "--patterns"]
        code, document, stderr = replay_json(*args)
        run, diff = document["run"], document["diff"]
        assert run["status"] == "complete" and run["patterns"] is True, stderr
        # the per-round findings are the live ones; the pattern findings are new
        assert code == 1 and diff["patterns"] is True
        assert (diff["gone"], diff["changed"]) == (0, 0)
        assert {e["check"] for e in diff["entries"]} == EXPECTED_CODES
        assert {e["kind"] for e in diff["entries"]} == {"new"}
        assert run["findings"] == live + diff["new"]
        runs[name] = run
    from_files = _lines(dsn, runs["files"]["run_id"])
    assert from_files == _lines(dsn, runs["store"]["run_id"])  # byte for byte

    found = _pattern_dicts(from_files)
    assert {d["check"] for d in found} == EXPECTED_CODES
    advantage = [d for d in found if d["check"] == "ADVANTAGE_PLAY_SUSPECTED"]
    assert advantage and all(
        d["table_id"] == "TCP-01" and d["message"].startswith("PC-7: ") for d in advantage
    )
    (favours,) = [d for d in found if d["check"] == "DEALER_FAVOURS_SEAT"]
    assert (favours["table_id"], favours["seat"]) == ("TCP-02", 2)
    assert favours["message"].startswith("dealer DL-TCP-02-C: ")
    assert "went to TCP-02:DL-TCP-02-C:2," in favours["message"]
    (rate,) = [d for d in found if d["check"] == "DEALER_ERROR_RATE_HIGH"]
    assert rate["table_id"] == "TCP-02" and rate["message"].startswith("dealer DL-TCP-02-C: ")
    assert [d["table_id"] for d in found if d["check"] == "METER_INCREMENT_WRONG"] == ["TCP-03"]
    assert all(d["start_event_id"] == "" and d["event_ids"] == [] for d in found)

    # what the folds give on the same rounds in that order, as the companion stores it
    names = [c for c in FINDING_COLUMNS if c != "judged_at"]
    expected: list[dict[str, Any]] = [
        dict(zip(names, row[:-1], strict=True))  # judged_at, the last column, left out
        for row in (finding_row(f.as_finding(), JUDGED_AT, origin=f.origin) for f in _folded())
    ]
    order = ("table_id", "round_id", "start_event_id", "finding_id")
    assert found == sorted(expected, key=lambda d: tuple(d[k] for k in order))
    assert len(found) == len(_folded()) == runs["files"]["findings"] - live


def _reader_diff(dsn: str, run_id: str) -> tuple[bool, int, int, int]:
    with open_store(dsn) as client:
        found = replay_diff(ReadOnlyReader(client, QueryLimits(), embedded=True), run_id)
    return found.patterns, found.new, found.gone, found.changed


def test_a_run_without_patterns_leaves_them_out_and_a_run_with_them_compares_them(
    tmp_path: Path,
) -> None:
    dsn = f"chdb:///{tmp_path / 'store'}"
    live = _store_floor(dsn, with_patterns=True)  # the companion's findings stored too
    files, tables = _inputs(tmp_path)
    args = ["--source", "files", str(files), "--config", str(tables), "--dsn", dsn]
    # without --patterns: the live pattern findings are not "gone", the diff is empty
    code, without, stderr = replay_json(*args)
    assert code == 0, (without["diff"], stderr)
    assert without["run"]["patterns"] is False and without["diff"]["patterns"] is False
    assert without["run"]["findings"] == live - len(_folded())
    # with --patterns: compared as any finding, the same ids as the companion's: empty too
    code, with_them, stderr = replay_json(*args, "--patterns")
    assert code == 0, (with_them["diff"], stderr)
    assert with_them["run"]["patterns"] is True and with_them["diff"]["patterns"] is True
    assert with_them["run"]["findings"] == live
    # the pattern findings taken out of the live store: the run with them has them new,
    # the run without them still diffs empty
    with open_store(dsn) as client:
        codes = ", ".join(f"'{c}'" for c in PATTERN_CHECKS)
        client.command(
            f"ALTER TABLE findings DELETE WHERE check IN ({codes}) SETTINGS mutations_sync = 2"
        )
    assert _reader_diff(dsn, with_them["run"]["run_id"]) == (True, len(_folded()), 0, 0)
    assert _reader_diff(dsn, without["run"]["run_id"]) == (False, 0, 0, 0)

    # the auditor API shows whether each run computed the patterns
    pool = ReaderPool(lambda: open_product_reader(dsn), size=1)
    try:
        api = TestClient(create_app(pool, described_as=dsn))
        items = api.get("/api/v1/replays").json()["items"]
        assert {i["run_id"]: i["patterns"] for i in items} == {
            without["run"]["run_id"]: False,
            with_them["run"]["run_id"]: True,
        }
        for document, patterns, new in ((without, False, 0), (with_them, True, len(_folded()))):
            diff = api.get(f"/api/v1/replays/{document['run']['run_id']}/diff").json()
            assert (diff["patterns"], diff["new"], diff["gone"]) == (patterns, new, 0)
    finally:
        pool.close()
