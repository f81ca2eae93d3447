"""Benchmark what ``tablewatch replay --patterns`` adds: per game, the time to take a judged
round's pattern figures (``FloorFolds.round_of``: its decisions valued, the costly part),
the one-time hold figures of the game's pay tables, and the memory a round held in the
``RoundOrder`` costs until the end of the input.

    python benchmarks/bench_replay_patterns.py [--tables 4] [--rounds 400] [--seed 3]
                                               [--games G1,G2] [--json]

Each game's floor (``Floor(tables, rounds, seed, games=(game,))``: ``rounds`` rounds in
all, an honest floor with its usual error rate) is judged by the ``Auditor`` first, not
timed. Then, in CPU time (``process_time``: the machine's load counts less): the hold
figures of every table (a game's edges computed once per pay table, a seeded Monte-Carlo
for a wager priced by a learned play), then every round's ``round_of`` (``ms/round``).
Memory: every ``round_of`` again (whatever the valuing caches is kept by then), added to a
``RoundOrder``, ``tracemalloc``'s growth over that loop (the judged rounds were made before
it) over the rounds (``bytes/round held``: a round waiting to be read), and the mean
msgpack size of one (``saved``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import tracemalloc
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import msgspec

from tablewatch.patterns.floor_folds import FloorFolds, RoundOrder
from tablewatch.rules.audit import Auditor
from tablewatch.rules.config import parse_config
from tablewatch.rules.round_result import RoundResult
from tablewatch.sim.floor import Floor
from tablewatch.sim.games import played, simulated


@dataclass(frozen=True, slots=True)
class Row:
    game: str
    rounds: int
    decisions: int
    figures_s: float  # the first round_of of each table: the hold figures
    ms_per_round: float
    bytes_per_round: float
    saved_bytes: float


def measure(game: str, tables: int, rounds: int, seed: int) -> Row:
    floor = Floor(tables, rounds, seed, games=(simulated(game),))
    configs = parse_config(floor.config)
    results = [r for r in Auditor(configs).feed_all(floor.events()) if isinstance(r, RoundResult)]
    folds = FloorFolds(configs)
    start = time.process_time()
    for table_id in configs:  # the hold figures, once per table (per pay table computed)
        folds.hold.figures_of(table_id)
    figures_s = time.process_time() - start
    start = time.process_time()
    taken = [folds.round_of(result) for result in results]
    cpu = time.process_time() - start
    del taken
    order = RoundOrder()  # again, traced: what the valuing caches is already kept
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for result in results:
        order.add(folds.round_of(result))
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    taken = order.drain()
    return Row(
        game=game,
        rounds=len(taken),
        decisions=sum(len(r.decisions) for r in taken),
        figures_s=round(figures_s, 2),
        ms_per_round=round(cpu / len(taken) * 1000, 3),
        bytes_per_round=round(held / len(taken)),
        saved_bytes=round(statistics.fmean(len(msgspec.msgpack.encode(r)) for r in taken)),
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--games", default=",".join(g.rules.name for g in played()))
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args(argv)
    rows = [
        measure(game, options.tables, options.rounds, options.seed)
        for game in options.games.split(",")
    ]
    if options.json:
        print(json.dumps([asdict(row) for row in rows], indent=2))
        return 0
    print("| game | rounds | decisions | hold figures (s) | ms/round | bytes/round held | saved |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row.game} | {row.rounds:,} | {row.decisions:,} | {row.figures_s} | "
            f"{row.ms_per_round} | {row.bytes_per_round:,.0f} | {row.saved_bytes:,.0f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
