"""Benchmark ``tablewatch replay``: events/s from files, the store and Kafka, against the file
audit in the same run, and the peak memory of a replay of 1 M and of 10 M events.

    python benchmarks/bench_replay.py [--repeat 3] [--sources files store kafka]
                                      [--memory] [--bootstrap 127.0.0.1:9092] [--json]

Inputs, made once and kept in ``.cache/bench/``:

- the simulated floor of ``bench_audit.py`` (``tablewatch simulate --games
  let_it_ride,four_card_poker --tables 12 --rounds 20000 --seed 1 --error-rate 0.05``,
  1,080,762 events, 213 MB);
- ``replay-1m/``: an embedded store holding those events in ``raw_events`` (each table's
  chain positions in file order, as the worker would give them), written with the
  store's own row builder;
- ``replay-10m/``: the same store, grown by SQL to ten times the events: nine copies of
  every table (``INSERT ... SELECT`` with the table id and the payload's ``table_id``
  rewritten to ``<table>-c<k>``), with a configuration of the 120 tables;
- the topic ``bench-replay-table-events`` (4 partitions, keyed by table) on the broker,
  produced from the file with kafka-python.

Each measurement runs in a fresh process (the interpreter's start, the imports and
opening the store are not counted): ``audit`` is ``tablewatch audit --jobs 1 --format
json`` to /dev/null (the baseline), ``files`` / ``store`` / ``kafka`` the replay's fold
and its writing of the run's rounds and findings (``tablewatch.replay.run.replay``), set
up as ``tablewatch replay`` sets it up: the rows written behind the fold on a client of
their own (``RowsBehind``), the store's chunks read ahead on another. The
modes alternate (audit, files, store, kafka, audit, ...) and the best of ``--repeat``
is kept. ``--memory`` adds a replay of the 1 M and the 10 M store, each reporting its
peak resident memory (``ru_maxrss``, the engine in the process included).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):  # run as a script from a checkout: make the repo importable
    sys.path.insert(0, str(ROOT))

from bench_audit import CACHE, ensure_floor, quiet  # noqa: E402  (this directory, as a script)

TOPIC = "bench-replay-table-events"
COPIES = 10  # the 10 M store: the 1 M floor and nine copies of its tables


def _dsn(directory: Path) -> str:
    return f"chdb:///{directory}"


# ---- the inputs ------------------------------------------------------------------


def _load(client: Any, events: Path) -> None:
    """The file's events into ``raw_events``, each table's chained in file order."""
    from tablewatch.ingest.files import line_blocks
    from tablewatch.rules.decode import decode_lines
    from tablewatch.store.rows import EVENT_COLUMNS, event_row

    positions: dict[str, int] = {}
    rows: list[Any] = []
    for first, lines in line_blocks(events):
        decoded = decode_lines(lines, str(events), first)
        for raw, event in zip(lines, decoded.events, strict=True):
            position = positions[event.table_id] = positions.get(event.table_id, 0) + 1
            row = event_row(raw, event, -1, -1, 1_796_000_000_000)
            rows.append((*row[:10], position, "", ""))
        if len(rows) >= 100_000:
            client.insert("raw_events", rows, column_names=EVENT_COLUMNS)
            rows = []
    if rows:
        client.insert("raw_events", rows, column_names=EVENT_COLUMNS)


def _made_store(
    directory: Path, events: Path, how: str, grow: Callable[[Any], None] | None = None
) -> Path:
    """``directory`` (once, then kept: its ``.complete`` marks it done): the floor's events
    in ``raw_events``, each table chained in file order, then ``grow`` by SQL, merged."""
    done = directory / ".complete"
    if done.exists():
        return directory
    from tablewatch.store.client import open_store
    from tablewatch.store.migrate import migrate

    print(f"making {directory} (once{how}) ...", file=sys.stderr)
    with open_store(_dsn(directory)) as client:
        migrate(client)
        client.command("TRUNCATE TABLE raw_events")
        _load(client, events)
        if grow is not None:
            grow(client)
        client.command("OPTIMIZE TABLE raw_events FINAL")
        count = int(client.query("SELECT count() FROM raw_events").result_rows[0][0])
        print(f"{directory}: {count:,} events", file=sys.stderr)
    done.touch()
    return directory


def ensure_store(events: Path) -> Path:
    """``replay-1m``: the floor's events in ``raw_events``, chained in file order."""
    return _made_store(CACHE / "replay-1m", events, "")


def ensure_big_store(events: Path, config: Path) -> tuple[Path, Path]:
    """``replay-10m``: the 1 M events and nine copies of each table, by SQL; its config."""
    import yaml

    big_config = CACHE / "tables-10m.yaml"
    document = yaml.safe_load(config.read_text())
    tables = document["tables"]
    grown = dict(tables)
    for k in range(1, COPIES):
        grown.update({f"{table}-c{k}": settings for table, settings in tables.items()})
    big_config.write_text(yaml.safe_dump({"tables": grown}, sort_keys=False))

    def copies(client: Any) -> None:
        for k in range(1, COPIES):
            client.command(
                f"INSERT INTO raw_events {_EVENT_COLUMNS} "
                "SELECT concat(table_id, '-c" + str(k) + "'), event_id, "
                'seq, ts, type, round_id, replaceOne(payload, concat(\'"table_id":"\', '
                "table_id, '\"'), concat('\"table_id\":\"', table_id, '-c" + str(k) + "\"')), "
                "kafka_partition, kafka_offset, ingested_at, chain_pos, chain_prev, chain_hash "
                "FROM raw_events WHERE position(table_id, '-c') = 0"
            )

    directory = _made_store(CACHE / "replay-10m", events, ": the file, then copies by SQL", copies)
    return directory, big_config


# the columns the copies write (stored_at, the store's own, is the insert's time)
_EVENT_COLUMNS = (
    "(table_id, event_id, seq, ts, type, round_id, payload, kafka_partition, kafka_offset, "
    "ingested_at, chain_pos, chain_prev, chain_hash)"
)


def ensure_long_store(events: Path) -> Path:
    """``replay-10m-12``: the 1 M floor's 12 tables played ten times over, by SQL: copy k
    of each event has its event id's first character replaced by k, its seq, chain
    position and ts shifted past the previous copy's, its round id suffixed ``-k<k>``,
    and its payload rewritten to say the same."""

    def later_copies(client: Any) -> None:
        span_ms, seq_span, pos_span = (
            int(v)
            for v in client.query(
                "SELECT toUnixTimestamp64Milli(max(ts)) - toUnixTimestamp64Milli(min(ts)) "
                "+ 3600000, max(seq) + 1, max(chain_pos) FROM raw_events"
            ).result_rows[0]
        )
        stamp = (
            "concat(formatDateTime({t}, '%Y-%m-%dT%H:%i:%S', 'UTC'), '.', "
            "leftPad(toString(toUnixTimestamp64Milli({t}) % 1000), 3, '0'), 'Z')"
        )
        for k in range(1, COPIES):
            shift = k * span_ms
            new_ts = f"fromUnixTimestamp64Milli(toUnixTimestamp64Milli(ts) + {shift}, 'UTC')"
            new_id = f"concat('{k}', substring(event_id, 2))"
            new_round = f"if(round_id = '', '', concat(round_id, '-k{k}'))"
            new_seq = f"seq + {k * seq_span}"
            swaps = [  # (what the payload says, what it says in copy k)
                ("'\"event_id\":\"', event_id, '\"'", f"'\"event_id\":\"', {new_id}, '\"'"),
                ("'\"seq\":', toString(seq), ','", f"'\"seq\":', toString({new_seq}), ','"),
                (f"'\"ts\":\"', {stamp.format(t='ts')}, '\"'",
                 f"'\"ts\":\"', {stamp.format(t=new_ts)}, '\"'"),
                ("'\"round_id\":\"', round_id, '\"'", f"'\"round_id\":\"', {new_round}, '\"'"),
            ]  # fmt: skip
            payload = "payload"
            for old, new in swaps:
                payload = f"replaceOne({payload}, concat({old}), concat({new}))"
            client.command(
                f"INSERT INTO raw_events {_EVENT_COLUMNS} "
                f"SELECT table_id, {new_id}, seq + {k * seq_span}, "
                f"{new_ts}, type, {new_round}, {payload}, kafka_partition, kafka_offset, "
                f"ingested_at, chain_pos + {k * pos_span}, chain_prev, chain_hash "
                f"FROM raw_events WHERE seq < {seq_span}"
            )

    return _made_store(
        CACHE / "replay-10m-12", events, ": the file, then nine later copies by SQL", later_copies
    )


def ensure_topic(events: Path, bootstrap: str) -> int:
    """The floor's events in :data:`TOPIC` (produced once); how many it holds."""
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition

    from tablewatch.ingest.files import line_blocks
    from tablewatch.kafka_access import KafkaAccess
    from tablewatch.services import create_topics
    from tablewatch.topics import table_key

    lines = sum(1 for _ in events.open("rb"))
    consumer = KafkaConsumer(bootstrap_servers=bootstrap)
    try:
        parts = consumer.partitions_for_topic(TOPIC) or set()
        tps = [TopicPartition(TOPIC, p) for p in parts]
        held = sum(consumer.end_offsets(tps).values()) if tps else 0
    finally:
        consumer.close()
    if held == lines:
        return held
    if held:
        raise SystemExit(f"{TOPIC} holds {held:,} messages, not {lines:,}: delete it first")
    print(f"producing {lines:,} events to {TOPIC} (once) ...", file=sys.stderr)
    access = KafkaAccess(bootstrap)
    create_topics(access, "bench-replay-")
    producer = KafkaProducer(
        **access.kafka_python(), linger_ms=20, batch_size=1 << 20, acks=1,
        compression_type=None, max_request_size=8 << 20,
    )  # fmt: skip
    for _, block in line_blocks(events):
        for line in block:
            start = line.index(b'"table_id":"') + 12
            table = line[start : line.index(b'"', start)].decode()
            producer.send(TOPIC, key=table_key(table), value=bytes(line))
    producer.flush()
    producer.close()
    return lines


# ---- one measurement, in a child process -------------------------------------------


def child(mode: str, arguments: dict[str, str]) -> dict[str, Any]:
    from tablewatch import native

    native.activate()
    if mode == "audit":
        from tablewatch.commands.audit import audit

        args = [arguments["events"], "--config", arguments["config"], "--format", "json"]
        with tempfile.TemporaryDirectory() as tmp, quiet(Path(tmp) / "stderr.txt"):
            start = time.perf_counter()
            with contextlib.suppress(SystemExit):
                audit.main([*args, "--jobs", "1"], standalone_mode=False)
            seconds = time.perf_counter() - start
        return {"seconds": seconds, "events": int(arguments["count"]), "rss_kb": _rss_kb()}
    from tablewatch.config_file import load_config
    from tablewatch.kafka_access import KafkaAccess
    from tablewatch.replay.files import FileSource
    from tablewatch.replay.kafka_source import KafkaSource
    from tablewatch.replay.row_writer import RowsBehind
    from tablewatch.replay.run import Recorder, RunRecord, new_run_id, record_end, replay
    from tablewatch.replay.store_source import StoreSource
    from tablewatch.store.client import connect, open_store
    from tablewatch.store.migrate import migrate

    configs = load_config(Path(arguments["config"]))
    with open_store(arguments["dsn"]) as client:
        migrate(client)
        # every run starts from the same store: without the runs before it (their rows, and
        # the engine merging them in the background, would cost the later runs time)
        for table in ("replay_runs", "replay_rounds", "replay_findings"):
            client.command(f"TRUNCATE TABLE {table}")
        source: Any
        if mode == "files":
            source = FileSource([Path(arguments["events"])])
        elif mode == "store":
            wanted = arguments["tables"].split(",") if arguments.get("tables") else None
            source = StoreSource(client, tables=wanted, connect=lambda: connect(arguments["dsn"]))
        else:
            source = KafkaSource(KafkaAccess(arguments["bootstrap"]), TOPIC)
            source.ranges()
        record = RunRecord(
            new_run_id(), mode, "bench", (), "bench", "bench", int(time.time() * 1000)
        )
        recorder = Recorder(client, record, rows=RowsBehind(lambda: connect(arguments["dsn"])))
        recorder.write_run()
        start = time.perf_counter()
        replay(source, configs, recorder)
        seconds = time.perf_counter() - start
        record_end(recorder, "complete")
        if mode == "kafka":
            source.close()
    return {
        "seconds": seconds,
        "events": record.events,
        "rounds": record.rounds,
        "findings": record.findings,
        "rss_kb": _rss_kb(),
    }


def _rss_kb() -> int:
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def measure(mode: str, arguments: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", mode, json.dumps(arguments)],
        check=True, capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def best_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    best = dict(min(runs, key=lambda run: run["seconds"]))
    best["runs_s"] = [round(run["seconds"], 3) for run in runs]
    best["events_per_s"] = best["events"] / best["seconds"]
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=2, metavar=("MODE", "ARGS"), help=argparse.SUPPRESS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sources", nargs="+", default=["files", "store", "kafka"])
    parser.add_argument("--memory", action="store_true", help="1 M and 10 M store replays")
    parser.add_argument("--bootstrap", default="127.0.0.1:9092")
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    if options.child:
        print(json.dumps(child(options.child[0], json.loads(options.child[1]))))
        return
    events, config = ensure_floor()
    count = sum(1 for _ in events.open("rb"))
    scratch = Path(tempfile.mkdtemp(prefix="bench-replay-"))
    base = {"events": str(events), "config": str(config), "count": str(count)}
    arguments = {
        "audit": base,
        "files": base | {"dsn": _dsn(scratch / "files")},
        "store": base | {"dsn": _dsn(ensure_store(events))},
        "kafka": base | {"dsn": _dsn(scratch / "kafka"), "bootstrap": options.bootstrap},
    }
    if "kafka" in options.sources:
        ensure_topic(events, options.bootstrap)
    modes = ["audit", *options.sources]
    runs: dict[str, list[dict[str, Any]]] = {mode: [] for mode in modes}
    for _ in range(options.repeat):
        for mode in modes:
            runs[mode].append(measure(mode, arguments[mode]))
    results: dict[str, Any] = {"events": count, "repeat": options.repeat, "cores": os.cpu_count()}
    results["modes"] = {mode: best_of(found) for mode, found in runs.items()}
    audit_rate = results["modes"]["audit"]["events_per_s"]
    for mode in options.sources:
        results["modes"][mode]["x_audit"] = results["modes"][mode]["events_per_s"] / audit_rate
    if options.memory:
        big, big_config = ensure_big_store(events, config)
        small = measure("store", arguments["store"])
        large = measure("store", base | {"dsn": _dsn(big), "config": str(big_config)})
        long = measure("store", base | {"dsn": _dsn(ensure_long_store(events))})
        results["memory"] = {
            "1m": small,
            "10m": large,
            "10m_12_tables": long,
            "ratio": large["rss_kb"] / small["rss_kb"],
            "ratio_12_tables": long["rss_kb"] / small["rss_kb"],
        }
    if options.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{count:,} events; {results['cores']} cores; best of {options.repeat}")
    for mode, best in results["modes"].items():
        extra = f" ({best['x_audit']:.2f}x the file audit)" if "x_audit" in best else ""
        print(
            f"  {mode:6} {best['events_per_s']:>10,.0f} events/s{extra}; runs "
            f"{best['runs_s']} s; peak RSS {best['rss_kb'] / 1024:,.0f} MiB"
        )
    if options.memory:
        memory = results["memory"]
        for name in ("1m", "10m", "10m_12_tables"):
            run = memory[name]
            rate = run["events"] / run["seconds"]
            print(
                f"  store replay of {run['events']:,} events: {rate:,.0f} events/s, "
                f"peak RSS {run['rss_kb'] / 1024:,.0f} MiB"
            )
        print(
            f"  peak RSS 10 M / 1 M: {memory['ratio']:.2f} (120 tables), "
            f"{memory['ratio_12_tables']:.2f} (12 tables)"
        )


if __name__ == "__main__":
    main()
