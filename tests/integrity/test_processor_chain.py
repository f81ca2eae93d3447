"""The worker's chains across crashes, rebalances and redeliveries (a modelled Kafka and store).

The chain of a table must come out the same however the worker was stopped
and restarted: every event the store shows is chained once, at the position
an uninterrupted worker gives it, and every checkpoint verifies.
"""

from __future__ import annotations

import zlib

from tablewatch.integrity.chain import GENESIS_HEX
from tablewatch.integrity.checkpoints import CheckpointPolicy
from tablewatch.integrity.keys import new_signer
from tablewatch.processors.processor import LiveProcessor
from tablewatch.processors.state_codec import is_chain_only, restore_chain
from tablewatch.rules.config import parse_config
from tablewatch.rules.decode import encode_event
from tests.integrity.helpers import (
    EVERY_100,
    PARTITIONS,
    FakeDeployment,
    floor_log,
    kafka_log,
    run,
    small_floor,
)
from tests.scenarios import configs as scripted_configs
from tests.scenarios import lir_round, lir_table


def chains(deployment: FakeDeployment) -> dict[str, list[tuple[object, ...]]]:
    """Each table's (position, prev, hash, event_id) in position order."""
    return {
        t: [(r[10], r[11], r[12], r[1]) for r in deployment.rows_of(t)] for t in deployment.tables()
    }


def assert_intact(deployment: FakeDeployment, signer: object = None) -> None:
    reports = deployment.verify(signer)  # type: ignore[arg-type]
    for report in reports.values():
        assert not report.broken, "\n".join(report.lines())
        assert report.outside == 0


def test_every_stored_event_is_chained_once_in_its_tables_order() -> None:
    floor = small_floor()
    configs = parse_config(floor.config)
    log = floor_log(floor)
    signer = new_signer()
    deployment = FakeDeployment()
    run(configs, log, deployment, signer=signer, policy=EVERY_100)
    assert len(deployment.events) == len(log)
    assert_intact(deployment, signer)
    for table_id, chain in chains(deployment).items():
        assert [c[0] for c in chain] == list(range(1, len(chain) + 1)), table_id
        assert chain[0][1] == GENESIS_HEX
        signed = sorted(int(c[1]) for c in deployment.checkpoints if c[0] == table_id)
        assert signed == list(range(100, len(chain) + 1, 100))


def test_a_crash_anywhere_gives_the_same_chains() -> None:
    floor = small_floor()
    configs = parse_config(floor.config)
    log = floor_log(floor)
    signer = new_signer()
    once = FakeDeployment()
    run(configs, log, once, signer=signer, policy=EVERY_100)
    for crash_after in (150, 1_111, 2_500, 4_000):
        deployment = FakeDeployment()
        run(configs, log, deployment, crash_after=crash_after, signer=signer, policy=EVERY_100)
        run(configs, log, deployment, signer=signer, policy=EVERY_100)  # restored, re-read
        assert chains(deployment) == chains(once), f"crash after {crash_after} messages"
        assert_intact(deployment, signer)


def test_two_crashes_in_a_row_and_a_small_flush() -> None:
    floor = small_floor(seed=8)
    configs = parse_config(floor.config)
    log = floor_log(floor)
    once = FakeDeployment()
    run(configs, log, once)
    deployment = FakeDeployment()
    run(configs, log, deployment, crash_after=700, flush_every=13)
    run(configs, log, deployment, crash_after=900, flush_every=13)
    run(configs, log, deployment, flush_every=13)
    assert chains(deployment) == chains(once)
    assert_intact(deployment)


def test_partitions_revoked_and_given_back_keep_the_chains() -> None:
    floor = small_floor()
    configs = parse_config(floor.config)
    log = floor_log(floor)
    once = FakeDeployment()
    run(configs, log, once)
    deployment = FakeDeployment()
    processor: LiveProcessor[tuple[int, int]] = LiveProcessor(configs, deployment.snapshots.get)
    cut = 2_000
    for partition, offset, value in log[:cut]:
        processor.handle(value, partition, offset, (partition, offset))
    deployment.write(processor.drain())
    revoked = {0, 1, 2, 3}
    assert processor.forget(revoked)
    start = {p: deployment.committed(p) for p in revoked}
    again = [m for m in log[:cut] if m[1] >= start[m[0]]]
    assert again, "the cut should leave rounds open"
    for partition, offset, value in again + log[cut:]:
        processor.handle(value, partition, offset, (partition, offset))
    deployment.write(processor.drain())
    assert chains(deployment) == chains(once)


def test_a_message_delivered_again_in_the_same_process_is_not_chained_again() -> None:
    floor = small_floor()
    configs = parse_config(floor.config)
    log = floor_log(floor)
    once = FakeDeployment()
    run(configs, log, once)
    deployment = FakeDeployment()
    processor: LiveProcessor[tuple[int, int]] = LiveProcessor(configs, deployment.snapshots.get)
    cut = 2_500
    for partition, offset, value in log[:cut]:
        processor.handle(value, partition, offset, (partition, offset))
    batch = processor.drain()
    deployment.write(batch)
    start = {p: deployment.committed(p) for p in range(PARTITIONS)}
    again = [m for m in log[:cut] if m[1] >= start[m[0]]]
    for partition, offset, value in again:
        processor.handle(value, partition, offset, (partition, offset))
    assert processor.counters.redelivered == len(again)
    assert processor.drain().events == []  # applied, stored and chained already
    for partition, offset, value in log[cut:]:
        processor.handle(value, partition, offset, (partition, offset))
    deployment.write(processor.drain())
    assert chains(deployment) == chains(once)


def test_a_duplicate_the_table_ignores_is_neither_stored_nor_chained() -> None:
    t = lir_table()
    lir_round(t, "R-1")
    lir_round(t, "R-2")
    raws = [encode_event(e) for e in t.events]
    resent = raws[5]  # a controller re-sends an event: same event_id, same ts
    log = kafka_log([*raws[:9], resent, *raws[9:]], ["LIR-1"] * (len(raws) + 1))
    deployment = FakeDeployment()
    processor = run(scripted_configs(), log, deployment)
    assert processor.auditor.stats.duplicates == 1
    rows = deployment.rows_of("LIR-1")
    assert len(rows) == len(raws)
    assert [r[10] for r in rows] == list(range(1, len(raws) + 1))
    assert [r[8] for r in rows] == [o for p, o, _ in log if o != 9]  # the original is kept
    assert_intact(deployment)


def test_a_table_with_no_configuration_keeps_its_chain_across_a_restart() -> None:
    floor = small_floor(tables=2, rounds=40)
    log = floor_log(floor)
    configs = parse_config(floor.config)
    unconfigured = sorted(configs)[0]
    configs.pop(unconfigured)
    once = FakeDeployment()
    run(configs, log, once)
    deployment = FakeDeployment()
    run(configs, log, deployment, crash_after=len(log) // 2)
    saved = deployment.snapshots[unconfigured]
    assert is_chain_only(saved) and restore_chain(saved).position > 0
    run(configs, log, deployment)
    assert chains(deployment) == chains(once)
    assert_intact(deployment)


def test_a_checkpoint_after_minutes_covers_a_table_that_went_quiet() -> None:
    floor = small_floor(tables=1, rounds=3)
    configs = parse_config(floor.config)
    log = floor_log(floor)
    now = [1_000.0]
    signer = new_signer()
    processor: LiveProcessor[int] = LiveProcessor(
        configs,
        lambda _: None,
        clock=lambda: now[0],
        signer=signer,
        checkpoints=CheckpointPolicy(1_000, 5.0),
    )
    for i, (partition, offset, value) in enumerate(log):
        processor.handle(value, partition, offset, i)
    assert len(log) < 1_000 and processor.drain().checkpoints == []
    now[0] += 299
    assert processor.sign_due() == 0
    now[0] += 2
    assert processor.sign_due() == 1
    (checkpoint,) = processor.drain().checkpoints
    assert checkpoint[1] == len(log)  # the table's last position
    now[0] += 600
    assert processor.sign_due() == 0  # nothing new since


def test_without_a_key_chains_and_no_checkpoints() -> None:
    floor = small_floor(tables=2, rounds=60)
    deployment = FakeDeployment()
    processor = run(parse_config(floor.config), floor_log(floor), deployment)
    assert deployment.checkpoints == set() and processor.counters.checkpoints == 0
    assert_intact(deployment)


def test_a_saved_state_from_before_the_chain_starts_one() -> None:
    """A worker upgraded over a store and saved states from before the chain: the events
    after each table's saved state are chained from position 1; those at or before it
    are not written again and stay outside the chain, as the migration left them."""
    floor = small_floor(tables=2, rounds=60)
    configs = parse_config(floor.config)
    log = floor_log(floor)
    deployment = FakeDeployment()
    run(configs, log, deployment, crash_after=1_000)
    for key, row in deployment.events.items():  # as written before the chain existed
        deployment.events[key] = (*row[:10], 0, "", "")
    for table_id, data in deployment.snapshots.items():
        deployment.snapshots[table_id] = data.replace(b',"chain":', b',"no_chain":')
        assert restore_chain(deployment.snapshots[table_id]).position == 0
    run(configs, log, deployment)
    assert len(deployment.events) == len(log)
    for table_id in deployment.tables():
        rows = deployment.rows_of(table_id)
        outside = [r for r in rows if r[10] == 0]
        positions = [r[10] for r in rows if r[10]]
        assert outside and positions == list(range(1, len(positions) + 1)), table_id
        last_outside = max(int(r[8]) for r in outside)
        assert all(int(r[8]) > last_outside for r in rows if r[10])
    for report in deployment.verify().values():
        assert not report.broken and report.outside > 0, report.lines()


def test_the_partition_of_a_table_is_in_its_checkpoints() -> None:
    floor = small_floor(tables=2, rounds=60)
    deployment = FakeDeployment()
    signer = new_signer()
    run(parse_config(floor.config), floor_log(floor), deployment, signer=signer, policy=EVERY_100)
    for checkpoint in deployment.checkpoints:
        assert checkpoint[5] == zlib.crc32(str(checkpoint[0]).encode()) % PARTITIONS


def test_the_chain_head_travels_in_the_tables_snapshot() -> None:
    from tablewatch.integrity.chain import ChainHead
    from tablewatch.processors.state_codec import chain_snapshot, restore, snapshot
    from tablewatch.rules.table import TableState

    configs = scripted_configs()
    table = TableState("LIR-1", configs["LIR-1"])
    head = ChainHead()
    head.extend("LIR-1", 7, 1_000, b"{}", 3, 41)
    head.signed = 1
    data = snapshot(table, 41, head)
    restored = restore_chain(data)
    assert (restored.position, restored.hash, restored.offset, restored.seq, restored.signed) == (
        1, head.hash, 41, 7, 1
    )  # fmt: skip
    assert restore(data, configs["LIR-1"])[1] == 41 and not is_chain_only(data)
    only = chain_snapshot("X-1", head)
    assert is_chain_only(only) and restore_chain(only).hash == head.hash
    before = snapshot(table, 40)  # a state saved before the chain: its offset, no chain
    assert (restore_chain(before).position, restore_chain(before).offset) == (0, 40)
