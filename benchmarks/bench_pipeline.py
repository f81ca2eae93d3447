"""Live pipeline benchmarks, against the real broker and the embedded ClickHouse.

    python benchmarks/bench_pipeline.py [--events 100000] [--rate 1000] [--seconds 60]
                                        [--load-cores 1] [--linger-ms 100] [--poll-ms 50]
                                        [--poll recent|named]
                                        [--warmup 5] [--only throughput|latency]
                                        [--partitions 4 ...] [--vs-without-refresh] [--json]

1. Throughput: a simulated floor's events are produced to a fresh topic; then,
   in the same run, (a) raw aiokafka consumption of that topic (the floor of
   what any consumer can do here) and (b) one worker process (judging, writing
   ClickHouse, the output topics and its state) consume it from the start.
   Worker events/s = events / (time of the last event counted in /metrics -
   time of the first); also CPU time per event over the same span, of the
   worker's main thread (its event loop, where Faust and the judging run: the
   bottleneck) and of the whole process (with the Kafka client's and the
   ClickHouse writer's threads). Other load on the machine moves these less.
2. Latency, what a user waits for: ``tablewatch serve-ingest`` and a worker are
   started (the worker's /health answers 200), and ``--load-cores`` processes each
   spin one core (another service of the site; 0: a quiet machine). A floor of 12
   tables is handed out at a steady ``--rate`` events/s in its order: each table's
   controller posts its events in small POSTs, ``--linger-ms`` after the first event
   not yet posted, or at once when a round ends (one POST at a time per table). For
   each round: from the answer to the POST carrying its ``round_end`` to its row in
   ``rounds_v`` AND all its findings (its finding_count) being returned by the
   worker's /query, polled every ``--poll-ms`` with ONE statement: the same text at
   every poll, the rounds judged in the last seconds (:func:`latency_probe.recent_sql`,
   as a live page's panel refreshes; ``--poll named``, or a round awaited over 2 s:
   one naming the rounds still awaited, :func:`latency_probe.awaited_sql`). The
   polling resolution is in the figures: poll_period_ms. Rounds answered in the
   first ``--warmup`` s are not counted.
   Figures for every round and for the rounds carrying a finding; the CPU (cores)
   of the worker, the ingest endpoint, the benchmark and the load while sending, and
   the worker's CPU per poll (measured after the run: what the polling costs it).

Kafka must be running (``deploy/kafka.sh start``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

import aiohttp
import yaml
from latency_probe import (
    MAX_AWAITED_PER_POLL,
    Awaited,
    Controller,
    CpuLoad,
    Posted,
    awaited_sql,
    cpu_load,
    cpu_seconds,
    quantiles,
    recent_sql,
)

from tablewatch.kafka_access import DEFAULT_BOOTSTRAP, KafkaAccess
from tablewatch.rules.decode import encode_event
from tablewatch.rules.events import RoundEnd
from tablewatch.services import (
    child_service,
    create_topics,
    free_port,
    get_json,
    worker_args,
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


def floor_events(events: int, seed: int) -> tuple[Floor, list[tuple[str, bytes, Any]]]:
    rounds = max(1, events // 52)
    floor = Floor(12, rounds, seed, error_rate=0.05, jackpot_rate=0.02, games=FIRST_TWO)
    out = [(e.table_id, encode_event(e), e) for e in floor.events()]
    return floor, out


NO_REFRESH_S = 86_400.0  # --rollup-seconds of a worker whose rollups are not refreshed


def throughput(
    root: Path, events: int, partitions: int = 4, refresh: bool = True
) -> dict[str, Any]:
    """The worker's events per second and CPU per event; ``refresh`` False: its rollups
    not refreshed meanwhile (a baseline for the refresh's cost)."""
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
    args = [*worker_args(
        config, kafka=KAFKA, dsn=dsn,
        web_port=port, prefix=prefix, data_dir=root / f"worker-throughput-{prefix}",
    ), "--partitions", str(partitions)]  # fmt: skip
    if not refresh:
        args += ["--rollup-seconds", str(NO_REFRESH_S)]
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
        rollups = get_json(port, "/metrics").get("rollups", {})
    return {
        "events": n,
        "partitions": partitions,
        "rollups_refreshed": refresh,
        "rollup_refreshes": rollups.get("refreshes"),
        "rollup_last_seconds": rollups.get("last_seconds"),
        "raw_aiokafka_events_per_s": round(raw_rate),
        "worker_events_per_s": round(rate),
        "worker_vs_raw": round(rate / raw_rate, 4),
        "worker_main_thread_cpu_us_per_event": round(main_cpu * 1e6, 1),
        "worker_process_cpu_us_per_event": round(process_cpu * 1e6, 1),
    }


@dataclass
class PollStats:
    polls: int = 0
    capped: int = 0  # polls naming MAX_AWAITED_PER_POLL rounds while more were awaited
    named: int = 0  # polls naming the rounds awaited (the others: the recent poll)
    busy: int = 0  # /query answered other than 200 (503: its threads busy)
    query_s: list[float] = field(default_factory=list)  # each poll's round trip
    answers: list[float] = field(default_factory=list)  # when each poll was answered
    metrics: list[dict[str, Any]] = field(default_factory=list)  # /metrics, once a second


async def poll_worker(
    session: aiohttp.ClientSession,
    port: int,
    awaited: Awaited,
    every: float,
    stats: PollStats,
    stop: asyncio.Event,
    named: bool = False,
) -> None:
    """Every ``every`` s while rounds are awaited, ONE /query: the recent poll
    (:func:`latency_probe.recent_sql`; ``named``, or a round awaited longer than
    :data:`latency_probe.FALLBACK_S`: one naming the rounds awaited, the oldest first); the
    worker's /metrics once a second."""
    url = f"http://127.0.0.1:{port}"
    next_metrics = 0.0
    recent = recent_sql()
    while not stop.is_set():
        began = time.monotonic()
        pending = awaited.pending(MAX_AWAITED_PER_POLL + 1)
        if pending:
            if named or awaited.overdue(began):
                stats.named += 1
                stats.capped += len(pending) > MAX_AWAITED_PER_POLL
                asked = pending[:MAX_AWAITED_PER_POLL]
                sql = awaited_sql(asked, awaited.findings_awaited(asked))
            else:
                sql = recent
            async with session.get(f"{url}/query", params={"sql": sql}) as reply:
                body = await reply.json()
                status = reply.status
            answered = time.monotonic()
            stats.polls += 1
            if status != 200:
                stats.busy += 1
            else:
                awaited.update(body["rows"], answered)
                stats.query_s.append(answered - began)
                stats.answers.append(answered)
        if began >= next_metrics:
            async with session.get(f"{url}/metrics") as reply:
                stats.metrics.append(await reply.json())
            next_metrics = began + 1.0
        await asyncio.sleep(max(0.0, began + every - time.monotonic()))


async def drive_floor(
    stream: list[tuple[str, bytes, Any]],
    *,
    rate: float,
    seconds: float,
    ingest_url: str,
    worker_port: int,
    linger: float,
    poll_every: float,
    pids: dict[str, int],
    load: CpuLoad,
    named: bool = False,
) -> tuple[Awaited, Posted, PollStats, dict[str, float]]:
    """The floor's events handed to their tables' controllers at a steady ``rate`` in their
    order, for ``seconds``; polled until every round answered is queryable (at most 30 s
    after the last POST). Also the CPU (cores) of each of ``pids`` and of the load while
    sending, and the send's own figures."""
    awaited, posted, stats = Awaited(), Posted(), PollStats()
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        done, stop = asyncio.Event(), asyncio.Event()
        controllers = {
            table_id: Controller(session, ingest_url, linger, awaited, posted)
            for table_id in dict.fromkeys(t for t, _, _ in stream)
        }
        runs = [asyncio.create_task(c.run(done)) for c in controllers.values()]
        poller = asyncio.create_task(
            poll_worker(session, worker_port, awaited, poll_every, stats, stop, named)
        )
        cpu_before = {name: cpu_seconds(pid) for name, pid in pids.items()}
        own_before, load_before = time.process_time(), load.cpu_seconds()
        started = time.monotonic()
        count = 0
        for index, (table_id, value, event) in enumerate(stream):
            # the floor's events in their order at a steady `rate` events/s (the floor's own
            # timestamps bunch up: tables open together, then pause)
            due = index / rate
            if due > seconds:
                break
            wait = due - (time.monotonic() - started)
            if wait > 0:
                await asyncio.sleep(wait)
            ends = (event.table_id, event.round_id) if isinstance(event, RoundEnd) else None
            controllers[table_id].add(value, ends)
            count += 1
        done.set()
        await asyncio.gather(*runs)
        elapsed = time.monotonic() - started
        cpu = {
            f"{name}_cpu_cores": round((cpu_seconds(pid) - cpu_before[name]) / elapsed, 2)
            for name, pid in pids.items()
        }
        cpu["benchmark_cpu_cores"] = round((time.process_time() - own_before) / elapsed, 2)
        cpu["load_cpu_cores"] = round((load.cpu_seconds() - load_before) / elapsed, 2)
        deadline = time.monotonic() + 30
        while awaited.pending(1) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        stop.set()
        await poller
        cpu["poll_worker_cpu_ms"] = await poll_cost(
            session, worker_port, pids["worker"], awaited, named
        )
    return awaited, posted, stats, {"events_sent": count, "send_s": elapsed, **cpu}


async def poll_cost(
    session: aiohttp.ClientSession,
    port: int,
    pid: int,
    awaited: Awaited,
    named: bool,
    polls: int = 40,
) -> float:
    """The worker's CPU (ms) per poll, once the run is over: ``polls`` polls of the
    statement polled (the recent poll, reading nothing new by then; ``named``: naming the
    last 15 rounds and the findings of those carrying any), less the worker's idle CPU."""
    last = list(awaited.queryable)[-15:]
    sql = awaited_sql(last, [k for k in last if awaited.findings[k]]) if named else recent_sql()
    url = f"http://127.0.0.1:{port}/query"
    idle_from, idle_cpu = time.monotonic(), cpu_seconds(pid)
    await asyncio.sleep(2.0)
    idle = (cpu_seconds(pid) - idle_cpu) / (time.monotonic() - idle_from)
    began, cpu = time.monotonic(), cpu_seconds(pid)
    for _ in range(polls):
        async with session.get(url, params={"sql": sql}) as reply:
            await reply.read()
    spent = cpu_seconds(pid) - cpu - idle * (time.monotonic() - began)
    return round(1000 * spent / polls, 1)


def latency(
    root: Path,
    rate: float,
    seconds: float,
    *,
    load_cores: int = 1,
    linger_ms: float = 100.0,
    poll_ms: float = 50.0,
    warmup_s: float = 5.0,
    worker_extra: tuple[str, ...] = (),
    poll: str = "recent",
) -> dict[str, Any]:
    """Round end → queryable, as a user waits for it: from the answer to the POST carrying a
    round's ``round_end`` (``serve-ingest``) to its ``rounds_v`` row and all its findings
    shown by the worker's ``/query``, with ``load_cores`` cores kept busy meanwhile."""
    floor, stream = floor_events(int(rate * (seconds + warmup_s) * 1.2), seed=8)
    prefix = f"lat{uuid.uuid4().hex[:8]}-"
    create_topics(KAFKA, prefix)
    config = root / "tables-latency.yaml"
    config.write_text(yaml.safe_dump(floor.config, sort_keys=False))
    worker_port, ingest_port = free_port(), free_port()
    worker = worker_args(
        config, kafka=KAFKA, dsn=f"chdb:///{root / 'chdb-latency'}", web_port=worker_port,
        prefix=prefix, data_dir=root / "worker-latency",
    ) + list(worker_extra)  # fmt: skip
    ingest = ["serve-ingest", "--port", str(ingest_port), *KAFKA.child_args(),
              "--topics-prefix", prefix]  # fmt: skip
    ingest_url = f"http://127.0.0.1:{ingest_port}"
    worker_health = f"http://127.0.0.1:{worker_port}/health"
    with (
        child_service(worker, worker_health, root / "worker-latency.log") as worker_process,
        child_service(ingest, f"{ingest_url}/health", root / "ingest.log") as ingest_process,
        cpu_load(load_cores) as load,
    ):
        awaited, posted, stats, sent = asyncio.run(
            drive_floor(
                stream, rate=rate, seconds=seconds + warmup_s, ingest_url=f"{ingest_url}/events",
                worker_port=worker_port, linger=linger_ms / 1000, poll_every=poll_ms / 1000,
                pids={"worker": worker_process.pid, "ingest": ingest_process.pid},
                load=load, named=poll == "named",
            )
        )  # fmt: skip
    first = min(awaited.answered.values(), default=0.0)
    every, with_findings = awaited.waits(since=first + warmup_s)
    counted = sum(1 for t in awaited.answered.values() if t >= first + warmup_s)
    periods = [b - a for a, b in pairwise(stats.answers)]
    delays = [m.get("consumer_delay_ms", 0) for m in stats.metrics]
    rebalances = [m.get("rebalances", 0) for m in stats.metrics]
    latency_ms = quantiles(every)
    finding_ms = quantiles(with_findings)
    return {
        "load_cores": load_cores,
        "worker_options": " ".join(worker_extra),
        "events_sent": sent["events_sent"],
        "send_rate_events_per_s": round(sent["events_sent"] / sent["send_s"]),
        "posts": posted.posts,
        "events_per_post": round(posted.events / max(posted.posts, 1), 1),
        "post_linger_ms": linger_ms,
        "posts_retried": posted.retried,
        "events_not_accepted": posted.not_accepted,
        **{f"post_ms_{k}": v for k, v in quantiles(posted.post_s).items()},
        "warmup_s": warmup_s,
        "rounds": counted,
        "rounds_not_queryable": counted - len(every),
        **{f"latency_ms_{k}": v for k, v in latency_ms.items()},
        "rounds_with_findings": len(with_findings),
        **{f"finding_latency_ms_{k}": v for k, v in finding_ms.items()},
        "poll_every_ms": poll_ms,
        "polls": stats.polls,
        "poll": poll,
        "polls_named": stats.named,
        "polls_capped": stats.capped,
        "polls_busy": stats.busy,
        **{f"poll_period_ms_{k}": v for k, v in quantiles(periods).items()},
        **{f"query_ms_{k}": v for k, v in quantiles(stats.query_s).items()},
        # what the polls cost the worker: CPU per poll (measured after the run) times polls/s
        "poll_worker_cpu_ms": sent["poll_worker_cpu_ms"],
        "poll_worker_cpu_cores": round(
            sent["poll_worker_cpu_ms"] / 1000 * stats.polls / max(sent["send_s"], 1e-9), 3
        ),
        "worker_cpu_cores": sent["worker_cpu_cores"],
        "ingest_cpu_cores": sent["ingest_cpu_cores"],
        "benchmark_cpu_cores": sent["benchmark_cpu_cores"],
        "load_cpu_cores": sent["load_cpu_cores"],
        "consumer_delay_ms_p50": sorted(delays)[len(delays) // 2] if delays else None,
        "consumer_delay_ms_max": max(delays, default=None),
        "rebalances_during_run": rebalances[-1] - rebalances[0] if rebalances else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--rate", type=float, default=1000.0, help="latency: events/s posted")
    parser.add_argument("--seconds", type=float, default=60.0, help="latency: seconds measured")
    parser.add_argument(
        "--load-cores",
        type=int,
        default=1,
        help="latency: processes each spinning one core meanwhile (a site's other services; "
        "0: a quiet machine)  [default: 1]",
    )
    parser.add_argument(
        "--linger-ms",
        type=float,
        default=100.0,
        help="latency: a table's controller posts its events this long after the first not yet "
        "posted, or at once when a round ends  [default: 100]",
    )
    parser.add_argument(
        "--poll-ms", type=float, default=50.0, help="latency: /query poll interval  [default: 50]"
    )
    parser.add_argument(
        "--poll",
        choices=("recent", "named"),
        default="recent",
        help="latency: poll the rounds judged in the last seconds (one text, checked once), "
        "or name the rounds awaited  [default: recent]",
    )
    parser.add_argument(
        "--warmup",
        type=float,
        default=5.0,
        help="latency: seconds posted first and not counted  [default: 5]",
    )
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
        "--vs-without-refresh",
        "--vs-without-views",
        dest="vs_without_refresh",
        action="store_true",
        help="each throughput run also with the rollups not refreshed (--rollup-seconds "
        f"{NO_REFRESH_S:g}), in turn: the refresh's cost to the worker",
    )
    parser.add_argument(
        "--worker-option",
        dest="worker_options",
        action="append",
        default=[],
        help="latency: one more argument of the worker's command line (repeat it: "
        "--worker-option=--flush-ms --worker-option=100)",
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
                if options.vs_without_refresh:
                    results[f"{name}_without_refresh"] = throughput(
                        root, options.events, partitions, refresh=False
                    )
        if options.only in (None, "latency"):
            results["latency"] = latency(
                root, options.rate, options.seconds, load_cores=options.load_cores,
                linger_ms=options.linger_ms, poll_ms=options.poll_ms, warmup_s=options.warmup,
                worker_extra=tuple(options.worker_options), poll=options.poll,
            )  # fmt: skip
    if options.json:
        print(json.dumps(results))
        return
    for name, figures in results.items():
        print(name)
        for key, value in figures.items():
            print(f"  {key:32} {value:>12,}" if isinstance(value, int) else f"  {key:32} {value}")


if __name__ == "__main__":
    main()
