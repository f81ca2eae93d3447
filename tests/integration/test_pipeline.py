"""The live pipeline end to end, with the real broker and the real ClickHouse engine.

A simulated floor goes through `tablewatch ingest` into Kafka, the worker
(a real process) judges it into an embedded ClickHouse, and what the store
shows must equal the simulator's truth exactly: no finding lost, none
duplicated, even when the worker is killed mid-stream.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tablewatch.integrity.keys import generate
from tablewatch.services import free_port
from tests.integration.pipeline import (
    Deployment,
    SimulatedFloor,
    new_deployment,
    simulated_floor,
    write_jsonl,
)

pytestmark = pytest.mark.integration


def stored_findings(deployment: Deployment, store: str = "") -> set[tuple[str, str, str]]:
    rows = deployment.query("SELECT table_id, round_id, check FROM findings_v", store)
    return {(str(t), str(r), str(c)) for t, r, c in rows}


def assert_no_duplicates(deployment: Deployment, floor: SimulatedFloor) -> None:
    events = deployment.query("SELECT count(), uniqExact(event_id) FROM raw_events_v")[0]
    assert events == [len(floor.events), len(floor.events)]
    rounds = deployment.query("SELECT count(), uniqExact(table_id, round_id) FROM rounds_v")[0]
    assert rounds == [floor.rounds, floor.rounds]
    findings = deployment.query("SELECT count(), uniqExact(finding_id) FROM findings_v")[0]
    assert findings[0] == findings[1]


def assert_judged_exactly(
    deployment: Deployment, floor: SimulatedFloor, *logs: str, timeout: float = 180
) -> None:
    """Once every round is stored: the findings are the truth, nothing is stored twice,
    and the consumer met no hole in the events topic."""
    deployment.wait_for_rounds(floor.rounds, timeout=timeout)
    time.sleep(1)  # the findings of the last flush
    assert stored_findings(deployment) == floor.truth, deployment.worker_story(*logs)
    assert_no_duplicates(deployment, floor)
    metrics = deployment.get("/metrics")
    assert metrics["offset_gaps"] == 0
    assert metrics["gc_frozen_objects"] > 10_000  # start-up's objects, frozen once consuming


def assert_chains_intact(
    deployment: Deployment, floor: SimulatedFloor, key: Path, tables: int
) -> None:
    """``tablewatch verify`` finds every table's chain and checkpoints intact, from the store
    and from the events topic (the worker stopped: it held the embedded store), held
    against the record the workers kept outside the store: the manifest file, and the same
    records in the checkpoints topic."""
    store = f"chdb:///{deployment.root / 'chdb'}"
    topic = ["--kafka", deployment.bootstrap, "--topic", f"{deployment.prefix}table-events",
             "--config", str(floor.config)]  # fmt: skip
    outside_file = ["--manifests", str(manifests_of(key))]
    outside_topic = ["--manifests-kafka", deployment.bootstrap,
                     "--manifests-topic", f"{deployment.prefix}chain-checkpoints"]  # fmt: skip
    for source in ([*outside_file], [*outside_topic], [*topic, *outside_file]):
        result = subprocess.run(
            [sys.executable, "-m", "tablewatch.cli", "verify", "--dsn", store,
             "--public-key", f"{key}.pub", *source],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert result.returncode == 0, result.stdout + result.stderr
        lines = result.stdout.splitlines()[:-1]
        assert len(lines) == tables, result.stdout
        assert all(": intact: " in line for line in lines), result.stdout
        assert all(" 0 checkpoints" not in line for line in lines), result.stdout


def manifests_of(key: Path) -> Path:
    """The manifest file of the workers signing with ``key``."""
    return key.with_name("manifests.jsonl")


def signing_args(key: Path) -> tuple[str, ...]:
    """A worker's options to sign its checkpoints with ``key`` (every 100 events and, for a
    table's newer events, every 6 seconds) and keep the outside record in a file."""
    return ("--checkpoint-key", str(key), "--checkpoint-events", "100",
            "--checkpoint-minutes", "0.1", "--manifest-file", str(manifests_of(key)))  # fmt: skip


def test_simulated_floor_end_to_end(kafka_bootstrap: str, tmp_path: Path) -> None:
    floor = simulated_floor(tmp_path, tables=6, rounds=300, seed=31)
    deployment = new_deployment(kafka_bootstrap, tmp_path, free_port())
    with deployment.worker(floor.config):
        deployment.ingest(write_jsonl(tmp_path / "events.jsonl", floor.events))
        assert_judged_exactly(deployment, floor, "worker.log")
        metrics = deployment.get("/metrics")
        assert metrics["events"] == len(floor.events)
        assert (metrics["rounds"], metrics["duplicates"]) == (floor.rounds, 0)
        assert metrics["consumer_lag_total"] == 0
        assert sum(metrics["findings_by_check"].values()) == len(floor.truth)
        # every message acknowledged by the worker and committed (commits run every second)
        deadline = time.monotonic() + 10
        while sum(deployment.get("/metrics")["uncommitted"].values()):
            assert time.monotonic() < deadline, deployment.get("/metrics")
            time.sleep(0.5)


def test_first_start_on_a_backlog(kafka_bootstrap: str, tmp_path: Path) -> None:
    """The events are in Kafka before any worker of the group ever ran: no partition has
    a committed offset when the first worker starts, and its first fetch may be under
    way when Faust seeks to the committed offsets. Every event must still be judged."""
    floor = simulated_floor(tmp_path, tables=6, rounds=300, seed=34)
    deployment = new_deployment(kafka_bootstrap, tmp_path, free_port())
    deployment.ingest(write_jsonl(tmp_path / "events.jsonl", floor.events))
    with deployment.worker(floor.config):
        assert_judged_exactly(deployment, floor, "worker.log")


@pytest.mark.parametrize("changelog_delay", [0.0, 0.3], ids=["", "slow-changelog"])
def test_worker_killed_mid_stream(
    kafka_bootstrap: str, tmp_path: Path, changelog_delay: float
) -> None:
    """SIGKILL mid-stream, events produced while down, restart: still the truth, no
    duplicate. With a slow changelog the killed worker loses the snapshots still in
    Faust's buffer; its committed offsets must not have passed them. Afterwards every
    table's hash chain and signed checkpoints are intact (``tablewatch verify``)."""
    floor = simulated_floor(tmp_path, tables=6, rounds=400, seed=32)
    half = len(floor.events) // 2
    first = write_jsonl(tmp_path / "first.jsonl", floor.events[:half])
    second = write_jsonl(tmp_path / "second.jsonl", floor.events[half:])
    deployment = new_deployment(kafka_bootstrap, tmp_path, free_port())
    key = tmp_path / "checkpoint.key"
    generate(key)
    signing = signing_args(key)
    with deployment.worker(
        floor.config, changelog_delay=changelog_delay, extra_args=signing
    ) as worker:
        deployment.ingest(first)
        deadline = time.monotonic() + 60
        while deployment.get("/metrics")["events"] < half // 3:
            assert time.monotonic() < deadline, deployment.log_tail()
            time.sleep(0.2)
        worker.kill()  # SIGKILL, mid-stream
        worker.wait()
    deployment.ingest(second)  # produced while the worker is down
    with deployment.worker(floor.config, "worker-2.log", extra_args=signing):
        assert_judged_exactly(deployment, floor, "worker.log", "worker-2.log", timeout=240)
    assert_chains_intact(deployment, floor, key, tables=6)


def test_quiet_tables_signed_by_the_restarted_worker(kafka_bootstrap: str, tmp_path: Path) -> None:
    """A worker signing every 5 minutes stops with each table's newest events unsigned; the
    tables go quiet. The worker started again signs them at its checkpoint round, from the
    states it saved (no event of theirs comes), and writes a manifest of them: afterwards
    every chain is signed to its end, and verify finds the store intact."""
    floor = simulated_floor(tmp_path, tables=3, rounds=120, seed=36)
    deployment = new_deployment(kafka_bootstrap, tmp_path, free_port())
    key = tmp_path / "checkpoint.key"
    generate(key)
    slow = (*signing_args(key)[:4], "--checkpoint-minutes", "5",
            *signing_args(key)[6:])  # fmt: skip
    ends = "SELECT table_id, max(chain_pos) FROM {} GROUP BY table_id ORDER BY table_id"
    with deployment.worker(floor.config, extra_args=slow):
        deployment.ingest(write_jsonl(tmp_path / "events.jsonl", floor.events))
        assert_judged_exactly(deployment, floor, "worker.log")
        stored = deployment.query(ends.format("raw_events_v"))
        signed = dict(deployment.query(ends.format("chain_checkpoints")))
    assert len(stored) == 3 and all(signed.get(t, 0) < last for t, last in stored)
    with deployment.worker(floor.config, "worker-2.log", extra_args=signing_args(key)) as second:
        deadline = time.monotonic() + 60
        while dict(deployment.query(ends.format("chain_checkpoints"))) != dict(stored):
            assert time.monotonic() < deadline, deployment.worker_story("worker-2.log")
            time.sleep(1)
        assert deployment.get("/metrics")["events"] == 0  # no event brought them in
    lines = [json.loads(line) for line in manifests_of(key).read_text().splitlines()]
    last = [r for r in lines if r["kind"] == "manifest"][-1]
    assert last["writer"].split(":")[1] == str(second.pid)  # the restarted worker's
    assert sorted((t[0], t[2]) for t in last["tables"]) == sorted(map(tuple, stored))
    assert_chains_intact(deployment, floor, key, tables=3)


@pytest.mark.parametrize("changelog_delay", [0.0, 0.3], ids=["", "slow-changelog"])
def test_second_worker_joins_mid_stream(
    kafka_bootstrap: str, tmp_path: Path, changelog_delay: float
) -> None:
    """A rebalance hands half the partitions to a new worker while rounds are open.

    Each worker has its own embedded store here (a shared ClickHouse server would
    hold both); together they must hold every round and exactly the truth, and a
    round judged by both (redelivered across the rebalance) must be judged alike.

    With a slow changelog, table snapshots reach Kafka long after Faust's commit
    stopped waiting for them: the worker must still never commit past a
    snapshot, or the new owner restores an older state and misses the events in
    between (seen as a false SEQUENCE_GAP and a missed STUB_COUNT_MISSING).
    """
    floor = simulated_floor(tmp_path, tables=8, rounds=400, seed=33)
    half = len(floor.events) // 2
    first = write_jsonl(tmp_path / "first.jsonl", floor.events[:half])
    second = write_jsonl(tmp_path / "second.jsonl", floor.events[half:])
    deployment = new_deployment(kafka_bootstrap, tmp_path, free_port())
    stores = ("", "-b")
    logs = ("worker.log", "worker-b.log")

    def judged() -> dict[tuple[str, str], frozenset[str]]:
        """(table, round) -> its findings' codes, from both stores; asserts they agree."""
        out: dict[tuple[str, str], frozenset[str]] = {}
        for store in stores:
            rows = deployment.query(
                "SELECT r.table_id, r.round_id, groupArrayIf(f.check, f.check != '') "
                "FROM rounds_v AS r LEFT JOIN findings_v AS f "
                "ON f.table_id = r.table_id AND f.round_id = r.round_id "
                "GROUP BY r.table_id, r.round_id",
                store,
            )
            for table_id, round_id, checks in rows:
                key, codes = (str(table_id), str(round_id)), frozenset(map(str, checks))
                assert out.setdefault(key, codes) == codes, (
                    key, out[key], codes, store, deployment.worker_story(*logs)
                )  # fmt: skip
        return out

    with deployment.worker(floor.config, changelog_delay=changelog_delay):
        deployment.ingest(first)
        deadline = time.monotonic() + 60
        while deployment.get("/metrics")["events"] < half // 3:
            assert time.monotonic() < deadline, deployment.log_tail()
            time.sleep(0.2)
        with deployment.worker(
            floor.config, "worker-b.log", instance="-b", changelog_delay=changelog_delay
        ):
            # ready = the rebalance is over and the new worker owns partitions
            assert deployment.get("/metrics", "-b")["consumer_lag"] != {}
            deployment.ingest(second)
            deadline = time.monotonic() + 240
            rounds = judged()
            while len(rounds) < floor.rounds:
                assert time.monotonic() < deadline, deployment.log_tail("worker-b.log")
                time.sleep(1)
                rounds = judged()
            time.sleep(1)  # the findings of the last flushes
            rounds = judged()
            found = set().union(*(stored_findings(deployment, store) for store in stores))
            a, b = deployment.get("/metrics"), deployment.get("/metrics", "-b")
    assert len(rounds) == floor.rounds
    assert found == floor.truth, deployment.worker_story(*logs)
    assert a["rebalances"] >= 1 and a["consumer_lag"].keys().isdisjoint(b["consumer_lag"].keys())
    assert a["events"] > 0 and b["events"] > 0
    assert a["offset_gaps"] == b["offset_gaps"] == 0
