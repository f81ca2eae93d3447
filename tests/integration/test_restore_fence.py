"""The rebalance window forced: a partition's tables restored from snapshots older than the
offset the group committed for it. The worker must not run them stale."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition

from tablewatch.services import free_port
from tests.integration.pipeline import Deployment, new_deployment, simulated_floor, write_jsonl
from tests.integration.test_pipeline import assert_judged_exactly

pytestmark = pytest.mark.integration


def changelog_records(deployment: Deployment) -> tuple[str, dict[int, list[Any]]]:
    """The worker's table-state changelog topic and its records, by partition."""
    topic = f"{deployment.prefix}worker-tablewatch-table-state-changelog"
    consumer = KafkaConsumer(bootstrap_servers=deployment.bootstrap, enable_auto_commit=False)
    try:
        partitions = consumer.partitions_for_topic(topic)
        assert partitions, f"no changelog topic {topic}"
        tps = [TopicPartition(topic, p) for p in sorted(partitions)]
        consumer.assign(tps)
        consumer.seek_to_beginning(*tps)
        end = consumer.end_offsets(tps)
        records: dict[int, list[Any]] = {tp.partition: [] for tp in tps}
        while any(consumer.position(tp) < end[tp] for tp in tps):
            for tp, batch in consumer.poll(timeout_ms=5_000).items():
                records[tp.partition] += batch
    finally:
        consumer.close()
    return topic, records


def rewind_changelog(deployment: Deployment) -> tuple[int, set[bytes]]:
    """Make a changelog partition's latest record of each key the one it had halfway
    through (what a new owner restores when the latest records have not reached it).
    Returns the partition and the tables whose saved state is now older than before."""
    topic, records = changelog_records(deployment)
    partition = max(records, key=lambda p: len(records[p]))
    kept = records[partition]
    cut = len(kept) // 2
    as_of_cut = {r.key: r.value for r in kept[:cut]}
    latest = {r.key: r.value for r in kept}
    older = {k for k, v in as_of_cut.items() if latest[k] != v and not k.startswith(b"\x00")}
    assert older, f"no table of changelog partition {partition} saved after record {cut}"
    producer = KafkaProducer(bootstrap_servers=deployment.bootstrap, acks="all")
    try:
        for key, value in as_of_cut.items():
            producer.send(topic, key=key, value=value, partition=partition).get(timeout=30)
    finally:
        producer.close()
    return partition, older


def test_tables_restored_older_than_the_commit_are_not_run_stale(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    """A worker judges half a floor, commits and stops. One partition's saved states are
    rolled back to those of halfway through (its committed offset stays where the worker
    left it), then a worker starts and the rest of the floor comes. Run from the old states
    at the committed offset, the tables would miss the events between (a false
    SEQUENCE_GAP, missed findings); the worker reads the partition again from its fence
    instead, and the findings are exactly the floor's truth."""
    floor = simulated_floor(tmp_path, tables=6, rounds=300, seed=38)
    half = len(floor.events) // 2
    first = write_jsonl(tmp_path / "first.jsonl", floor.events[:half])
    second = write_jsonl(tmp_path / "second.jsonl", floor.events[half:])
    deployment = new_deployment(kafka_bootstrap, tmp_path, free_port())
    with deployment.worker(floor.config):
        deployment.ingest(first)
        deadline = time.monotonic() + 120
        while True:  # every message judged; committed but for the open rounds' messages
            metrics = deployment.get("/metrics")
            waiting = metrics["unacknowledged"] + metrics["batches_waiting"]
            if metrics["events"] >= half and sum(metrics["uncommitted"].values()) == waiting:
                break
            assert time.monotonic() < deadline, (metrics, deployment.log_tail())
            time.sleep(0.5)
    partition, older = rewind_changelog(deployment)
    with deployment.worker(floor.config, "worker-2.log"):
        deployment.ingest(second)
        assert_judged_exactly(deployment, floor, "worker.log", "worker-2.log", timeout=240)
        assert deployment.get("/metrics")["restores_fenced"] >= 1, (partition, sorted(older))
