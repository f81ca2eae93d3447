"""What the Monte-Carlo decision values cost: Four Card Poker's play size, per decision not
cached, and Ultimate Texas Hold 'Em's raise before the flop, a class's first estimate and
then a decision of a class already estimated.

    python benchmarks/bench_decision_values.py [--hands 40] [--classes 12] [--seed 1]

Random hands from ``--seed``; on the compiled rules when a build matches the sources.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence

from tablewatch import native

WARM_REPEATS = 50


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=40, help="Four Card Poker decisions")
    parser.add_argument("--classes", type=int, default=12, help="pre-flop classes estimated")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    status = native.activate()
    from tablewatch.rules.games.four_card_poker import decision_values as four_card
    from tablewatch.rules.games.ultimate_texas_holdem import decision_values as holdem

    rng = random.Random(args.seed)
    started = time.perf_counter()
    for _ in range(args.hands):
        cards = rng.sample(range(52), 6)
        four_card.play_chances(tuple(sorted(cards[:5])), cards[5])
    per_hand = (time.perf_counter() - started) / args.hands
    holes: list[tuple[int, int]] = []
    known: set[tuple[int, int]] = set()
    while len(holes) < args.classes:
        a, b = sorted(rng.sample(range(52), 2))
        suits = holdem.suit_map((a, b))
        key = ((a & ~3) | suits[a & 3], (b & ~3) | suits[b & 3])
        if key not in known:
            known.add(key)
            holes.append((a, b))
    started = time.perf_counter()
    for hole in holes:
        holdem.preflop_values(hole, "A")
    cold = (time.perf_counter() - started) / len(holes)
    started = time.perf_counter()
    for _ in range(WARM_REPEATS):
        for hole in holes:
            holdem.preflop_values(hole, "A")
    warm = (time.perf_counter() - started) / (WARM_REPEATS * len(holes))
    print(f"rules: {'compiled' if status.active else 'Python'} ({status.reason})")
    print(f"Four Card Poker play size: {per_hand * 1e3:.1f} ms a decision ({args.hands} hands)")
    print(
        f"Ultimate Texas Hold 'Em before the flop: {cold * 1e3:.0f} ms a class's first "
        f"estimate ({len(holes)} classes), then {warm * 1e6:.0f} µs a decision"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
