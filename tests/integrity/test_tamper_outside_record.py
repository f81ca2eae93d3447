"""What someone who can write to the store can no longer hide: ``tablewatch verify`` against the
record kept outside the store (every checkpoint and the signed floor manifests), and the
quiet tables a restarted worker signs.

Each test fills an embedded store as the worker writes it (``LiveProcessor``, batches
written with their outside lines to an append-only file), tampers with it by SQL as an
insider would, and runs the command.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from clickhouse_connect.driver.client import Client

from tablewatch.cli import main
from tablewatch.integrity.chain import ChainHead
from tablewatch.integrity.checkpoints import CheckpointPolicy, publish_key
from tablewatch.integrity.keys import Signer, new_signer, public_line
from tablewatch.integrity.manifest import ManifestFile
from tablewatch.processors.processor import LiveProcessor
from tablewatch.processors.state_codec import chain_partition
from tablewatch.rules.config import TableConfig, parse_config
from tablewatch.store.client import connect
from tablewatch.store.migrate import migrate
from tablewatch.store.rows import EVENT_COLUMNS
from tablewatch.store.writer import StoreWriter
from tests.integrity.helpers import PARTITIONS, Message, floor_log, small_floor

ALL = set(range(PARTITIONS))
POLICY = CheckpointPolicy(100, 5.0)
HOUR_S = 3600.0


@dataclass
class Site:
    """A store, the outside record's file, the worker's saved states and its key."""

    path: Path
    client: Client
    signer: Signer
    configs: dict[str, TableConfig]
    log: list[Message]
    snapshots: dict[str, bytes] = field(default_factory=dict)

    @property
    def record(self) -> Path:
        return self.path / "manifests.jsonl"

    def worker(self, clock: Callable[[], float] = time.time) -> LiveProcessor[None]:
        """A worker process started from the saved states (a restart, after the first)."""
        return LiveProcessor(
            self.configs, self.snapshots.get, signer=self.signer, checkpoints=POLICY, clock=clock
        )

    def write(self, processor: LiveProcessor[None]) -> None:
        batch = processor.drain()
        StoreWriter(self.client).insert(events=batch.events, checkpoints=batch.checkpoints)
        outside = ManifestFile(self.record)
        outside.append(batch.external)
        outside.close()
        self.snapshots.update(batch.snapshots)

    def run(self, messages: list[Message], processor: LiveProcessor[None]) -> None:
        for i, (partition, offset, value) in enumerate(messages, 1):
            processor.handle(value, partition, offset, None)
            if i % 250 == 0:
                self.write(processor)
        self.write(processor)

    def verify(self, *args: str, outside: bool = True) -> Result:
        trusted = ["--public-key", str(self.path / "trusted.pub")]
        if outside:
            trusted += ["--manifests", str(self.record)]
        dsn = f"chdb:///{self.path / 'store'}"
        return CliRunner().invoke(main, ["verify", "--dsn", dsn, *trusted, *args])

    def sql(self, statement: str) -> None:
        self.client.command(statement, settings={"mutations_sync": 2})

    def count(self, statement: str) -> int:
        return int(self.client.query(statement).result_rows[0][0])


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    floor = small_floor(tables=2, rounds=40, seed=11)
    signer = new_signer()
    (tmp_path / "trusted.pub").write_text(public_line(signer))
    client = connect(f"chdb:///{tmp_path / 'store'}")
    try:
        migrate(client)
        publish_key(client, signer, int(time.time() * 1000))
        yield Site(tmp_path, client, signer, parse_config(floor.config), floor_log(floor))
    finally:
        client.close()


def filled(site: Site, clock: Callable[[], float] = time.time) -> LiveProcessor[None]:
    """The whole floor through one worker, then its checkpoint round (every table signed)."""
    processor = site.worker(clock)
    site.run(site.log, processor)
    processor.checkpoint_round(ALL)
    site.write(processor)
    return processor


def tables_of(site: Site) -> list[str]:
    rows = site.client.query("SELECT DISTINCT table_id FROM raw_events_v ORDER BY 1")
    return [str(r[0]) for r in rows.result_rows]


def rehash_from(site: Site, table_id: str, position: int) -> None:
    """Change the event at ``position`` and recompute the chain from there, as anyone who
    knows the chain's definition can."""
    columns = list(EVENT_COLUMNS)
    at = {name: columns.index(name) for name in ("payload", "seq", "chain_pos", "kafka_offset")}
    rows = [
        list(r)
        for r in site.client.query(
            f"SELECT {', '.join(columns)} FROM raw_events_v WHERE table_id = '{table_id}' "
            "AND chain_pos > 0 ORDER BY chain_pos",
            column_formats={"payload": "bytes"},
        ).result_rows
    ]
    payload = bytes(rows[position - 1][at["payload"]])
    changed = payload.replace(b'"v":1', b'"v":1 ')  # one byte more: the same event to a reader
    assert changed != payload
    rows[position - 1][at["payload"]] = changed
    head = ChainHead()
    for row in rows:
        row[at["chain_pos"]: at["chain_pos"] + 3] = head.extend(
            table_id, int(row[at["seq"]]), 0, bytes(row[at["payload"]]), 0,
            int(row[at["kafka_offset"]]),
        )  # fmt: skip
    site.sql(f"ALTER TABLE raw_events DELETE WHERE table_id = '{table_id}' AND chain_pos > 0")
    site.client.insert("raw_events", rows, column_names=columns)


def test_intact_is_exit_0(site: Site) -> None:
    filled(site)
    result = site.verify()
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1].startswith("verify: 2 tables, 2 intact, 0 broken")


def test_an_event_changed_and_rehashed_with_its_checkpoints_deleted(site: Site) -> None:
    filled(site)
    table_id = tables_of(site)[0]
    rehash_from(site, table_id, 57)
    site.sql(f"ALTER TABLE chain_checkpoints DELETE WHERE table_id = '{table_id}'")
    # the store alone now holds a chain that hashes right and no checkpoint to contradict it
    assert site.count(f"SELECT count() FROM chain_checkpoints WHERE table_id = '{table_id}'") == 0
    result = site.verify()
    assert result.exit_code == 1, result.output
    summary = next(line for line in result.output.splitlines() if line.startswith(table_id))
    assert summary.startswith(f"{table_id}: BROKEN at position 100: ")
    assert "is not the one signed outside the store" in result.output
    assert "is not in the store" in result.output  # each deleted checkpoint, by its number


def test_checkpoints_deleted_are_seen_from_the_store_alone_once_the_interval_passed(
    site: Site,
) -> None:
    """Without the outside record, a trusted key still sees a chain that no checkpoint
    covers although its events were stored longer ago than the worker's interval."""
    filled(site, clock=lambda: time.time() - HOUR_S)  # stored an hour ago
    table_id = tables_of(site)[0]
    rehash_from(site, table_id, 57)
    site.sql(f"ALTER TABLE chain_checkpoints DELETE WHERE table_id = '{table_id}'")
    result = site.verify(outside=False)
    assert result.exit_code == 1, result.output
    assert f"{table_id}: BROKEN at position 1: positions 1-" in result.output
    assert "are covered by no checkpoint" in result.output
    assert "longer than the 6 minutes in which the worker signs new events" in result.output


def test_a_middle_checkpoint_deleted(site: Site) -> None:
    filled(site)
    table_id = tables_of(site)[0]
    site.sql(f"ALTER TABLE chain_checkpoints DELETE WHERE table_id = '{table_id}' "
             "AND checkpoint_no = 3")  # fmt: skip
    for outside in (True, False):  # its number is missing even without the outside record
        result = site.verify(outside=outside)
        assert result.exit_code == 1, result.output
        assert "checkpoint 3 of the table's chain of checkpoints missing from the store" in (
            result.output
        )


def test_a_whole_table_deleted(site: Site) -> None:
    filled(site)
    gone, kept = tables_of(site)
    site.sql(f"ALTER TABLE raw_events DELETE WHERE table_id = '{gone}'")
    site.sql(f"ALTER TABLE chain_checkpoints DELETE WHERE table_id = '{gone}'")
    result = site.verify()
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    summary = next(line for line in lines if line.startswith(f"{gone}: "))
    assert (
        summary.startswith(f"{gone}: BROKEN at position ")
        and "; 0 events, 0 checkpoints" in summary
    )
    assert "is not in the store" in summary  # its first checkpoint, kept outside
    assert "but the store holds none: its events at the end were deleted" in result.output
    assert any(line.startswith(f"{kept}: intact") for line in lines)
    assert lines[-1].startswith("verify: 2 tables, 1 intact, 1 broken")


def test_the_store_truncated(site: Site) -> None:
    filled(site)
    names = tables_of(site)
    site.sql("TRUNCATE TABLE raw_events")
    site.sql("TRUNCATE TABLE chain_checkpoints")
    result = site.verify()
    assert result.exit_code == 1, result.output
    for table_id in names:
        assert f"{table_id}: BROKEN" in result.output
    assert result.output.splitlines()[-1].startswith("verify: 2 tables, 0 intact, 2 broken")


def test_the_end_of_a_chain_and_its_last_checkpoints_deleted(site: Site) -> None:
    filled(site)
    table_id = tables_of(site)[0]
    site.sql(f"ALTER TABLE raw_events DELETE WHERE table_id = '{table_id}' AND chain_pos > 450")
    site.sql(f"ALTER TABLE chain_checkpoints DELETE WHERE table_id = '{table_id}' "
             "AND chain_pos > 450")  # fmt: skip
    result = site.verify()
    assert result.exit_code == 1, result.output
    assert "the store ends at 450: its events at the end were deleted" in result.output


def test_the_outside_record_edited(site: Site) -> None:
    filled(site)
    lines = site.record.read_bytes().splitlines()
    manifests = [i for i, line in enumerate(lines) if b'"kind":"manifest"' in line]
    assert len(manifests) == 1
    # a table's head moved back in the manifest: its signature no longer verifies
    record = json.loads(lines[manifests[0]])
    record["tables"][0][2] -= 1
    lines[manifests[0]] = json.dumps(record).encode()
    site.record.write_bytes(b"\n".join(lines) + b"\n")
    result = site.verify()
    assert result.exit_code == 1, result.output
    assert ": manifest 1 of worker: its signature does not verify" in result.output


def test_a_manifest_cut_out_from_between_two(site: Site) -> None:
    processor = filled(site)
    for _ in range(2):
        processor.checkpoint_round(ALL)
        site.write(processor)
    lines = site.record.read_bytes().splitlines()
    manifests = [i for i, line in enumerate(lines) if b'"kind":"manifest"' in line]
    assert len(manifests) == 3
    del lines[manifests[1]]
    site.record.write_bytes(b"\n".join(lines) + b"\n")
    result = site.verify()
    assert result.exit_code == 1, result.output
    assert "manifest 3 of worker does not follow its manifest 1" in result.output


# ---- a quiet table after a restart ------------------------------------------------------


def quiet_after_a_restart(
    site: Site, *, delete_first: bool = False
) -> tuple[str, int, LiveProcessor[None]]:
    """The floor runs until one table goes quiet with events no checkpoint covers; the worker
    stops (everything it wrote is stored and its states saved) and starts again six
    minutes later (``delete_first``: its last 183 events deleted meanwhile, with any
    checkpoint of them); the quiet table gets no event. Returns the table, its last position and
    the restarted worker after its first checkpoint round."""
    first = site.worker()
    site.run(site.log, first)
    table_id = tables_of(site)[0]
    last = site.count(f"SELECT max(chain_pos) FROM raw_events_v WHERE table_id = '{table_id}'")
    signed = site.count(
        f"SELECT max(chain_pos) FROM chain_checkpoints WHERE table_id = '{table_id}'"
    )
    assert signed < last  # its tail is not signed when the worker stops
    if delete_first:
        delete_tail(site, table_id, last)
    restarted = site.worker(clock=lambda: time.time() + 6 * 60)
    for saved_id, data in site.snapshots.items():  # as the worker's round goes over them
        restarted.adopt(saved_id, chain_partition(data))
    restarted.checkpoint_round(ALL)
    site.write(restarted)
    return table_id, last, restarted


def delete_tail(site: Site, table_id: str, last: int) -> None:
    for table in ("raw_events", "chain_checkpoints"):
        site.sql(f"ALTER TABLE {table} DELETE WHERE table_id = '{table_id}' "
                 f"AND chain_pos > {last - 183}")  # fmt: skip


def test_a_restarted_worker_signs_a_quiet_tables_tail(site: Site) -> None:
    table_id, last, restarted = quiet_after_a_restart(site)
    assert restarted.counters.adopted == 2  # both tables, from their saved states
    signed = site.count(
        f"SELECT max(chain_pos) FROM chain_checkpoints WHERE table_id = '{table_id}'"
    )
    assert signed == last
    result = site.verify(f"--tables={table_id}")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("delete_first", [False, True], ids=["after-its-round", "before"])
def test_a_quiet_tables_tail_deleted_after_a_restart(site: Site, delete_first: bool) -> None:
    """Deleted once the restarted worker signed it, or before: the worker signs from the
    state it saved, not from the store, so the checkpoint names the deleted end."""
    table_id, last, _ = quiet_after_a_restart(site, delete_first=delete_first)
    if not delete_first:
        delete_tail(site, table_id, last)
    result = site.verify(f"--tables={table_id}")
    assert result.exit_code == 1, result.output
    assert f"the store ends at {last - 183:,}: its events at the end were deleted" in (
        result.output
    )
    if delete_first:  # the store's own checkpoint, signed after the deletion, says so too
        assert "past the last stored event" in result.output
    # without the outside record, nothing is proven: never "intact"
    assert site.verify(f"--tables={table_id}", outside=False).exit_code in (1, 3)
