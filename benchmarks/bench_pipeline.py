"""Live pipeline benchmarks, against the real broker and the embedded ClickHouse.

    python benchmarks/bench_pipeline.py [--events 100000] [--rate 1000] [--seconds 60]
                                        [--only throughput|latency] [--partitions 4 ...]
                                        [--vs-without-views] [--json]

1. Throughput: a simulated floor's events are produced to a fresh topic; then,
   in the same run, (a) raw aiokafka consumption of that topic (the floor of
   what any consumer can do here) and (b) one worker process (judging, writing
   ClickHouse, the output topics and its state) consume it from the start.
   Worker events/s = events / (time of the last event counted in /metrics -
   time of the first); also CPU time per event over the same span, of the
   worker's main thread (its event loop, where Faust and the judging run: the
   bottleneck) and of the whole process (with the Kafka client's and the
   ClickHouse writer's threads). Other load on the machine moves these less.
2. Latency: once the worker is ready (its /health answers 200: partitions
   assigned, state restored), a floor's events are produced in their order at
   a steady ``--rate`` events/s; for each ``round_end``, the time from its delivery to Kafka
   to the round being visible in ``rounds`` (polled every 50 ms through the
   worker's /query view: the figure includes up to 50 ms of polling).

Kafka must be running (``deploy/kafka.sh start``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import yaml

from tablewatch.kafka_access import DEFAULT_BOOTSTRAP, KafkaAccess
from tablewatch.rules.decode import encode_event
from tablewatch.rules.events import RoundEnd
from tablewatch.services import (
    child_service,
    create_topics,
    free_port,
    get_json,
    worker_args,
    worker_query,
)
from tablewatch.sim.floor import Floor
from tablewatch.sim.games import choose
from tablewatch.topics import Topics, table_key

# the first two games: the floors of the published figures
FIRST_TWO = choose("let_it_ride,four_card_poker")

KAFKA = KafkaAccess()  # main() sets it from --bootstrap


def produce(topic: str, events: list[tuple[str, bytes]]) -> None:
    from kafka import KafkaProducer

    producer = KafkaProducer(**KAFKA.kafka_python(), acks="all", linger_ms=5)
    for table_id, value in events:
        producer.send(topic, key=table_key(table_id), value=value)
    producer.flush()
    producer.close()


async def raw_consume(topic: str, count: int) -> float:
    from aiokafka import AIOKafkaConsumer

    consumer = AIOKafkaConsumer(
        topic, **KAFKA.aiokafka(), group_id=f"raw-{uuid.uuid4().hex[:6]}",
        auto_offset_reset="earliest", enable_auto_commit=False,
    )  # fmt: skip
    await consumer.start()
    seen = 0
    started = None
    try:
        while seen < count:
            batch = await consumer.getmany(timeout_ms=1000, max_records=10_000)
            for records in batch.values():
                if started is None:
                    started = time.perf_counter()
                seen += len(records)
    finally:
        await consumer.stop()
    return seen / (time.perf_counter() - (started or time.perf_counter()))


def cpu_seconds(pid: int, thread: int | None = None) -> float:
    """CPU seconds of a process, or of one of its threads (Linux /proc)."""
    path = f"/proc/{pid}/stat" if thread is None else f"/proc/{pid}/task/{thread}/stat"
    fields = Path(path).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def floor_events(events: int, seed: int) -> tuple[Floor, list[tuple[str, bytes, Any]]]:
    rounds = max(1, events // 52)
    floor = Floor(12, rounds, seed, error_rate=0.05, jackpot_rate=0.02, games=FIRST_TWO)
    out = [(e.table_id, encode_event(e), e) for e in floor.events()]
    return floor, out


def drop_materialized_views(dsn: str) -> list[str]:
    """The store migrated, then its materialized views dropped: the same worker writing
    without the rollups' triggers (a baseline for their cost)."""
    from tablewatch.store.client import open_store
    from tablewatch.store.migrate import migrate

    with open_store(dsn) as client:
        migrate(client)
        names = [
            str(row[0])
            for row in client.query(
                "SELECT name FROM system.tables WHERE database = currentDatabase() "
                "AND engine = 'MaterializedView'"
            ).result_rows
        ]
        for name in names:
            client.command(f"DROP VIEW IF EXISTS {name}")
    return names


def throughput(
    root: Path, events: int, partitions: int = 4, without_views: bool = False
) -> dict[str, Any]:
    floor, stream = floor_events(events, seed=7)
    prefix = f"bench{uuid.uuid4().hex[:8]}-"
    create_topics(KAFKA, prefix, partitions=partitions)
    config = root / "tables.yaml"
    config.write_text(yaml.safe_dump(floor.config, sort_keys=False))
    topic = Topics.prefixed(prefix).events
    produce(topic, [(t, v) for t, v, _ in stream])
    n = len(stream)
    raw_rate = asyncio.run(raw_consume(topic, n))
    port = free_port()
    dsn = f"chdb:///{root / f'chdb-throughput-{prefix}'}"
    dropped = drop_materialized_views(dsn) if without_views else []
    args = [*worker_args(
        config, kafka=KAFKA, dsn=dsn,
        web_port=port, prefix=prefix, data_dir=root / f"worker-throughput-{prefix}",
    ), "--partitions", str(partitions)]  # fmt: skip
    with child_service(
        args, f"http://127.0.0.1:{port}/health", root / f"worker-throughput-{prefix}.log"
    ) as process:
        first_t = last_t = None
        first_cpu = last_cpu = (0.0, 0.0)
        done = 0
        deadline = time.monotonic() + 600
        while done < n and time.monotonic() < deadline:
            done = get_json(port, "/metrics")["events"]
            now = time.perf_counter()
            cpu = (cpu_seconds(process.pid, process.pid), cpu_seconds(process.pid))
            if done and first_t is None:
                first_t, first_n, first_cpu = now, done, cpu
            last_t, last_cpu = now, cpu
            time.sleep(0.25)  # each /metrics call costs the worker ~0.3 ms
        assert first_t is not None and last_t is not None
        rate = (done - first_n) / max(last_t - first_t, 1e-9)
        counted = max(done - first_n, 1)
        main_cpu = (last_cpu[0] - first_cpu[0]) / counted
        process_cpu = (last_cpu[1] - first_cpu[1]) / counted
    return {
        "events": n,
        "partitions": partitions,
        "materialized_views_dropped": len(dropped),
        "raw_aiokafka_events_per_s": round(raw_rate),
        "worker_events_per_s": round(rate),
        "worker_vs_raw": round(rate / raw_rate, 4),
        "worker_main_thread_cpu_us_per_event": round(main_cpu * 1e6, 1),
        "worker_process_cpu_us_per_event": round(process_cpu * 1e6, 1),
    }


def latency(root: Path, rate: float, seconds: float) -> dict[str, Any]:
    from kafka import KafkaProducer

    floor, stream = floor_events(int(rate * seconds * 1.2), seed=8)
    prefix = f"lat{uuid.uuid4().hex[:8]}-"
    create_topics(KAFKA, prefix)
    config = root / "tables-latency.yaml"
    config.write_text(yaml.safe_dump(floor.config, sort_keys=False))
    port = free_port()
    args = worker_args(
        config, kafka=KAFKA, dsn=f"chdb:///{root / 'chdb-latency'}", web_port=port,
        prefix=prefix, data_dir=root / "worker-latency",
    )  # fmt: skip
    produced: dict[tuple[str, str], float] = {}
    seen: dict[tuple[str, str], float] = {}
    with child_service(args, f"http://127.0.0.1:{port}/health", root / "worker-latency.log"):
        stop = threading.Event()

        delays: list[int] = []
        rebalances: list[int] = []
        waiting: list[int] = []  # batches judged and not yet written

        def poll() -> None:
            while not stop.is_set():
                metrics = get_json(port, "/metrics")
                delays.append(metrics["consumer_delay_ms"])
                waiting.append(metrics["batches_waiting"])
                rebalances.append(metrics["rebalances"])
                rows = worker_query(
                    port,
                    "SELECT table_id, round_id FROM rounds "
                    "WHERE judged_at > now64(3) - INTERVAL 30 SECOND",
                )
                now = time.monotonic()
                for table_id, round_id in rows:
                    seen.setdefault((table_id, round_id), now)
                time.sleep(0.05)

        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        producer = KafkaProducer(**KAFKA.kafka_python(), acks="all", linger_ms=0)
        topic = Topics.prefixed(prefix).events
        started = time.monotonic()
        count = 0
        for index, (table_id, value, event) in enumerate(stream):
            # the floor's events in their order, sent at a steady `rate` events/s (the
            # floor's own timestamps bunch up: tables open together, then pause)
            due = index / rate
            if due > seconds:
                break
            wait = due - (time.monotonic() - started)
            if wait > 0:
                time.sleep(wait)
            future = producer.send(topic, key=table_key(table_id), value=value)
            count += 1
            if isinstance(event, RoundEnd):
                future.get(timeout=30)
                produced[(event.table_id, event.round_id)] = time.monotonic()
        producer.flush()
        elapsed = time.monotonic() - started
        time.sleep(3)
        stop.set()
        poller.join()
    waits = sorted(seen[k] - t for k, t in produced.items() if k in seen)
    missing = len(produced) - len(waits)
    return {
        "events_sent": count,
        "send_rate_events_per_s": round(count / elapsed),
        "rounds": len(produced),
        "rounds_not_seen": missing,
        "latency_ms_p50": round(1000 * statistics.median(waits)),
        "latency_ms_p99": round(1000 * waits[int(0.99 * (len(waits) - 1))]),
        "latency_ms_max": round(1000 * waits[-1]),
        "consumer_delay_ms_p50": sorted(delays)[len(delays) // 2],
        "consumer_delay_ms_max": max(delays),
        "batches_waiting_max": max(waiting),
        "rebalances_during_run": rebalances[-1] - rebalances[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--rate", type=float, default=1000.0)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--only", choices=("throughput", "latency"), help="run one part")
    parser.add_argument(
        "--partitions",
        type=int,
        nargs="+",
        default=[4],
        help="throughput with the events topic of each of these partition counts, in turn",
    )
    parser.add_argument(
        "--vs-without-views",
        action="store_true",
        help="each throughput run also on a store whose materialized views (the rollups) "
        "were dropped, in turn: their cost to the worker",
    )
    parser.add_argument(
        "--bootstrap",
        default=os.environ.get("TABLEWATCH_KAFKA") or DEFAULT_BOOTSTRAP,
        help="Kafka (PLAINTEXT)  [default: $TABLEWATCH_KAFKA or 127.0.0.1:9092]",
    )
    options = parser.parse_args()
    global KAFKA
    KAFKA = KafkaAccess(options.bootstrap)
    with tempfile.TemporaryDirectory(prefix="tw-bench-") as tmp:
        root = Path(tmp)
        results = {}
        if options.only in (None, "throughput"):
            for partitions in options.partitions:
                name = "throughput" if options.partitions == [4] else f"throughput_{partitions}p"
                results[name] = throughput(root, options.events, partitions)
                if options.vs_without_views:
                    results[f"{name}_without_views"] = throughput(
                        root, options.events, partitions, without_views=True
                    )
        if options.only in (None, "latency"):
            results["latency"] = latency(root, options.rate, options.seconds)
    if options.json:
        print(json.dumps(results))
        return
    for name, figures in results.items():
        print(name)
        for key, value in figures.items():
            print(f"  {key:28} {value:>12,}" if isinstance(value, int) else f"  {key:28} {value}")


if __name__ == "__main__":
    main()
