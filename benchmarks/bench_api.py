"""The auditor API on a large store: the round reconstruction and the findings list.

    python benchmarks/bench_api.py [--rounds 1150000] [--seed-rounds 10000] [--tables 24]
                                   [--dir DIR] [--reuse] [--requests 300] [--worker]
                                   [--events-copies N] [--expand-from K] [--json]

Filling the store fast (at least 1 M rounds and 10 M settlement lines): a simulated
floor of ``--seed-rounds`` rounds (``tablewatch/sim``, ``--tables`` tables, errors
injected) is audited and written as the worker writes it (raw events, rounds,
settlement lines, findings, the table directory). SQL then expands it in place: each
copy ``k`` of the seed is one ``INSERT ... SELECT`` per table of records, from the seed's
rows, with

- every id made new: ``round_id``, ``event_id`` and ``start_event_id`` get ``.k``
  appended, in the columns, in ``findings.event_ids`` and in the stored payloads
  (``replaceOne`` on the payload's own ``"event_id":"..."``, ``"round_id":"..."``); a
  finding's id is the MD5 of the seed's id and ``k``;
- time moved on by ``k`` times the seed's span (plus a minute), in the columns and in the
  payloads' ``"ts"``, and ``seq`` by ``k`` times 10,000,000 (payload too), so that every
  table's copies follow one another in time and in sequence as one long history;
- everything else as the seed's: the same cards, wagers, settlements and findings.

A copied round is therefore a genuine round to the reconstruction: its events decode,
judge again and give the seed round's findings. The judged tables are then
``OPTIMIZE``d (the worker's parts are merged in the background in production too).

Writing the raw events is most of the cost (about 54 events a round, 62 M for 1.15 M
rounds: on this shared machine 3 to 5 minutes per 8 copies). ``--events-copies N`` copies
the events of the first N copies only (the rounds, lines and findings of all), and the
rounds reconstructed are drawn from those; ``--expand-from K`` goes on expanding a store
filled up to copy K - 1.

Measured, in the same process and the same run: the API over HTTP (uvicorn on a thread,
httpx with keep-alive) and, as the baseline, the same reads called directly on the same
readers (no HTTP, no JSON), for
- the reconstruction of random rounds (p50, p95): ``GET /api/v1/rounds/{table}/{round}``;
- the findings list with filters (p95): a check, a table, a check, a table and a time
  window, a severity and a time window, another check; and the second page by cursor
  (``limit=100``).
Targets: reconstruction p95 <= 50 ms, findings page p95 <= 200 ms.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):  # run as a script from a checkout: make the repo importable
    sys.path.insert(0, str(ROOT))

from tablewatch import native  # noqa: E402

native.activate()  # the seed is simulated and audited by the compiled rules when built

import httpx  # noqa: E402

from tablewatch.api.app import create_app  # noqa: E402
from tablewatch.api.filters import Filters  # noqa: E402
from tablewatch.api.reads import list_findings  # noqa: E402
from tablewatch.api.sources import (  # noqa: E402
    ReaderPool,
    RowSource,
    WorkerSource,
    open_product_reader,
)
from tablewatch.config_file import entry_json  # noqa: E402
from tablewatch.rounds.from_store import load_round  # noqa: E402
from tablewatch.rules.audit import Auditor  # noqa: E402
from tablewatch.rules.config import parse_config  # noqa: E402
from tablewatch.rules.decode import decode_event, encode_event  # noqa: E402
from tablewatch.sim.floor import Floor  # noqa: E402
from tablewatch.sim.games import choose  # noqa: E402
from tablewatch.store.batch import StoreBatch  # noqa: E402
from tablewatch.store.client import Client, connect, open_store  # noqa: E402
from tablewatch.store.migrate import migrate  # noqa: E402
from tablewatch.store.rollups import refresh_rollups  # noqa: E402
from tablewatch.store.table_directory import directory_rows, write_directory  # noqa: E402
from tablewatch.store.writer import StoreWriter  # noqa: E402

# the first two games: the floors of the published figures
FIRST_TWO = choose("let_it_ride,four_card_poker")

SEQ_STEP = 10_000_000
JUDGED_AT = 1_796_000_000_000


def seed(client: Client, tables: int, rounds: int, error_rate: float = 0.05) -> None:
    """The simulated floor, audited and written as the worker writes it."""
    floor = Floor(tables, rounds, 3, error_rate, 0.02, FIRST_TWO)
    auditor = Auditor(parse_config(floor.config))
    writer = StoreWriter(client)
    batch = StoreBatch()
    for offset, event in enumerate(floor.events()):
        raw = encode_event(event)
        decoded = decode_event(raw)
        batch.add_event(raw, decoded, 0, offset, JUDGED_AT)
        batch.add_outcomes(list(auditor.feed(decoded)), JUDGED_AT)
        if len(batch.events) >= 50_000:
            writer.insert_batch(batch)
            batch = StoreBatch()
    batch.add_outcomes(list(auditor.finish()), JUDGED_AT)
    writer.insert_batch(batch)
    entries = {t: entry_json(e) for t, e in floor.config["tables"].items()}
    write_directory(client, directory_rows(parse_config(floor.config), entries, JUDGED_AT))


def _ts_text(column: str) -> str:
    """A DateTime64(3) column as the protocol writes it (2026-11-29T18:01:04.344Z)."""
    return (
        f"concat(formatDateTime({column}, '%Y-%m-%dT%H:%i:%S'), '.', "
        f"leftPad(toString(toUnixTimestamp64Milli({column}) % 1000), 3, '0'), 'Z')"
    )


def expand(
    client: Client,
    copies: int,
    span_ms: int,
    *,
    first: int = 1,
    events_until: int | None = None,
    per_statement: int = 8,
) -> None:
    """Copies ``first`` to ``copies`` of the seed rows (see the module's docstring); the raw
    events of copies up to ``events_until`` only (None: of all)."""
    k = "toString(n.number)"
    shift = f"n.number * {span_ms}"
    # the seed's rows: judged (stored) at JUDGED_AT, their copies 1 ms later
    seed_only = f"judged_at = fromUnixTimestamp64Milli({JUDGED_AT}, 'UTC')"
    copied = f"fromUnixTimestamp64Milli({JUDGED_AT + 1}, 'UTC')"
    for start in range(first, copies + 1, per_statement):
        stop = min(copies + 1, start + per_statement)
        numbers = f"(SELECT number FROM numbers({start}, {stop - start})) AS n"
        new_ts = f"addMilliseconds(ts, {shift})"
        if events_until is None or start <= events_until:
            last = stop if events_until is None else min(stop, events_until + 1)
            events = f"(SELECT number FROM numbers({start}, {last - start})) AS n"
            _copy_events(client, events, new_ts, k, seq_shift=f"n.number * {SEQ_STEP}",
                         copied=copied)  # fmt: skip
        _copy_judged(client, numbers, k, shift, seed_only, copied)
        print(f"  copies {start}-{stop - 1} of {copies}", flush=True)


def _copy_events(
    client: Client, numbers: str, new_ts: str, k: str, *, seq_shift: str, copied: str
) -> None:
    client.command(
        f"""INSERT INTO raw_events (table_id, event_id, seq, ts, type, round_id, payload,
                kafka_partition, kafka_offset, ingested_at, chain_pos, chain_prev, chain_hash)
            SELECT table_id, concat(event_id, '.', {k}), seq + {seq_shift},
                {new_ts}, type, if(round_id = '', '', concat(round_id, '.', {k})),
                replaceOne(replaceOne(replaceOne(replaceOne(payload,
                    concat('"event_id":"', event_id, '"'),
                    concat('"event_id":"', event_id, '.', {k}, '"')),
                    concat('"seq":', toString(seq), ','),
                    concat('"seq":', toString(seq + {seq_shift}), ',')),
                    concat('"ts":"', {_ts_text("ts")}, '"'),
                    concat('"ts":"', {_ts_text(new_ts)}, '"')),
                    concat('"round_id":"', round_id, '"'),
                    if(round_id = '', '', concat('"round_id":"', round_id, '.', {k}, '"'))),
                kafka_partition, kafka_offset, {copied}, chain_pos, chain_prev, chain_hash
            FROM raw_events CROSS JOIN {numbers}
            WHERE ingested_at = fromUnixTimestamp64Milli({JUDGED_AT}, 'UTC')"""
    )


def _copy_judged(client: Client, numbers: str, k: str, shift: str, seed_only: str,
                 copied: str) -> None:  # fmt: skip
    """The rounds, settlement lines and findings of the copies of ``numbers``."""
    client.command(
        f"""INSERT INTO rounds (table_id, round_id, start_event_id, game, start_ts, end_ts,
            dealer_id, deck_id, seats, wagered, paid, voided, complete, finding_count,
            judged_at)
        SELECT table_id, concat(round_id, '.', {k}), concat(start_event_id, '.', {k}), game,
            addMilliseconds(start_ts, {shift}), addMilliseconds(end_ts, {shift}), dealer_id,
            deck_id, seats, wagered, paid, voided, complete, finding_count, {copied}
        FROM rounds CROSS JOIN {numbers} WHERE {seed_only}"""
    )
    client.command(
        f"""INSERT INTO settlements (table_id, round_id, start_event_id, seat, bet, stake,
            expected_result, expected_paid, actual_result, actual_paid, start_ts, judged_at,
            game)
        SELECT table_id, concat(round_id, '.', {k}), concat(start_event_id, '.', {k}), seat,
            bet, stake, expected_result, expected_paid, actual_result, actual_paid,
            addMilliseconds(start_ts, {shift}), {copied}, game
        FROM settlements CROSS JOIN {numbers} WHERE {seed_only}"""
    )
    client.command(
        f"""INSERT INTO findings (finding_id, table_id, round_id, start_event_id, check,
            severity, regulation, seat, bet, expected, actual, message, event_ids, ts,
            judged_at)
        SELECT lower(hex(MD5(concat(finding_id, '.', {k})))), table_id,
            if(round_id = '', '', concat(round_id, '.', {k})),
            if(start_event_id = '', '', concat(start_event_id, '.', {k})), check, severity,
            regulation, seat, bet, expected, actual, message,
            arrayMap(e -> concat(e, '.', {k}), event_ids),
            if(ts IS NULL, NULL, addMilliseconds(assumeNotNull(ts), {shift})), {copied}
        FROM findings CROSS JOIN {numbers} WHERE {seed_only}"""
    )


def fill(
    directory: Path,
    rounds: int,
    seed_rounds: int,
    tables: int,
    *,
    first: int = 1,
    events_until: int | None = None,
    error_rate: float = 0.05,
) -> dict[str, Any]:
    """Seed and expand the store (``first`` > 1: go on expanding a store filled up to
    copy ``first - 1``; ``error_rate``: the seed floor's)."""
    dsn = f"chdb:///{directory}"
    client = connect(dsn)
    try:
        migrate(client)
        started = time.perf_counter()
        if first == 1:
            seed(client, tables, seed_rounds, error_rate)
        ((low, high),) = client.query(
            "SELECT toUnixTimestamp64Milli(min(ts)), toUnixTimestamp64Milli(max(ts)) "
            f"FROM raw_events WHERE ingested_at = fromUnixTimestamp64Milli({JUDGED_AT}, 'UTC')"
        ).result_rows
        seeded = time.perf_counter() - started
        copies = max(0, -(-rounds // seed_rounds) - 1)
        started = time.perf_counter()
        expand(client, copies, int(high) - int(low) + 60_000, first=first,
               events_until=events_until)  # fmt: skip
        expanded = time.perf_counter() - started
        started = time.perf_counter()
        refresh_rollups(client)  # the rollups of what was written, as the worker keeps them
        for table in ("rounds", "settlements", "findings", "round_index"):
            client.command(f"OPTIMIZE TABLE {table} FINAL")
        optimized = time.perf_counter() - started
        return {"seed_s": seeded, "expand_s": expanded, "optimize_s": optimized, **counts(client)}
    finally:
        client.close()


def counts(client: Client) -> dict[str, int]:
    out = {}
    for view in ("raw_events_v", "rounds_v", "settlements_v", "findings_v"):
        out[view] = int(client.query(f"SELECT count() FROM {view}").result_rows[0][0])
    return out


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def timed(call: Callable[[], Any], times: list[float]) -> Any:
    started = time.perf_counter()
    out = call()
    times.append((time.perf_counter() - started) * 1000)
    return out


def measure(
    directory: Path, requests: int, worker: bool, events_copies: int | None
) -> dict[str, Any]:
    dsn = f"chdb:///{directory}"
    pool = ReaderPool(lambda: open_product_reader(dsn), size=4)
    rounds, filters = samples(pool, requests, events_copies)
    results: dict[str, Any] = {"rounds_sampled": len(rounds), "findings_queries": len(filters)}
    results.update(timings(pool, rounds, filters, direct=True, label=""))
    pool.close()
    if worker:
        with running_worker(directory) as url:
            source = WorkerSource(url)
            results.update(timings(source, rounds, filters, direct=False, label="_via_worker"))
            source.close()
    return results


@contextmanager
def running_worker(directory: Path) -> Iterator[str]:
    """A real worker (Kafka topics of its own) holding the store; its web URL."""
    import uuid

    import yaml

    from tablewatch.kafka_access import DEFAULT_BOOTSTRAP, KafkaAccess
    from tablewatch.services import child_service, create_topics, free_port, worker_args

    root = directory.parent
    config = root / "tables.yaml"
    floor = Floor(TABLES_OF.get(directory, 24), 1, 3, games=FIRST_TWO)
    config.write_text(yaml.safe_dump(floor.config, sort_keys=False))
    kafka = KafkaAccess(DEFAULT_BOOTSTRAP)
    prefix = f"bench-api-{uuid.uuid4().hex[:6]}-"
    create_topics(kafka, prefix)
    port = free_port()
    args = worker_args(
        config, kafka=kafka, dsn=f"chdb:///{directory}", web_port=port, prefix=prefix,
        data_dir=root / f"worker-{prefix}",
    )  # fmt: skip
    with child_service(args, f"http://127.0.0.1:{port}/health", root / "worker.log"):
        yield f"http://127.0.0.1:{port}"


TABLES_OF: dict[Path, int] = {}


def samples(
    pool: ReaderPool, requests: int, events_copies: int | None
) -> tuple[list[tuple[str, str]], list[dict[str, Any]]]:
    """Random rounds to reconstruct, and findings filters."""
    rng = random.Random(5)
    # rounds whose events were copied (the seed's, copy 0, and those up to --events-copies)
    copy = "toUInt32OrZero(splitByChar('.', round_id)[2])"
    upto = f" AND {copy} <= {int(events_copies)}" if events_copies is not None else ""
    sample = pool.run(
        "SELECT table_id, round_id FROM rounds_v WHERE cityHash64(round_id) % 97 = 3"
        f"{upto} LIMIT 5000"
    ).rows
    rounds = [(str(t), str(r)) for t, r in rng.sample(list(sample), min(requests, len(sample)))]
    tables = sorted({t for t, _ in rounds})
    (span,) = pool.run(
        "SELECT toUnixTimestamp64Milli(min(ts)), toUnixTimestamp64Milli(max(ts)) FROM findings_v"
    ).rows
    day = 86_400_000

    def window() -> tuple[str, str]:
        from tablewatch.rules.events import ms_to_ts

        width = min(7 * day, (int(span[1]) - int(span[0])) // 4)  # a week, or less
        start = rng.randint(int(span[0]), int(span[1]) - width)
        return ms_to_ts(start), ms_to_ts(start + width)

    filters: list[dict[str, Any]] = []
    for _ in range(requests // 5 + 1):
        since, until = window()
        filters += [
            {"check": "WRONG_PAYOUT"},
            {"table": rng.choice(tables)},
            {"check": "WRONG_PAYOUT", "table": rng.choice(tables), "since": since, "until": until},
            {"severity": "critical", "since": since, "until": until},
            {"check": rng.choice(["BET_AFTER_LOCKOUT", "DUPLICATE_CARD", "UNSETTLED_WAGER"])},
        ]
    return rounds, filters[:requests]


def timings(
    source: RowSource,
    rounds: list[tuple[str, str]],
    filters: list[dict[str, Any]],
    *,
    direct: bool,
    label: str,
) -> dict[str, Any]:
    """The API over HTTP on ``source``, and (``direct``) the same reads called directly."""
    from tests.api.live_server import served

    results: dict[str, Any] = {}
    app = create_app(source)
    with served(app) as base, httpx.Client(base_url=base, timeout=60) as http:
        http.get("/health").raise_for_status()
        times: list[float] = []
        if direct:
            for table_id, round_id in rounds:
                timed(lambda t=table_id, r=round_id: load_round(source, t, r), times)  # type: ignore[misc]
            results["reconstruction_direct"] = _summary(times)
            print(f"  reconstruction_direct: {results['reconstruction_direct']}", flush=True)
        times = []
        for table_id, round_id in rounds:
            reply = timed(
                lambda t=table_id, r=round_id: http.get(f"/api/v1/rounds/{t}/{r}"),  # type: ignore[misc]
                times,
            )
            reply.raise_for_status()
        results[f"reconstruction_http{label}"] = _summary(times)
        print(f"  reconstruction_http{label}: {results[f'reconstruction_http{label}']}", flush=True)
        pages = (("findings_direct", "direct"),) if direct else ()
        for name, page in (*pages, (f"findings_http{label}", "http")):
            times = []
            cursor_times: list[float] = []
            for params in filters:
                if page == "direct":
                    got = timed(lambda p=params: list_findings(source, Filters(**p)), times)  # type: ignore[misc]
                    cursor = got.next_cursor
                else:
                    reply = timed(lambda p=params: http.get("/api/v1/findings", params=p), times)  # type: ignore[misc]
                    reply.raise_for_status()
                    cursor = reply.json()["next_cursor"]
                if cursor and page == "http":
                    nxt = timed(
                        lambda p=params, c=cursor: http.get(  # type: ignore[misc]
                            "/api/v1/findings", params={**p, "cursor": c}
                        ),
                        cursor_times,
                    )
                    nxt.raise_for_status()
            results[name] = _summary(times)
            print(f"  {name}: {results[name]}", flush=True)
            if cursor_times:
                results[f"findings_next_page_http{label}"] = _summary(cursor_times)
    return results


def _summary(times: list[float]) -> dict[str, float]:
    return {
        "n": len(times),
        "p50_ms": round(statistics.median(times), 1),
        "p95_ms": round(percentile(times, 95), 1),
        "max_ms": round(max(times), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1_150_000)
    parser.add_argument("--seed-rounds", type=int, default=10_000)
    parser.add_argument("--tables", type=int, default=24)
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument("--reuse", action="store_true", help="measure the store in --dir as it is")
    parser.add_argument(
        "--expand-from", type=int, default=1, help="go on expanding --dir from this copy"
    )
    parser.add_argument(
        "--events-copies", type=int, default=None,
        help="copy the raw events of the first N copies only (default: of every copy)",
    )  # fmt: skip
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--worker", action="store_true", help="also through a real worker's /query (Kafka)"
    )
    args = parser.parse_args()
    directory = (args.dir or Path(tempfile.mkdtemp(prefix="bench-api-")) / "store").resolve()
    out: dict[str, Any] = {"store": str(directory)}
    if not args.reuse:
        print(f"filling {directory} ...", flush=True)
        out["fill"] = fill(directory, args.rounds, args.seed_rounds, args.tables,
                           first=args.expand_from, events_until=args.events_copies)  # fmt: skip
        print(json.dumps(out["fill"]), flush=True)
    else:  # a store filled by an older schema gets what the reads of today's need, merged
        with open_store(f"chdb:///{directory}") as client:
            if migrate(client):  # as the fill merges what it wrote
                client.command("OPTIMIZE TABLE round_index FINAL")
    TABLES_OF[directory] = args.tables
    out.update(measure(directory, args.requests, args.worker, args.events_copies))
    if args.json:
        print(json.dumps(out))
        return
    for key, value in out.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
