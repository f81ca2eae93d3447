"""The table directory: the worker writes a row per configured table at start, readers get
each table's game, pit and cameras from ``tables_v`` (the newest row of a table)."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path

from clickhouse_connect.driver.client import Client

from tablewatch.config_file import load_config, table_entries
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
    rows = directory_rows(load_config(path), {"LIR-07": '{"x":1}'}, 1_700_000_000_123)
    x_sha256 = "5041bf1f713df204784353e82f6a4a535931cb64f1f4b4a5aeaffcb720918b22"
    assert hashlib.sha256(b'{"x":1}').hexdigest() == x_sha256
    assert rows == [
        ("FCP-02", "four_card_poker", "", [], "", "", 1_700_000_000_123),
        (
            "LIR-07",
            "let_it_ride",
            "Pit 3",
            ["CAM-071", "CAM-072"],
            '{"x":1}',
            x_sha256,
            1_700_000_000_123,
        ),
    ]


def test_a_table_entry_ignores_how_the_yaml_is_written_and_follows_its_values(
    tmp_path: Path,
) -> None:
    first = table_entries(_write(tmp_path, TABLES, "a.yaml"))
    again = table_entries(_write(tmp_path, REWRITTEN, "b.yaml"))
    changed = table_entries(_write(tmp_path, TABLES.replace("Pit 3", "Pit 4"), "c.yaml"))
    assert first["FCP-02"] == (
        '{"counting_shuffler":true,"game":"four_card_poker",'
        '"paytables":{"aces_up":"C","envy":"A","progressive":"A"},"progressive_reset":500000}'
    )
    assert json.loads(first["LIR-07"])["cameras"] == ["CAM-071", "CAM-072"]
    assert first == again
    assert changed["FCP-02"] == first["FCP-02"]
    assert changed["LIR-07"] != first["LIR-07"]


def test_the_newest_row_of_a_table_is_the_one_read(store: Client, tmp_path: Path) -> None:
    path = _write(tmp_path, TABLES)
    configs = load_config(path)
    write_directory(store, directory_rows(configs, table_entries(path), 1_000))
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
            "SELECT table_id, game, pit, cameras, config, config_sha256 FROM tables_v "
            "ORDER BY table_id"
        ).result_rows
    finally:
        client.close()
    entries = table_entries(path)
    sha = {t: hashlib.sha256(e.encode()).hexdigest() for t, e in entries.items()}
    assert [tuple(r) for r in rows] == [
        ("FCP-02", "four_card_poker", "", [], entries["FCP-02"], sha["FCP-02"]),
        (
            "LIR-07",
            "let_it_ride",
            "Pit 3",
            ["CAM-071", "CAM-072"],
            entries["LIR-07"],
            sha["LIR-07"],
        ),
    ]
