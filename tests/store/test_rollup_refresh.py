"""The rollups kept by a refresh step off the insert path (migration 0019,
tablewatch/store/rollups.py): the same rows as the materialized views gave, no view left
on an insert, the watermark's window and its overlap, the migration repeated halfway."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from clickhouse_connect.driver.client import Client

from tablewatch.cli import main
from tablewatch.sim.floor import Floor
from tablewatch.store.client import connect
from tablewatch.store.hold_lines import sync_hold_lines
from tablewatch.store.migrate import available, migrate, should_run
from tablewatch.store.rollups import ROLLUPS, RollupRefresher, refresh_rollups, watermarks
from tablewatch.store.rows import FINDING_COLUMNS
from tablewatch.store.writer import StoreWriter
from tests.store.conftest import dsn_of
from tests.store.helpers import JUDGED_AT, Audited, audit_floor
from tests.store.test_partitions_migration import migrate_before

REFRESHED = "0019"

# each rollup's content as a reader sees it: its rows merged, one per key
CONTENT = {
    "findings_by_minute": "SELECT minute, table_id, check, severity, uniqExactMerge(ids), "
    "max(last_ts) FROM findings_by_minute GROUP BY minute, table_id, check, severity "
    "ORDER BY ALL",
    "rounds_by_hour": "SELECT hour, table_id, any(game), uniqExactMerge(rounds), max(last_end) "
    "FROM rounds_by_hour GROUP BY hour, table_id ORDER BY ALL",
    "table_activity": "SELECT hour, table_id, max(last_event_ts), max(last_stored), "
    "max(last_seq) FROM table_activity GROUP BY hour, table_id ORDER BY ALL",
    "hold_by_round": "SELECT table_id, game, wager, round_id, start_event_id, start_ts, hands, "
    "units, unit_squares, house_win, judged_at FROM hold_by_round FINAL ORDER BY ALL",
    "procedure_events": "SELECT * FROM procedure_events FINAL ORDER BY ALL",
    "round_judgements": "SELECT table_id, round_id, start_event_id, max(judged_at) "
    "FROM round_judgements GROUP BY table_id, round_id, start_event_id ORDER BY ALL",
    # finding_rows: a sum under the views, a maximum of counts now; read only as > 0
    "round_index": "SELECT table_id, round_id, min(first_ts), max(last_ts), "
    "toString(maxMap(judged)), max(finding_rows) > 0, max(kept) FROM round_index "
    "GROUP BY table_id, round_id ORDER BY ALL",
}


@pytest.fixture(scope="module")
def audited() -> Audited:
    # every game (its hold wagers, progressive settles, shuffles, meters), findings
    return audit_floor(Floor(tables=8, rounds=160, seed=5, error_rate=0.25, jackpot_rate=0.2))


def write_floor(client: Client, audited: Audited, between: Any = None) -> None:
    """The floor written, written again (a retried batch), then judged again a minute
    later; ``between()`` runs after each write."""
    writer = StoreWriter(client)
    for judged_at in (JUDGED_AT, JUDGED_AT, JUDGED_AT + 60_000):
        writer.insert_batch(audited.batch(judged_at_ms=judged_at))
        if between is not None:
            between()


def contents(client: Client) -> dict[str, list[tuple[Any, ...]]]:
    return {
        name: [tuple(row) for row in client.query(sql).result_rows] for name, sql in CONTENT.items()
    }


def one(client: Client, sql: str) -> int:
    return int(client.query(sql).result_rows[0][0])


def refreshed_after_each_write(path: Path, audited: Audited) -> dict[str, list[tuple[Any, ...]]]:
    """The rollups of a store at ``path`` refreshed after each write of the floor, with no
    overlap (each refresh reads only its window)."""
    client = connect(dsn_of(path))
    try:
        migrate(client)
        write_floor(client, audited, lambda: refresh_rollups(client, overlap_ms=0))
        return contents(client)
    finally:
        client.close()


def test_refreshed_rollups_hold_what_the_views_gave(tmp_path: Path, audited: Audited) -> None:
    viewed = connect(dsn_of(tmp_path / "views"))
    try:
        migrate_before(viewed, REFRESHED)
        sync_hold_lines(viewed)
        write_floor(viewed, audited)
        by_views = contents(viewed)
    finally:
        viewed.close()
    by_refresh = refreshed_after_each_write(tmp_path / "refreshed", audited)
    assert set(CONTENT) == set(ROLLUPS)
    for name in ROLLUPS:
        assert by_views[name], f"{name}: the floor filled nothing to compare"
        assert by_refresh[name] == by_views[name], name


def test_batches_written_between_a_refreshs_steps_are_rolled_up_all_the_same(
    tmp_path: Path, audited: Audited
) -> None:
    """The worker runs a refresh one rollup at a time on its store thread, its batches'
    inserts free to run between two steps: each write here lands inside a refresh, after
    some rollups have read their window and before the others; the next refresh reads the
    rest. The rollups end equal to those of refreshes run between the writes."""
    expected = refreshed_after_each_write(tmp_path / "plain", audited)
    stepped = connect(dsn_of(tmp_path / "stepped"))
    try:
        migrate(stepped)
        refresher = RollupRefresher.sole_writer(stepped)
        writer = StoreWriter(stepped)
        steps_run = []
        for judged_at in (JUDGED_AT, JUDGED_AT, JUDGED_AT + 60_000):
            steps = list(enumerate(refresher.steps()))
            for n, step in steps:
                assert step()
                if n == 3:  # the start and two rollups done, five to come
                    writer.insert_batch(audited.batch(judged_at_ms=judged_at))
            steps_run.append(len(steps))
        assert steps_run == [len(ROLLUPS) + 2] * 3  # the start, each rollup, the watermarks
        refresher.refresh()
        assert (refresher.refreshes, refresher.failures) == (4, 0)
        assert contents(stepped) == expected
    finally:
        stepped.close()


def test_an_insert_writes_the_facts_only(store: Client, audited: Audited) -> None:
    views = store.query(
        "SELECT name FROM system.tables WHERE database = currentDatabase() "
        "AND engine = 'MaterializedView'"
    ).result_rows
    assert views == []
    StoreWriter(store).insert_batch(audited.batch())
    assert one(store, "SELECT count() FROM findings_by_minute") == 0
    assert one(store, "SELECT count() FROM round_index") == 0
    refresh_rollups(store)
    assert one(store, "SELECT count() FROM findings_by_minute") > 0
    assert one(store, "SELECT count() FROM round_index") > 0


def _finding(finding_id: str, stored_at_ms: int) -> list[object]:
    row: dict[str, object] = {
        "finding_id": finding_id, "table_id": "T1", "round_id": "", "start_event_id": "",
        "check": "late_check", "severity": "high", "regulation": "", "seat": None, "bet": "",
        "expected": None, "actual": None, "message": "m", "event_ids": [],
        "ts": JUDGED_AT, "judged_at": JUDGED_AT,
    }  # fmt: skip
    return [*(row[c] for c in FINDING_COLUMNS), stored_at_ms]


def test_a_refresh_reads_since_its_watermark_less_the_overlap(store: Client) -> None:
    store.command("TRUNCATE TABLE rollup_watermarks")  # the migration's marks set aside
    refresh_rollups(store, overlap_ms=10_000)
    mark = watermarks(store)["findings_by_minute"]
    columns = [*FINDING_COLUMNS, "stored_at"]
    # an insert stamped before the refresh read up to, made visible only after it ran
    # (another worker's insert under way), and one stamped before the overlap
    store.insert("findings", [_finding("late", mark - 5_000)], column_names=columns)
    store.insert("findings", [_finding("old", mark - 60_000)], column_names=columns)
    refresh_rollups(store, overlap_ms=10_000)
    rows = store.query(
        "SELECT uniqExactMerge(ids) FROM findings_by_minute WHERE check = 'late_check'"
    ).result_rows
    assert rows == [(1,)]  # the late insert read; the old one was before the window
    refresh_rollups(store, overlap_ms=10_000)  # read again within the overlap: counted once
    assert store.query(
        "SELECT uniqExactMerge(ids) FROM findings_by_minute WHERE check = 'late_check'"
    ).result_rows == [(1,)]


def test_the_sole_writers_refresh_reads_from_its_previous_one_and_past_a_clock_stepped_back(
    store: Client,
) -> None:
    store.command("TRUNCATE TABLE rollup_watermarks")
    refresher = RollupRefresher.sole_writer(store, 2.0)
    refresher.refresh()
    mark = watermarks(store)["findings_by_minute"]
    covered = one(
        store,
        "SELECT toUnixTimestamp64Milli(max(covered)) FROM rollup_watermarks "
        "WHERE name = 'findings_by_minute'",
    )
    assert covered == mark  # no overlap: the next refresh reads from where this one read to
    columns = [*FINDING_COLUMNS, "stored_at"]
    # written after the clock stepped back 5 s, within the 6 s since the previous refresh;
    # and one stamped before that refresh's time less those 6 s: another writer's, none here
    store.insert("findings", [_finding("late", mark - 5_000)], column_names=columns)
    store.insert("findings", [_finding("old", mark - 60_000)], column_names=columns)
    refresher._read_at -= 6.0  # the previous refresh, 6 s ago
    refresher.refresh()
    counted = store.query(
        "SELECT uniqExactMerge(ids) FROM findings_by_minute WHERE check = 'late_check'"
    ).result_rows
    assert counted == [(1,)]
    # one of the two: the late one, since reading back 2 minutes counts the old one too
    refresher._read_at -= 120.0
    refresher.refresh()
    assert store.query(
        "SELECT uniqExactMerge(ids) FROM findings_by_minute WHERE check = 'late_check'"
    ).result_rows == [(2,)]


def test_0019_repeated_after_stopping_halfway_keeps_old_rows_old(
    bare_store: Client, audited: Audited
) -> None:
    migrate_before(bare_store, REFRESHED)
    StoreWriter(bare_store).insert_batch(audited.batch())
    (migration,) = [m for m in available() if m.version == REFRESHED]
    statements = migration.statements()
    stop = next(i for i, s in enumerate(statements) if "DEFAULT now64(3)" in s) + 1
    for statement in statements[:stop]:  # stopped after the first default changed
        if should_run(bare_store, statement):
            bare_store.command(statement)
    migrate(bare_store)  # the whole file again, then recorded
    for table in ("raw_events", "rounds", "settlements", "findings"):
        newest = one(bare_store, f"SELECT toUnixTimestamp64Milli(max(stored_at)) FROM {table}")
        assert newest == 0, table  # stored before 0019: the constant, not "now"
    assert sorted(watermarks(bare_store)) == sorted(ROLLUPS)
    before = contents(bare_store)
    refresh_rollups(bare_store)  # nothing stored since: the views' rows stay as they were
    assert contents(bare_store) == before


def test_the_workers_refresher_counts_its_refreshes_failures_and_lag(store: Client) -> None:
    refresher = RollupRefresher(store, 2.0, clock=lambda: 0.0)
    assert refresher.metrics()["lag_s"] is None  # never refreshed
    refresher.refresh()
    mark = watermarks(store)["round_index"]
    refresher.clock = lambda: mark / 1000 + 3.5
    figures = refresher.metrics()
    assert (figures["refreshes"], figures["failures"], figures["lag_s"]) == (1, 0, 3.5)
    store.command("RENAME TABLE round_index TO round_index_aside")  # a refresh fails
    try:
        refresher.refresh()  # logged and counted, not raised
    finally:
        store.command("RENAME TABLE round_index_aside TO round_index")
    assert (refresher.refreshes, refresher.failures) == (1, 1)
    assert watermarks(store)["round_index"] == mark  # read again by the next refresh
    refresher.refresh()
    assert refresher.refreshes == 2


def test_db_refresh_rollups_rolls_up_what_was_written(
    store: Client, store_dsn: str, audited: Audited
) -> None:
    StoreWriter(store).insert_batch(audited.batch())
    assert one(store, "SELECT count() FROM rounds_by_hour") == 0
    result = CliRunner().invoke(main, ["db", "refresh-rollups", "--dsn", store_dsn])
    assert result.exit_code == 0, result.output
    assert "7 rollup(s) refreshed up to " in result.output
    rounds = {(r.table_id, r.round_id, r.start_event_id) for r in audited.rounds}
    assert one(store, "SELECT uniqExactMerge(rounds) FROM rounds_by_hour") == len(rounds)
