"""Benchmark the hand evaluators of ``tablewatch.rules.hands``.

    python benchmarks/bench_hands.py [--json] [--hands 300000] [--batch 10000000]

Prints 5-card evaluations per second through our public scalar API and
through treys and eval7 (if installed) on the same random hands (converted to
each library's card objects before timing), our batch rates, the other scalar
evaluators, and the table build times.  Every figure is the best of 3 runs
(time.perf_counter).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

if __package__ in (None, ""):  # run as a script from a checkout: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablewatch.rules.cards import card_text
from tablewatch.rules.hands import (
    all_combinations,
    best4of5,
    best4of5_batch,
    best4of6,
    best5of6,
    n_combinations,
    strength3,
    strength4,
    strength5,
    strength5_batch,
)
from tablewatch.rules.hands import colex as colex_module
from tablewatch.rules.hands.five_card import rank_strength5
from tablewatch.rules.hands.keyed_tables import RANK_KEYS_5, build_keyed_tables

SEED = 20240607
REPEATS = 3


def best_time(run: Callable[[], object], repeats: int = REPEATS) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def random_hands(rng: np.random.Generator, n: int, k: int) -> npt.NDArray[np.uint8]:
    """``n`` uniformly random ``k``-card hands, cards in random order within a row."""
    out = np.empty((n, k), dtype=np.uint8)
    step = 1 << 20
    for start in range(0, n, step):
        m = min(step, n - start)
        if k == 5:  # a uniform colex index is a uniform hand; then shuffle each row
            rows = all_combinations(52, 5)[rng.integers(0, n_combinations(52, 5), m)]
            order = np.argsort(rng.random((m, k), dtype=np.float32), axis=1)
            out[start : start + m] = np.take_along_axis(rows, order, axis=1)
        else:
            keys = rng.random((m, 52), dtype=np.float32)
            out[start : start + m] = np.argsort(keys, axis=1)[:, :k]
    return out


def scalar_rate(func: Callable[[Any], object], hands: Sequence[Any]) -> float:
    def run() -> None:
        for hand in hands:
            func(hand)

    return len(hands) / best_time(run)


def peer_rates(hands: list[tuple[int, ...]]) -> dict[str, float | None]:
    rates: dict[str, float | None] = {"treys": None, "eval7": None}
    try:
        import treys
    except ImportError:
        pass
    else:
        as_treys = [[treys.Card.new(card_text(c)) for c in hand] for hand in hands]
        pairs = [(h[:2], h[2:]) for h in as_treys]
        evaluate = treys.Evaluator().evaluate

        def run_treys() -> None:
            for hand, board in pairs:
                evaluate(hand, board)

        rates["treys"] = len(pairs) / best_time(run_treys)
    try:
        import eval7
    except ImportError:
        pass
    else:
        as_eval7 = [[eval7.Card(card_text(c)) for c in hand] for hand in hands]
        rates["eval7"] = scalar_rate(eval7.evaluate, as_eval7)
    return rates


def build_times() -> dict[str, float]:
    uncached_combos = colex_module._all_combinations.__wrapped__
    combos = all_combinations(52, 5)
    strength5_batch(combos[:10])  # batch lookup data, so the next line times only the gather
    return {
        "keyed_tables5_s": best_time(lambda: build_keyed_tables(5, RANK_KEYS_5, rank_strength5)),
        "all_combinations_52_5_s": best_time(lambda: uncached_combos(52, 5, np.dtype(np.uint8))),
        "five_card_table_s": best_time(lambda: strength5_batch(combos)),
    }


def run(n_hands: int, n_batch: int) -> dict[str, Any]:
    rng = np.random.default_rng(SEED)
    start = time.perf_counter()
    strength5((0, 5, 10, 15, 20))
    first_call = time.perf_counter() - start
    hands5 = [tuple(int(c) for c in row) for row in random_hands(rng, n_hands, 5)]
    hands6 = [tuple(int(c) for c in row) for row in random_hands(rng, n_hands, 6)]
    results: dict[str, Any] = {"hands": n_hands, "batch_hands": n_batch}
    results["scalar5_per_s"] = {"tablewatch": scalar_rate(strength5, hands5), **peer_rates(hands5)}
    results["scalar_other_per_s"] = {
        "strength4": scalar_rate(strength4, [h[:4] for h in hands5]),
        "strength3": scalar_rate(strength3, [h[:3] for h in hands5]),
        "best4of5": scalar_rate(best4of5, hands5),
        "best4of6": scalar_rate(best4of6, hands6),
        "best5of6": scalar_rate(best5of6, hands6),
    }
    batch = random_hands(rng, n_batch, 5)
    combos = all_combinations(52, 5)
    results["batch_per_s"] = {
        "strength5_batch_random": n_batch / best_time(lambda: strength5_batch(batch)),
        "strength5_batch_all_2598960": len(combos) / best_time(lambda: strength5_batch(combos)),
        "best4of5_batch_random": n_batch / best_time(lambda: best4of5_batch(batch)),
    }
    results["build_s"] = {"strength5_first_call_s": first_call, **build_times()}
    assert len(combos) == n_combinations(52, 5)
    return results


def print_table(results: dict[str, Any]) -> None:
    scalar = results["scalar5_per_s"]
    ours = scalar["tablewatch"]
    print(f"5-card scalar, {results['hands']:,} random hands (evals/s, best of {REPEATS})")
    for name, rate in scalar.items():
        if rate is None:
            print(f"  {name:<28} not installed")
        else:
            print(f"  {name:<28} {rate / 1e6:8.2f} M/s   ours x{ours / rate:5.2f}")
    print("other scalar evaluators (evals/s)")
    for name, rate in results["scalar_other_per_s"].items():
        print(f"  {name:<28} {rate / 1e6:8.2f} M/s")
    print("batch (hands/s)")
    for name, rate in results["batch_per_s"].items():
        print(f"  {name:<28} {rate / 1e6:8.2f} M/s")
    print("table build (s)")
    for name, seconds in results["build_s"].items():
        print(f"  {name:<28} {seconds:8.3f} s")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="print results as JSON")
    parser.add_argument("--hands", type=int, default=300_000, help="scalar hands")
    parser.add_argument("--batch", type=int, default=10_000_000, help="batch hands")
    args = parser.parse_args(argv)
    results = run(args.hands, args.batch)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print_table(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
