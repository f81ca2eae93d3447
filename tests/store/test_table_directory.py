"""The table directory: the worker writes a row per configured table at start, readers get
each table's game, pit and cameras from ``tables_v`` (the newest row of a table)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from clickhouse_connect.driver.client import Client

from tablewatch.config_file import entry_digests, load_config
from tablewatch.processors.settings import WorkerSettings
from tablewatch.store.client import connect
from tablewatch.store.read_only import READABLE
from tablewatch.store.table_directory import directory_rows, write_directory
from tests.store.conftest import dsn_of

TABLES = """\
tables:
  LIR-07:
    game: let_it_ride
    paytables: {main: A, five_card_bonus: B, three_card_bonus: D, progressive: A}
    counting_shuffler: false
    payout_limit: 5000000
    progressive_reset: 100000
    pit: "Pit 3"
    cameras: [CAM-071, CAM-072]
  FCP-02:
    game: four_card_poker
    paytables: {aces_up: C, progressive: A, envy: A}
    counting_shuffler: true
    progressive_reset: 500000
"""
# the same two tables, keys in another order, other quoting, a comment
REWRITTEN = """\
tables:
  FCP-02:
    progressive_reset: 500000   # $5,000
    counting_shuffler: true
    paytables: {envy: A, progressive: A, aces_up: C}
    game: four_card_poker
  LIR-07:
    cameras: ["CAM-071", "CAM-072"]
    pit: Pit 3
    progressive_reset: 100000
    payout_limit: 5000000
    counting_shuffler: false
    paytables: {main: A, five_card_bonus: B, three_card_bonus: D, progressive: A}
    game: let_it_ride
"""


def _write(tmp_path: Path, text: str, name: str = "tables.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_directory_and_its_view_are_readable() -> None:
    assert {"table_directory", "tables_v"} <= READABLE


def test_rows_name_game_pit_and_cameras_and_an_empty_pit_when_none(tmp_path: Path) -> None:
    path = _write(tmp_path, TABLES)
    rows = directory_rows(load_config(path), {"LIR-07": "a" * 64}, 1_700_000_000_123)
    assert rows == [
        ("FCP-02", "four_card_poker", "", [], "", 1_700_000_000_123),
        ("LIR-07", "let_it_ride", "Pit 3", ["CAM-071", "CAM-072"], "a" * 64, 1_700_000_000_123),
    ]


def test_a_table_digest_ignores_how_the_yaml_is_written_and_follows_its_values(
    tmp_path: Path,
) -> None:
    first = entry_digests(_write(tmp_path, TABLES, "a.yaml"))
    again = entry_digests(_write(tmp_path, REWRITTEN, "b.yaml"))
    changed = entry_digests(_write(tmp_path, TABLES.replace("Pit 3", "Pit 4"), "c.yaml"))
    assert set(first) == {"LIR-07", "FCP-02"}
    assert all(len(d) == 64 and int(d, 16) >= 0 for d in first.values())
    assert first == again
    assert changed["FCP-02"] == first["FCP-02"]
    assert changed["LIR-07"] != first["LIR-07"]


def test_the_newest_row_of_a_table_is_the_one_read(store: Client, tmp_path: Path) -> None:
    path = _write(tmp_path, TABLES)
    configs = load_config(path)
    write_directory(store, directory_rows(configs, entry_digests(path), 1_000))
    moved = load_config(_write(tmp_path, TABLES.replace("Pit 3", "Pit 9"), "moved.yaml"))
    assert write_directory(store, directory_rows(moved, {}, 2_000)) == 2
    write_directory(store, directory_rows(configs, {}, 1_500))  # older: loses
    rows = store.query(
        "SELECT table_id, game, pit, cameras, config_sha256, toUnixTimestamp64Milli(updated_at) "
        "FROM tables_v ORDER BY table_id"
    ).result_rows
    assert [tuple(r) for r in rows] == [
        ("FCP-02", "four_card_poker", "", [], "", 2_000),
        ("LIR-07", "let_it_ride", "Pit 9", ["CAM-071", "CAM-072"], "", 2_000),
    ]


def test_the_worker_writes_its_tables_when_it_starts(tmp_path: Path) -> None:
    from tablewatch.processors.app import Worker

    path = _write(tmp_path, TABLES)
    dsn = dsn_of(tmp_path / "store")

    async def start() -> None:  # Faust's app wants a running loop; nothing is consumed
        worker = Worker(WorkerSettings(path, dsn=dsn, data_dir=tmp_path / "worker"))
        worker.queries.close()
        worker.store_thread.shutdown()
        worker.store.close()

    asyncio.run(start())
    client = connect(dsn)
    try:
        rows = client.query(
            "SELECT table_id, game, pit, cameras, config_sha256 FROM tables_v ORDER BY table_id"
        ).result_rows
    finally:
        client.close()
    digests = entry_digests(path)
    assert [tuple(r) for r in rows] == [
        ("FCP-02", "four_card_poker", "", [], digests["FCP-02"]),
        ("LIR-07", "let_it_ride", "Pit 3", ["CAM-071", "CAM-072"], digests["LIR-07"]),
    ]
