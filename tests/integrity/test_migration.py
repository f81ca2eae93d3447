"""The chain's migration (0006) on a store filled before it, and the retention TTLs it sets.

58 Pa. Code § 465a.6(c): records are kept at least 5 years. The TTLs may
remove a row only when both its event's (or round's) time and the time it
was stored are over 5 years and 7 days old; these tests age rows with the
engine's own calendar arithmetic and make the engine apply the TTLs now
(``OPTIMIZE ... FINAL``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from clickhouse_connect.driver.client import Client

from tablewatch.cli import main
from tablewatch.integrity.checkpoints import CHECKPOINTS
from tablewatch.processors.processor import LiveProcessor
from tablewatch.rules.config import parse_config
from tablewatch.store.client import connect
from tablewatch.store.migrate import Migration, applied, available, migrate
from tablewatch.store.rows import EVENT_COLUMNS, SETTLEMENT_COLUMNS
from tablewatch.store.writer import StoreWriter
from tests.integrity.helpers import floor_log, small_floor
from tests.store.conftest import dsn_of

CHAIN = "0006"
OLD_EVENT_COLUMNS = EVENT_COLUMNS[:10]  # raw_events before the chain


def apply(client: Client, migrations: list[Migration]) -> None:
    """What ``migrate`` does for these migrations."""
    applied(client)  # creates schema_migrations
    for migration in migrations:
        for statement in migration.statements():
            client.command(statement)
        client.insert(
            "schema_migrations",
            [[migration.version, migration.name, int(time.time() * 1000)]],
            column_names=["version", "name", "applied_at"],
        )


def before_chain() -> list[Migration]:
    return [m for m in available() if m.version < CHAIN]


@pytest.fixture
def old_store(tmp_path: Path) -> Iterator[Client]:
    """A store at the schema before the chain."""
    client = connect(dsn_of(tmp_path / "store"))
    try:
        apply(client, before_chain())
        yield client
    finally:
        client.close()


def test_the_migration_keeps_every_row_and_marks_it_before_the_chain(
    old_store: Client, tmp_path: Path
) -> None:
    floor = small_floor(tables=2, rounds=40, seed=12)
    configs = parse_config(floor.config)
    log = floor_log(floor)
    snapshots: dict[str, bytes] = {}
    processor: LiveProcessor[None] = LiveProcessor(configs, snapshots.get)
    half = len(log) // 2
    for partition, offset, value in log[:half]:  # what a worker wrote before the chain
        processor.handle(value, partition, offset, None)
    batch = processor.drain()
    snapshots.update(batch.snapshots)
    old_store.insert(
        "raw_events", [row[:10] for row in batch.events], column_names=list(OLD_EVENT_COLUMNS)
    )
    StoreWriter(old_store).insert(rounds=batch.rounds, findings=batch.findings)
    old_store.insert(  # settle lines as the writer wrote them then: without their game
        "settlements",
        [list(row[:-1]) for row in batch.settlements],
        column_names=list(SETTLEMENT_COLUMNS[:-1]),
    )
    tables = ("raw_events", "rounds", "settlements", "findings")
    before = {
        t: old_store.query(f"SELECT * FROM {t} FINAL ORDER BY ALL").result_rows for t in tables
    }
    assert all(before.values())

    labels = migrate(old_store)
    assert any(label.startswith(CHAIN) for label in labels)
    old_columns = ", ".join(OLD_EVENT_COLUMNS)
    after_events = old_store.query(
        f"SELECT {old_columns} FROM raw_events FINAL ORDER BY ALL"
    ).result_rows
    assert after_events == before["raw_events"]  # every row, every value
    for table in tables[1:]:
        # (stored_at, the store's time of the insert, comes with migration 0019)
        columns = (
            ", ".join(SETTLEMENT_COLUMNS[:-1]) if table == "settlements" else "* EXCEPT stored_at"
        )
        assert (
            old_store.query(f"SELECT {columns} FROM {table} FINAL ORDER BY ALL").result_rows
            == (before[table])
        )
    marks = old_store.query(
        "SELECT DISTINCT chain_pos, chain_prev, chain_hash FROM raw_events_v"
    ).result_rows
    assert marks == [(0, "", "")]  # before the chain
    result = CliRunner().invoke(main, ["verify", "--dsn", dsn_of(tmp_path / "store")])
    assert result.exit_code == 3, result.output  # nothing broken; no key, nothing proven
    lines = result.output.splitlines()[:-2]  # the tables' lines
    assert all(": consistent, UNVERIFIED: 0 events, 0 checkpoints verified, " in line
               for line in lines)  # fmt: skip
    outside = sum(int(line.split(", ")[-1].split()[0].replace(",", "")) for line in lines)
    assert outside == len(before["raw_events"])

    # the worker goes on, restored from the saved states of before the chain
    for table_id, data in snapshots.items():
        snapshots[table_id] = data.replace(b',"chain":', b',"no_chain":')
    processor = LiveProcessor(configs, snapshots.get)
    for partition, offset, value in log:
        processor.handle(value, partition, offset, None)
    batch = processor.drain()
    StoreWriter(old_store).insert(events=batch.events)
    counts = old_store.query(
        "SELECT countIf(chain_pos = 0), countIf(chain_pos > 0), count() FROM raw_events_v"
    ).result_rows[0]
    assert counts[2] == len(log) and counts[0] and counts[1]
    result = CliRunner().invoke(main, ["verify", "--dsn", dsn_of(tmp_path / "store")])
    assert result.exit_code == 3, result.output
    assert "outside the chain" in result.output and "consistent, UNVERIFIED" in result.output


# ---- retention ------------------------------------------------------------------------

# each table's event (or round) time columns and the time it was stored
TIMES = {
    "raw_events": (("ts",), "ingested_at", "event_id"),
    "rounds": (("start_ts", "end_ts"), "judged_at", "round_id"),
    "settlements": (("start_ts",), "judged_at", "round_id"),
    "findings": (("ts",), "judged_at", "finding_id"),
    CHECKPOINTS: (("event_ts",), "signed_at", "signature"),
}
AGES = {  # label: (the event's time, the time it was stored), as ClickHouse expressions
    "4y11m": ("now64(3) - INTERVAL 4 YEAR - INTERVAL 11 MONTH",) * 2,
    "5y-1d": ("now64(3) - INTERVAL 5 YEAR + INTERVAL 1 DAY",) * 2,
    "5y+3d": ("now64(3) - INTERVAL 5 YEAR - INTERVAL 3 DAY",) * 2,  # within the 7-day margin
    "5y+10d": ("now64(3) - INTERVAL 5 YEAR - INTERVAL 10 DAY",) * 2,
    "20y": ("now64(3) - INTERVAL 20 YEAR",) * 2,
    "clock-20y-back": ("now64(3) - INTERVAL 20 YEAR", "now64(3)"),  # a controller's clock
    "year-2150": ("toDateTime64('2150-06-01 00:00:00', 3, 'UTC')", "now64(3)"),
}
GONE = {"5y+10d", "20y"}


def ms(client: Client, expression: str) -> int:
    return int(client.query(f"SELECT toUnixTimestamp64Milli({expression})").result_rows[0][0])


def default_of(type_text: str) -> Any:
    if type_text.startswith("Nullable(") or type_text.startswith("LowCardinality(Nullable("):
        return None
    if type_text.startswith("Array("):
        return []
    if "String" in type_text:
        return "x"
    if type_text == "Bool":
        return False
    return 0


def insert_aged(client: Client, table: str) -> None:
    described = client.query(f"DESCRIBE TABLE {table}").result_rows
    columns = [str(r[0]) for r in described]
    event_times, stored_time, label_column = TIMES[table]
    rows: list[list[Any]] = []
    for label, (event_expr, stored_expr) in AGES.items():
        values = {str(r[0]): default_of(str(r[1])) for r in described}
        for column in event_times:
            values[column] = ms(client, event_expr)
        values[stored_time] = ms(client, stored_expr)
        values[label_column] = label
        if table == CHECKPOINTS:
            values["chain_pos"] = len(rows) + 1
        rows.append([values[c] for c in columns])
    if table == "findings":  # a finding with no ts: its judgement's time
        values = {str(r[0]): default_of(str(r[1])) for r in described}
        values.update({"ts": None, "judged_at": ms(client, AGES["5y+10d"][0])})
        values["finding_id"] = "no-ts-5y+10d"
        rows.append([values[c] for c in columns])
    client.insert(table, rows, column_names=columns)


def kept(client: Client, table: str) -> set[str]:
    label = TIMES[table][2]
    client.command(f"OPTIMIZE TABLE {table} FINAL")
    return {str(r[0]) for r in client.query(f"SELECT {label} FROM {table}").result_rows}


def test_the_migration_sets_ttls_that_remove_only_what_is_over_five_years_old(
    old_store: Client,
) -> None:
    tables = [t for t in TIMES if t != CHECKPOINTS]  # chain_checkpoints: made with its TTL
    for table in tables:
        insert_aged(old_store, table)  # rows stored before the TTLs existed
    migrate(old_store)
    want = set(AGES) - GONE
    for table in tables:
        old_store.command(f"ALTER TABLE {table} MATERIALIZE TTL", settings={"mutations_sync": 2})
        labels = kept(old_store, table)
        assert want <= labels, (table, want - labels)
        assert not labels & GONE, (table, labels & GONE)


def test_rows_written_under_the_ttls(tmp_path: Path) -> None:
    """Under the TTLs, a row already past them is not even kept by its insert; every
    other one is."""
    client = connect(dsn_of(tmp_path / "store"))
    try:
        migrate(client)
        for table in TIMES:
            insert_aged(client, table)
            assert kept(client, table) == set(AGES) - GONE, table
    finally:
        client.close()


# ---- 0016: the checkpoints numbered ---------------------------------------------------


def test_checkpoints_signed_before_they_were_numbered_are_kept_and_still_verify(
    tmp_path: Path,
) -> None:
    """A store at 0015 whose checkpoints were signed over the v1 layout: migrating keeps every
    row as it was (number 0, no link), verify still checks their signatures with the key,
    and the worker's numbered checkpoints that follow start their chain at 1."""
    from dataclasses import replace

    from tablewatch.integrity.checkpoints import (
        CHECKPOINT_COLUMNS,
        Checkpoint,
        CheckpointPolicy,
        signed_bytes,
    )
    from tablewatch.integrity.keys import new_signer, public_line

    signer = new_signer()
    (tmp_path / "trusted.pub").write_text(public_line(signer))
    floor = small_floor(tables=2, rounds=30, seed=5)
    log = floor_log(floor)
    configs = parse_config(floor.config)
    snapshots: dict[str, bytes] = {}
    client = connect(dsn_of(tmp_path / "store"))
    try:
        apply(client, [m for m in available() if m.version < "0016"])
        old_columns = list(CHECKPOINT_COLUMNS[:10])  # chain_checkpoints at 0015
        every_100 = CheckpointPolicy(100, 5.0)
        processor: LiveProcessor[None] = LiveProcessor(
            configs, snapshots.get, signer=signer, checkpoints=every_100
        )
        half = len(log) // 2
        for partition, offset, value in log[:half]:
            processor.handle(value, partition, offset, None)
        batch = processor.drain()
        for table_id, data in batch.snapshots.items():  # as the code before 0016 saved them
            saved = json.loads(data)
            for name in ("signed_at_ms", "checkpoint_no", "checkpoint_link", "partition"):
                del saved["chain"][name]
            snapshots[table_id] = json.dumps(saved).encode()
        v1 = []
        for row in batch.checkpoints:
            unsigned = replace(Checkpoint(*row), number=0, prev_link="", signature="")  # type: ignore[arg-type]
            v1.append(replace(unsigned, signature=signer.sign(signed_bytes(unsigned)).hex()))
        assert v1
        StoreWriter(client).insert(events=batch.events)
        client.insert(CHECKPOINTS, [c.row()[:10] for c in v1], column_names=old_columns)
        stored = f"SELECT {', '.join(old_columns)} FROM {CHECKPOINTS} FINAL ORDER BY ALL"
        before = client.query(stored).result_rows

        migrate(client)
        assert client.query(stored).result_rows == before
        numbers = client.query(
            f"SELECT DISTINCT checkpoint_no, prev_checkpoint FROM {CHECKPOINTS}"
        ).result_rows
        assert numbers == [(0, "")]

        # the worker goes on after the upgrade: its checkpoints are numbered from 1
        resumed: LiveProcessor[None] = LiveProcessor(
            configs, snapshots.get, signer=signer, checkpoints=every_100
        )
        for partition, offset, value in log:  # from the committed offsets: all of it here
            resumed.handle(value, partition, offset, None)
        resumed.checkpoint_round(set(range(4)))
        batch = resumed.drain()
        StoreWriter(client).insert(events=batch.events, checkpoints=batch.checkpoints)
        (tmp_path / "record.jsonl").write_bytes(b"".join(x + b"\n" for x in batch.external))
        firsts = client.query(
            f"SELECT table_id, min(checkpoint_no) FROM {CHECKPOINTS} WHERE checkpoint_no > 0 "
            "GROUP BY table_id"
        ).result_rows
        assert firsts and all(first == 1 for _, first in firsts)
    finally:
        client.close()
    result = CliRunner().invoke(
        main,
        ["verify", "--dsn", dsn_of(tmp_path / "store"),
         "--public-key", str(tmp_path / "trusted.pub"),
         "--manifests", str(tmp_path / "record.jsonl")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.output.count(": intact: ") == 2
