"""``rounds show`` from the store: the time of one round's reconstruction
(:func:`tablewatch.rounds.from_store.load_round`, on a read-only reader of an embedded
store), against the same run's baseline, the one statement that reads the round's events
(``raw_events_v`` by table and ``round_id``).

    python benchmarks/bench_rounds.py [--rounds 20000] [--samples 300] [--seed 3] [--json]

A simulated floor (12 tables, error rate 5%) is judged and stored as the worker stores it
(events with their bytes, rounds, settlement lines, findings, the table directory); then
``--samples`` random rounds are reconstructed, each timed, interleaved with the baseline
read of the same round. Reported: p50 and p95 of both, in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from tablewatch import native

native.activate()

from tablewatch.config_file import entry_json  # noqa: E402
from tablewatch.rounds.from_store import load_round  # noqa: E402
from tablewatch.rules.audit import Auditor  # noqa: E402
from tablewatch.rules.config import parse_config  # noqa: E402
from tablewatch.rules.decode import decode_event, encode_event  # noqa: E402
from tablewatch.rules.judge import RoundResult  # noqa: E402
from tablewatch.sim.floor import Floor  # noqa: E402
from tablewatch.sim.games import choose  # noqa: E402
from tablewatch.store.batch import StoreBatch  # noqa: E402
from tablewatch.store.client import open_store  # noqa: E402
from tablewatch.store.migrate import migrate  # noqa: E402
from tablewatch.store.read_only import open_reader  # noqa: E402
from tablewatch.store.rollups import refresh_rollups  # noqa: E402
from tablewatch.store.sql_literals import quote  # noqa: E402
from tablewatch.store.table_directory import directory_rows, write_directory  # noqa: E402
from tablewatch.store.writer import StoreWriter  # noqa: E402

# the first two games: the floors of the published figures
FIRST_TWO = choose("let_it_ride,four_card_poker")

JUDGED_AT = 1_796_000_000_000
BATCH = 2_000


def fill(dsn: str, rounds: int) -> list[tuple[str, str]]:
    """The store of a simulated floor; the (table, round_id) of each judged round."""
    floor = Floor(12, rounds, 11, error_rate=0.05, jackpot_rate=0.02, games=FIRST_TWO)
    configs = parse_config(floor.config)
    auditor = Auditor(configs)
    judged: list[tuple[str, str]] = []
    with open_store(dsn) as client:
        migrate(client)
        entries = {t: entry_json(e) for t, e in floor.config["tables"].items()}
        write_directory(client, directory_rows(configs, entries, JUDGED_AT))
        writer = StoreWriter(client)
        batch = StoreBatch()
        for offset, event in enumerate(floor.events()):
            raw = encode_event(event)
            decoded = decode_event(raw)
            batch.add_event(raw, decoded, 0, offset, JUDGED_AT)
            outcomes = auditor.feed(decoded)
            batch.add_outcomes(outcomes, JUDGED_AT)
            judged += [(o.table_id, o.round_id) for o in outcomes if isinstance(o, RoundResult)]
            if len(batch.events) >= BATCH:
                writer.insert_batch(batch)
                batch = StoreBatch()
        batch.add_outcomes(auditor.finish(), JUDGED_AT)
        writer.insert_batch(batch)
        refresh_rollups(client)  # the rollups of what was written, as the worker keeps them
        client.command("OPTIMIZE TABLE raw_events FINAL")
    return judged


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20_000)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tw-bench-rounds-") as tmp:
        dsn = f"chdb:///{Path(tmp) / 'store'}"
        started = time.perf_counter()
        judged = fill(dsn, options.rounds)
        fill_s = time.perf_counter() - started
        reader = open_reader(dsn)
        rng = random.Random(options.seed)
        picks = [rng.choice(judged) for _ in range(options.samples)]
        shown: list[float] = []
        baseline: list[float] = []
        try:
            for table_id, round_id in picks[:10]:  # warm the engine's caches
                load_round(reader, table_id, round_id)
            for table_id, round_id in picks:
                start = time.perf_counter()
                reader.run(
                    "SELECT seq, event_id, type, round_id, payload FROM raw_events_v "
                    f"WHERE table_id = {quote(table_id)} AND round_id = {quote(round_id)} "
                    "ORDER BY ts, seq, event_id"
                )
                middle = time.perf_counter()
                load_round(reader, table_id, round_id)
                baseline.append((middle - start) * 1000)
                shown.append((time.perf_counter() - middle) * 1000)
        finally:
            reader.close()
    result: dict[str, Any] = {
        "rounds_stored": len(judged),
        "fill_seconds": round(fill_s, 1),
        "samples": len(picks),
        "load_round_ms": {"p50": round(statistics.median(shown), 1),
                          "p95": round(percentile(shown, 0.95), 1)},
        "events_read_ms": {"p50": round(statistics.median(baseline), 1),
                           "p95": round(percentile(baseline, 0.95), 1)},
    }  # fmt: skip
    if options.json:
        print(json.dumps(result))
        return
    print(
        f"{result['rounds_stored']:,} rounds stored in {result['fill_seconds']} s; "
        f"{result['samples']} rounds reconstructed: load_round p50 "
        f"{result['load_round_ms']['p50']} ms, p95 {result['load_round_ms']['p95']} ms; "
        f"the round's events alone p50 {result['events_read_ms']['p50']} ms, p95 "
        f"{result['events_read_ms']['p95']} ms"
    )


if __name__ == "__main__":
    main()
