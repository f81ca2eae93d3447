"""ClickHouse insert speed on the embedded engine, as the worker writes: batches of
``--batch`` messages (the worker flushes every 2,000 messages or 250 ms), each one insert
per table through :class:`~tablewatch.store.writer.StoreWriter`.

    python benchmarks/bench_store.py [--rounds 20000] [--batch 2000] [--repeat 3]
                                     [--vs-upto 0010] [--json]

A simulated floor (12 tables, error rate 5%) is judged by the rules engine once; its
event rows and its rounds' rows (rounds, settlement lines, findings) are then inserted
into a fresh store each repeat, events first, and timed apart: events rows/s, and
judged-round rows/s (all three tables together). The rows are built before the clock
starts (rows.py's builders are the worker's, measured in docs/store.md).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from clickhouse_connect.driver.client import Client

from tablewatch import native

native.activate()

from tablewatch.rules.audit import Auditor  # noqa: E402
from tablewatch.rules.config import parse_config  # noqa: E402
from tablewatch.rules.decode import decode_event, encode_event  # noqa: E402
from tablewatch.sim.floor import Floor  # noqa: E402
from tablewatch.sim.games import choose  # noqa: E402
from tablewatch.store.batch import StoreBatch  # noqa: E402
from tablewatch.store.client import open_store  # noqa: E402
from tablewatch.store.migrate import available, migrate  # noqa: E402
from tablewatch.store.writer import StoreWriter  # noqa: E402

# the first two games: the floors of the published figures
FIRST_TWO = choose("let_it_ride,four_card_poker")

JUDGED_AT = 1_796_000_000_000


def batches(rounds: int, size: int) -> list[StoreBatch]:
    """The floor's rows, ``size`` messages (events) to a batch with the rounds they end."""
    floor = Floor(12, rounds, 11, error_rate=0.05, jackpot_rate=0.02, games=FIRST_TWO)
    auditor = Auditor(parse_config(floor.config))
    out: list[StoreBatch] = [StoreBatch()]
    for offset, event in enumerate(floor.events()):
        raw = encode_event(event)
        decoded = decode_event(raw)
        if len(out[-1].events) >= size:
            out.append(StoreBatch())
        batch = out[-1]
        batch.add_event(raw, decoded, 0, offset, JUDGED_AT)
        batch.add_outcomes(auditor.feed(decoded), JUDGED_AT)
    out[-1].add_outcomes(auditor.finish(), JUDGED_AT)
    return out


def schema(client: Client, upto: str | None) -> None:
    """Every migration, or those up to version ``upto`` (a baseline without later ones)."""
    if upto is None:
        migrate(client)
        return
    for migration in available():
        if migration.version <= upto:
            for statement in migration.statements():
                client.command(statement)


def run(prepared: list[StoreBatch], root: Path, upto: str | None) -> dict[str, float]:
    with open_store(f"chdb:///{root}") as client:
        schema(client, upto)
        writer = StoreWriter(client)
        event_s = judged_s = 0.0
        for batch in prepared:
            start = time.perf_counter()
            writer.insert(events=batch.events)
            middle = time.perf_counter()
            writer.insert(
                rounds=batch.rounds, settlements=batch.settlements, findings=batch.findings
            )
            event_s += middle - start
            judged_s += time.perf_counter() - middle
    return {"event_seconds": event_s, "judged_seconds": judged_s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20_000)
    parser.add_argument("--batch", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--vs-upto",
        metavar="VERSION",
        help="also the schema of the migrations up to VERSION alone, interleaved (a baseline)",
    )
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    prepared = batches(options.rounds, options.batch)
    events = sum(len(b.events) for b in prepared)
    rounds = sum(len(b.rounds) for b in prepared)
    judged = sum(len(b.rounds) + len(b.settlements) + len(b.findings) for b in prepared)
    schemas: list[str | None] = [None] + ([options.vs_upto] if options.vs_upto else [])
    runs: dict[str | None, list[dict[str, float]]] = {s: [] for s in schemas}
    for i in range(options.repeat):
        for upto in schemas:
            with tempfile.TemporaryDirectory(prefix="tw-bench-store-") as tmp:
                runs[upto].append(run(prepared, Path(tmp) / f"run{i}", upto))
    result: dict[str, Any] = {
        "events": events,
        "rounds": rounds,
        "judged_rows": judged,
        "batches": len(prepared),
    }
    for upto, measured in runs.items():
        label = "" if upto is None else f"_upto_{upto}"
        result[f"event_rows_per_s{label}"] = [round(events / r["event_seconds"]) for r in measured]
        result[f"judged_rows_per_s{label}"] = [
            round(judged / r["judged_seconds"]) for r in measured
        ]
        result[f"rounds_per_s{label}"] = [round(rounds / r["judged_seconds"]) for r in measured]
    if options.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"  {key:30} {value}")


if __name__ == "__main__":
    main()
