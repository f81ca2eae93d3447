"""``tablewatch verify`` on a real (embedded) store: intact, and every kind of tampering.

The store is filled by the worker's processing step (``LiveProcessor``) and
written as the worker writes it; then one thing is changed with SQL, as
someone with write access to ClickHouse could, and verify must name it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from clickhouse_connect.driver.client import Client

from tablewatch.cli import main
from tablewatch.integrity.chain import ChainHead, link
from tablewatch.integrity.checkpoints import (
    CHECKPOINT_COLUMNS,
    CHECKPOINTS,
    CheckpointPolicy,
    publish_key,
    sign,
)
from tablewatch.integrity.keys import Signer, new_signer, public_line
from tablewatch.integrity.manifest import ManifestFile
from tablewatch.processors.processor import LiveProcessor
from tablewatch.rules.config import parse_config
from tablewatch.store.client import connect
from tablewatch.store.migrate import migrate
from tablewatch.store.rows import EVENT_COLUMNS
from tablewatch.store.writer import StoreWriter
from tests.integrity.helpers import PARTITIONS, floor_log, small_floor
from tests.store.conftest import dsn_of

TABLE = "LIR-01"


def fill(client: Client, signer: Signer, record: Path) -> None:
    """The store as the worker writes it, and the record it keeps outside (``record``): every
    checkpoint, and the floor manifest of its last checkpoint round."""
    floor = small_floor(tables=2, rounds=40, seed=11)
    snapshots: dict[str, bytes] = {}
    processor: LiveProcessor[None] = LiveProcessor(
        parse_config(floor.config),
        snapshots.get,
        signer=signer,
        checkpoints=CheckpointPolicy(100, 5.0),
    )
    writer = StoreWriter(client)
    outside = ManifestFile(record)
    publish_key(client, signer, int(time.time() * 1000))

    def write() -> None:
        batch = processor.drain()
        writer.insert(events=batch.events, checkpoints=batch.checkpoints)
        outside.append(batch.external)
        snapshots.update(batch.snapshots)

    for i, (partition, offset, value) in enumerate(floor_log(floor), 1):
        processor.handle(value, partition, offset, None)
        if i % 250 == 0:
            write()
    processor.checkpoint_round(set(range(PARTITIONS)))
    write()
    outside.close()


@pytest.fixture
def signer() -> Signer:
    return new_signer()


@pytest.fixture
def store(tmp_path: Path, signer: Signer) -> Iterator[Client]:
    client = connect(dsn_of(tmp_path / "store"))
    (tmp_path / "trusted.pub").write_text(public_line(signer))
    try:
        migrate(client)
        fill(client, signer, tmp_path / "manifests.jsonl")
        yield client
    finally:
        client.close()


def verify(tmp_path: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["verify", "--dsn", dsn_of(tmp_path / "store"), *args])


def trusted(tmp_path: Path) -> tuple[str, ...]:
    """verify's options for a proof: the key kept away from the store, the outside record."""
    return (
        "--public-key", str(tmp_path / "trusted.pub"),
        "--manifests", str(tmp_path / "manifests.jsonl"),
    )  # fmt: skip


def verify_trusted(tmp_path: Path, *args: str) -> Result:
    return verify(tmp_path, *trusted(tmp_path), *args)


def sql(client: Client, statement: str) -> None:
    client.command(statement, settings={"mutations_sync": 2})


def row_at(client: Client, position: int) -> list[object]:
    columns = ", ".join(EVENT_COLUMNS)
    rows = client.query(
        f"SELECT {columns} FROM raw_events_v WHERE table_id = {{t:String}} "
        "AND chain_pos = {p:UInt64}",
        parameters={"t": TABLE, "p": position},
        column_formats={"payload": "bytes"},
    ).result_rows
    assert len(rows) == 1
    return list(rows[0])


def insert_event(client: Client, row: list[object]) -> None:
    client.insert("raw_events", [row], column_names=list(EVENT_COLUMNS))


def problem_lines(result: Result) -> list[str]:
    return [line for line in result.output.splitlines() if line.startswith(f"  {TABLE} ")]


def summary(result: Result, table_id: str = TABLE) -> str:
    return next(line for line in result.output.splitlines() if line.startswith(f"{table_id}: "))


def test_an_untouched_store_is_intact(store: Client, tmp_path: Path) -> None:
    result = verify_trusted(tmp_path)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    records = len((tmp_path / "manifests.jsonl").read_text().splitlines())
    assert lines[-1] == (
        f"verify: 2 tables, 2 intact, 0 broken (the store, against {records} records kept "
        "outside it)"
    )
    assert all(line.split(": ")[1] == "intact" for line in lines[:-1]), lines
    # each of its checkpoints outside the store, and the manifest's head: one more anchor
    assert re.search(
        r": intact: 1,139 events \(positions 1-1,139\), 11 checkpoints verified, "
        r"12 external anchors, 0 outside the chain$",
        summary(result),
    ), summary(result)


def test_without_a_trusted_key_or_the_outside_record_nothing_is_intact(
    store: Client, tmp_path: Path
) -> None:
    """The store's own keys and checkpoints can be rewritten by whoever writes to the store:
    verify says what it found, and that it proves nothing (exit 3), never "intact"."""
    for args in [(), ("--public-key", str(tmp_path / "trusted.pub")),
                 ("--manifests", str(tmp_path / "manifests.jsonl"))]:  # fmt: skip
        result = verify(tmp_path, *args)
        assert result.exit_code == 3, result.output
        assert "intact" not in result.output
        assert result.output.splitlines()[-1].startswith("verify: UNVERIFIED: ")
        assert f"{TABLE}: consistent, UNVERIFIED: " in result.output


def test_one_byte_changed_in_an_event(store: Client, tmp_path: Path) -> None:
    sql(
        store,
        f"ALTER TABLE raw_events UPDATE payload = replaceOne(payload, '\"v\":1', '\"v\":2') "
        f"WHERE table_id = '{TABLE}' AND chain_pos = 57",
    )
    result = verify_trusted(tmp_path)
    assert result.exit_code == 1, result.output
    assert summary(result).startswith(
        f"{TABLE}: BROKEN at position 57: its bytes, seq or position do not match its hash"
    )
    assert "intact" in summary(result, "FCP-02")
    # the checkpoints after it do not match the chain recomputed from the stored events
    assert any("position 100: checkpoint" in line and "recomputed" in line
               for line in problem_lines(result))  # fmt: skip


def test_an_event_deleted(store: Client, tmp_path: Path) -> None:
    sql(store, f"ALTER TABLE raw_events DELETE WHERE table_id = '{TABLE}' AND chain_pos = 57")
    result = verify(tmp_path)
    assert result.exit_code == 1
    assert summary(result).startswith(f"{TABLE}: BROKEN at position 57: position 57 missing")


def test_the_last_events_deleted(store: Client, tmp_path: Path) -> None:
    """Deleting the end of a chain, a checkpointed position with it: the checkpoint says so."""
    last = int(store.query(f"SELECT max(chain_pos) FROM raw_events_v WHERE table_id = '{TABLE}'")
               .result_rows[0][0])  # fmt: skip
    cut = last // 100 * 100
    sql(store, f"ALTER TABLE raw_events DELETE WHERE table_id = '{TABLE}' AND chain_pos >= {cut}")
    result = verify(tmp_path)
    assert result.exit_code == 1
    assert f"position {cut:,}: checkpoint" in result.output
    assert "past the last stored event" in summary(result)


def test_an_event_inserted_outside_the_chain(store: Client, tmp_path: Path) -> None:
    row = row_at(store, 57)
    row[EVENT_COLUMNS.index("event_id")] = "forged-1"
    row[EVENT_COLUMNS.index("chain_pos")] = 0
    row[EVENT_COLUMNS.index("chain_prev")] = row[EVENT_COLUMNS.index("chain_hash")] = ""
    insert_event(store, row)
    result = verify(tmp_path)
    assert result.exit_code == 1
    assert summary(result).startswith(
        f"{TABLE}: BROKEN outside the chain: 1 event stored outside the chain after it "
        "began (first: event forged-1"
    )


def test_an_event_inserted_at_a_position(store: Client, tmp_path: Path) -> None:
    row = row_at(store, 57)
    prev = str(row[EVENT_COLUMNS.index("chain_prev")])
    payload = bytes(row[EVENT_COLUMNS.index("payload")]).replace(b'"event_id":"', b'"event_id":"x')  # type: ignore[call-overload]
    row[EVENT_COLUMNS.index("event_id")] = "x" + str(row[EVENT_COLUMNS.index("event_id")])
    row[EVENT_COLUMNS.index("payload")] = payload
    seq = int(row[EVENT_COLUMNS.index("seq")])  # type: ignore[call-overload]
    row[EVENT_COLUMNS.index("chain_hash")] = link(
        bytes.fromhex(prev), TABLE, 57, seq, payload
    ).hex()
    insert_event(store, row)
    result = verify(tmp_path)
    assert result.exit_code == 1
    assert "position 57: two events at this position" in result.output


def test_an_event_inserted_and_the_chain_after_it_recomputed(store: Client, tmp_path: Path) -> None:
    """Someone who knows the chain's definition re-hashes everything after the event they
    insert: every link holds, and the signed checkpoints are what give it away."""
    columns = list(EVENT_COLUMNS)
    rows = [
        list(r)
        for r in store.query(
            f"SELECT {', '.join(columns)} FROM raw_events_v WHERE table_id = '{TABLE}' "
            "AND chain_pos > 0 ORDER BY chain_pos",
            column_formats={"payload": "bytes"},
        ).result_rows
    ]
    forged = list(rows[56])
    forged[columns.index("event_id")] = "forged-2"
    forged[columns.index("payload")] = bytes(forged[columns.index("payload")]).replace(
        b'"event_id":"', b'"event_id":"forged-2-'
    )
    forged[columns.index("event_id")] = "forged-2-" + str(rows[56][columns.index("event_id")])
    rows.insert(56, forged)
    head = ChainHead()
    for row in rows:
        position, prev, digest = head.extend(
            TABLE,
            int(row[2]),
            0,
            bytes(row[6]),
            int(row[7]),
            int(row[8]),
        )
        row[10:13] = [position, prev, digest]
    sql(store, f"ALTER TABLE raw_events DELETE WHERE table_id = '{TABLE}' AND chain_pos > 0")
    store.insert("raw_events", rows, column_names=columns)
    result = verify(tmp_path)
    assert result.exit_code == 1
    lines = problem_lines(result)
    assert lines and all("checkpoint" in line and "recomputed" in line for line in lines), lines
    assert summary(result).startswith(f"{TABLE}: BROKEN at position 100: checkpoint signed")


def test_two_events_swapped(store: Client, tmp_path: Path) -> None:
    sql(
        store,
        "ALTER TABLE raw_events UPDATE chain_pos = if(chain_pos = 57, 58, 57) "
        f"WHERE table_id = '{TABLE}' AND chain_pos IN (57, 58)",
    )
    result = verify(tmp_path)
    assert result.exit_code == 1
    assert summary(result).startswith(
        f"{TABLE}: BROKEN at position 57: its chain_prev is not the hash of the event before it"
    )


def checkpoint_at(client: Client, position: int) -> list[object]:
    columns = ", ".join(
        f"toUnixTimestamp64Milli({c})" if c in ("event_ts", "signed_at") else c
        for c in CHECKPOINT_COLUMNS
    )
    rows = client.query(
        f"SELECT {columns} FROM chain_checkpoints FINAL "
        f"WHERE table_id = '{TABLE}' AND chain_pos = {position}"
    ).result_rows
    assert len(rows) == 1
    return list(rows[0])


def replace_checkpoint(client: Client, position: int, row: list[object]) -> None:
    where = f"table_id = '{TABLE}' AND chain_pos = {position}"
    sql(client, f"ALTER TABLE {CHECKPOINTS} DELETE WHERE {where}")
    client.insert(CHECKPOINTS, [row], column_names=list(CHECKPOINT_COLUMNS))


def test_a_checkpoint_with_a_forged_signature(store: Client, tmp_path: Path) -> None:
    row = checkpoint_at(store, 200)
    signature = str(row[-1])
    row[-1] = ("0" if signature[0] != "0" else "1") + signature[1:]
    replace_checkpoint(store, 200, row)
    result = verify(tmp_path)
    assert result.exit_code == 1
    assert summary(result).startswith(f"{TABLE}: BROKEN at position 200: checkpoint signed")
    assert "its signature does not verify with key" in summary(result)
    assert "recomputed" not in summary(result)


def test_a_checkpoint_with_a_forged_hash(store: Client, tmp_path: Path) -> None:
    sql(
        store,
        f"ALTER TABLE {CHECKPOINTS} UPDATE chain_hash = '{'ab' * 32}' "
        f"WHERE table_id = '{TABLE}' AND chain_pos = 200",
    )
    result = verify(tmp_path)
    assert result.exit_code == 1
    assert "its signature does not verify" in summary(result)
    assert "its hash is not the chain recomputed from the stored events" in summary(result)


def test_a_key_published_in_the_store_is_not_trusted_over_the_given_one(
    store: Client, tmp_path: Path, signer: Signer
) -> None:
    """An intruder replaces a checkpoint by one signed with a key of their own, published in
    the store: the store's keys pass it, the key kept away from the store does not."""
    intruder = new_signer()
    publish_key(store, intruder, int(time.time() * 1000))
    genuine = checkpoint_at(store, 100)
    head = ChainHead(100, bytes.fromhex(str(genuine[2])), int(genuine[6]), int(genuine[3]),  # type: ignore[call-overload]
                     int(genuine[4]), int(genuine[5]))  # type: ignore[call-overload]  # fmt: skip
    forged = sign(TABLE, head, intruder, int(time.time() * 1000))
    replace_checkpoint(store, 100, list(forged.row()))
    assert verify(tmp_path).exit_code == 3  # nothing broken with the store's keys: unverified
    result = verify(tmp_path, "--public-key", str(tmp_path / "trusted.pub"))
    assert result.exit_code == 1
    assert f"its key {intruder.key_id} is not a published or given key" in result.output


def test_only_some_tables_and_only_since_a_time(store: Client, tmp_path: Path) -> None:
    sql(store, "ALTER TABLE raw_events DELETE WHERE table_id = 'FCP-02' AND chain_pos = 5")
    assert verify_trusted(tmp_path, "--tables", TABLE).exit_code == 0
    assert verify_trusted(tmp_path, "--tables", f"{TABLE},FCP-02").exit_code == 1
    (middle,) = store.query(
        "SELECT toString(ts) FROM raw_events_v WHERE table_id = 'FCP-02' AND chain_pos = 300"
    ).result_rows[0]
    result = verify_trusted(tmp_path, "--since", str(middle).replace(" ", "T") + "Z")
    assert result.exit_code == 0, result.output
    assert "FCP-02: intact" in result.output


def test_input_verify_cannot_use(store: Client, tmp_path: Path) -> None:
    assert verify(tmp_path, "--tables", "NO-SUCH").exit_code == 2
    assert verify(tmp_path, "--since", "yesterday").exit_code == 2
    assert verify(tmp_path, "--public-key", str(tmp_path / "missing.pub")).exit_code == 2
    result = verify(tmp_path, "--kafka", "127.0.0.1:1", "--topic", "t")
    assert result.exit_code == 2


def test_a_store_without_the_chain(tmp_path: Path) -> None:
    client = connect(dsn_of(tmp_path / "store"))
    try:
        from tablewatch.store.migrate import available

        for migration in available():
            if migration.version >= "0006":
                break
            for statement in migration.statements():
                client.command(statement)
        result = verify(tmp_path)
        assert result.exit_code == 2
        assert "no chain" in result.output
    finally:
        client.close()


def test_the_stores_text_is_printed_with_its_control_characters_escaped(
    store: Client, tmp_path: Path
) -> None:
    """A table id written into the store with an ESC sequence cannot drive the auditor's
    terminal: verify shows it as an escape."""
    row = row_at(store, 57)
    row[EVENT_COLUMNS.index("table_id")] = "EV\x1b[2JIL"
    row[EVENT_COLUMNS.index("chain_pos")] = 0
    row[EVENT_COLUMNS.index("chain_prev")] = row[EVENT_COLUMNS.index("chain_hash")] = ""
    insert_event(store, row)
    result = verify_trusted(tmp_path)
    assert result.exit_code == 1
    assert "\x1b" not in result.output
    assert "EV\\x1b[2JIL: BROKEN outside the chain" in result.output
