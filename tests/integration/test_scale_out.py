"""Scale-out: four workers in one consumer group on an events topic of 8 partitions, a
floor of 24 tables streaming in, two workers SIGKILLed at different moments and one
started back, against the real broker.

Each worker has its own embedded store (a directory belongs to one process; a site
shares one ClickHouse server among them). A round redelivered after a kill is judged
again by the partition's next owner and lands in that owner's store too: on a shared
server both copies have one key and are one row. So "stored once" is checked as a
shared server would hold the rows: every table's hash chain, merged over the four
stores, gives each position one event and one hash and each event one position, with
no gap; a round present in two stores was judged alike; and each store on its own
holds no row twice. The findings of all the stores together must be the simulator's
truth exactly, and at the end the group's committed offsets are the topic's end on
every partition.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest

from tablewatch.kafka_access import KafkaAccess
from tablewatch.services import create_topics, free_port
from tablewatch.store.client import open_store
from tests.integration.pipeline import Deployment, SimulatedFloor, simulated_floor, write_jsonl

pytestmark = pytest.mark.integration

PARTITIONS = 8
TABLES = 24
ROUNDS = 480  # 20 a table
CHUNKS = 8  # the floor streams in as this many batches, one every PAUSE_S
PAUSE_S = 1.0
WORKERS = ("-a", "-b", "-c", "-d")


def committed_and_end(
    bootstrap: str, group: str, topic: str
) -> tuple[dict[int, int], dict[int, int]]:
    """The group's committed offset and the topic's end offset, by partition."""
    from kafka import KafkaConsumer, TopicPartition

    # committed() asks the group's coordinator; this consumer never joins the group
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False)
    try:
        parts = [TopicPartition(topic, p) for p in range(PARTITIONS)]
        committed = {tp.partition: consumer.committed(tp) or -1 for tp in parts}
        end = {tp.partition: offset for tp, offset in consumer.end_offsets(parts).items()}
    finally:
        consumer.close()
    return committed, end


@contextmanager
def streaming(deployment: Deployment, files: list[Path]) -> Iterator[list[threading.Event]]:
    """Ingest ``files`` one after the other, PAUSE_S apart, on a thread; the events are
    set as each file is in Kafka."""
    done = [threading.Event() for _ in files]
    failed: list[BaseException] = []

    def run() -> None:
        try:
            for file, event in zip(files, done, strict=True):
                deployment.ingest(file)
                event.set()
                time.sleep(PAUSE_S)
        except BaseException as exc:
            failed.append(exc)
            for event in done:
                event.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield done
    finally:
        thread.join(timeout=300)
    assert not failed, failed


def read_store(directory: Path) -> dict[str, Any]:
    """What one worker's store holds, read once the worker is gone."""
    with open_store(f"chdb:///{directory}") as client:

        def rows(sql: str) -> list[tuple[Any, ...]]:
            return [tuple(row) for row in client.query(sql).result_rows]

        return {
            "events": rows("SELECT table_id, event_id, chain_pos, chain_hash FROM raw_events_v"),
            "rounds": rows(
                "SELECT r.table_id, r.round_id, r.start_event_id, "
                "arraySort(groupArrayIf(f.check, f.check != '')) "
                "FROM rounds_v AS r LEFT JOIN findings_v AS f "
                "ON f.table_id = r.table_id AND f.round_id = r.round_id "
                "AND f.start_event_id = r.start_event_id "
                "GROUP BY r.table_id, r.round_id, r.start_event_id"
            ),
            "findings": rows("SELECT table_id, round_id, check, finding_id FROM findings_v"),
            "counts": rows(
                "SELECT (SELECT count() FROM raw_events_v), "
                "(SELECT uniqExact(table_id, event_id) FROM raw_events_v), "
                "(SELECT count() FROM rounds_v), "
                "(SELECT uniqExact(table_id, round_id, start_event_id) FROM rounds_v), "
                "(SELECT count() FROM findings_v), (SELECT uniqExact(finding_id) FROM findings_v)"
            )[0],
        }


def wait_until_committed(deployment: Deployment, timeout: float) -> dict[int, int]:
    """Once every message of the events topic is covered by the group's commits."""
    topic = f"{deployment.prefix}table-events"
    deadline = time.monotonic() + timeout
    while True:
        committed, end = committed_and_end(
            deployment.bootstrap, f"{deployment.prefix}worker", topic
        )
        if sum(end.values()) and all(committed.get(p, -1) == end[p] for p in end):
            return end
        assert time.monotonic() < deadline, (committed, end, deployment.worker_story(
            *(f"worker{w}.log" for w in WORKERS), "worker-a-again.log"))  # fmt: skip
        time.sleep(1)


def events_handled(deployment: Deployment, instance: str) -> int:
    return int(deployment.get("/metrics", instance)["events"])


def test_four_workers_two_killed_one_back(kafka_bootstrap: str, tmp_path: Path) -> None:
    started = time.monotonic()
    floor: SimulatedFloor = simulated_floor(tmp_path, tables=TABLES, rounds=ROUNDS, seed=61)
    deployment = Deployment(kafka_bootstrap, tmp_path, "", free_port())
    deployment.prefix = f"t{uuid.uuid4().hex[:10]}-scale-"
    create_topics(KafkaAccess(kafka_bootstrap), deployment.prefix, partitions=PARTITIONS)
    size = -(-len(floor.events) // CHUNKS)
    files = [
        write_jsonl(tmp_path / f"chunk-{i}.jsonl", floor.events[i * size : (i + 1) * size])
        for i in range(CHUNKS)
    ]
    options = ("--partitions", str(PARTITIONS))
    seen: dict[str, int] = {}
    phases = {"floor": time.monotonic() - started}
    with ExitStack() as stack:
        # the four start together (each is yielded once its /health answers)
        managers = {
            w: deployment.worker(floor.config, f"worker{w}.log", instance=w, extra_args=options)
            for w in WORKERS
        }
        with ThreadPoolExecutor(len(WORKERS)) as pool:
            entered = {w: pool.submit(m.__enter__) for w, m in managers.items()}
        for w, future in entered.items():  # each started one is stopped at the end
            if future.exception() is None:
                stack.push(managers[w].__exit__)
        workers = {w: future.result() for w, future in entered.items()}
        phases["workers up"] = time.monotonic() - started
        with streaming(deployment, files) as ingested:
            ingested[1].wait(120)
            deadline = time.monotonic() + 60
            while events_handled(deployment, "-a") == 0:
                assert time.monotonic() < deadline, deployment.log_tail("worker-a.log")
                time.sleep(0.3)
            seen["-a"] = events_handled(deployment, "-a")
            workers["-a"].kill()  # SIGKILL, mid-stream
            workers["-a"].wait()
            ingested[3].wait(120)
            seen["-b"] = events_handled(deployment, "-b")
            workers["-b"].kill()  # the second, at another moment
            workers["-b"].wait()
            ingested[4].wait(120)
            # -a started back on its own store and data directory
            stack.enter_context(
                deployment.worker(
                    floor.config, "worker-a-again.log", instance="-a", extra_args=options
                )
            )
            phases["streamed"] = time.monotonic() - started
        end = wait_until_committed(deployment, timeout=240)
        phases["all committed"] = time.monotonic() - started
        live = {w: deployment.get("/metrics", w) for w in ("-a", "-c", "-d")}
        for w, metrics in live.items():
            assert metrics["offset_gaps"] == 0, (w, metrics)
            assert sum(metrics["uncommitted"].values()) == 0, (w, metrics)
    stores = {w: read_store(tmp_path / f"chdb{w}") for w in WORKERS}
    elapsed = time.monotonic() - started

    assert sum(end.values()) == len(floor.events)
    assert seen["-a"] > 0 and seen["-b"] > 0
    assert live["-a"]["events"] > 0  # the worker started back took partitions over
    for w, store in stores.items():  # no store holds a row twice
        events, events_unique, rounds, rounds_unique, findings, findings_unique = store["counts"]
        assert (events, rounds, findings) == (events_unique, rounds_unique, findings_unique), w

    # findings: exactly the truth, over all the stores together
    found = {(str(t), str(r), str(c)) for s in stores.values() for t, r, c, _ in s["findings"]}
    assert found == floor.truth, deployment.worker_story(*(f"worker{w}.log" for w in WORKERS))

    # rounds: every one judged, alike wherever it was judged more than once
    judged: dict[tuple[str, str, str], tuple[str, ...]] = {}
    for w, store in stores.items():
        for table_id, round_id, start, checks in store["rounds"]:
            key, codes = (str(table_id), str(round_id), str(start)), tuple(map(str, checks))
            assert judged.setdefault(key, codes) == codes, (key, judged[key], codes, w)
    assert len(judged) == floor.rounds

    # events: each table's chain, merged over the stores, is whole and has no row twice
    at: dict[tuple[str, int], set[tuple[str, str]]] = defaultdict(set)
    position_of: dict[tuple[str, str], set[int]] = defaultdict(set)
    for store in stores.values():
        for table_id, event_id, pos, chain_hash in store["events"]:
            at[(str(table_id), int(pos))].add((str(event_id), str(chain_hash)))
            position_of[(str(table_id), str(event_id))].add(int(pos))
    assert all(len(v) == 1 for v in at.values()), [k for k, v in at.items() if len(v) > 1][:5]
    assert all(len(v) == 1 for v in position_of.values())
    assert len(position_of) == len(floor.events)
    positions: dict[str, list[int]] = defaultdict(list)
    for table_id, pos in at:
        positions[table_id].append(pos)
    assert len(positions) == TABLES
    assert all(sorted(p) == list(range(1, len(p) + 1)) for p in positions.values())

    redelivered = sum(len(s["events"]) for s in stores.values()) - len(floor.events)
    print(
        f"\nscale-out: {len(floor.events):,} events, {floor.rounds} rounds, "
        f"{len(floor.truth)} findings, {TABLES} tables, {PARTITIONS} partitions; events "
        f"stored by each store { ({w: len(s['events']) for w, s in stores.items()}) }, "
        f"{redelivered:,} judged again after the kills (same rows), killed -a after "
        f"{seen['-a']:,} and -b after {seen['-b']:,} of their events; {elapsed:.0f} s "
        f"({', '.join(f'{k} at {v:.0f} s' for k, v in phases.items())})"
    )
