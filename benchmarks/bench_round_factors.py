"""The mean of the product of one Ultimate Texas Hold 'Em round's two likelihood-ratio
factors (before the flop, on the flop) for an honest seat: his two cards, a check before
the flop, the known strategy on the flop.

    python benchmarks/bench_round_factors.py [--hole "Qc 7d"] [--flops 200] [--seed 1]

Each factor of ``patterns/advantage_play.py`` has mean 1 over the dealer's first card;
the product's mean is estimated over ``--flops`` flops drawn (from ``--seed``), each with
every first card the dealer could hold (exact given the flop), for each alternative.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
from collections.abc import Sequence

from tablewatch.patterns.advantage_play import ALTERNATIVES, increment
from tablewatch.rules.cards import parse_cards
from tablewatch.rules.game_rules import DecisionValue
from tablewatch.rules.games.ultimate_texas_holdem import decision_values as holdem

LETTER = "A"


def ratio(
    taken: str,
    strategy: str,
    options: Sequence[str],
    best: str,
    chance: Sequence[float],
    sees: float,
    error_rate: float | None,
) -> float:
    """One decision's likelihood ratio (``advantage_play.increment``'s exponential; the
    alternative that learns his strategy (``error_rate`` None) as before he has decided)."""
    unvalued = (0.0,) * len(options)  # the increment reads the options' shares, not values
    value = DecisionValue(
        seat=1, event_id="", point="", options=tuple(options), taken=taken, strategy=strategy,
        seen=unvalued, first_card=unvalued, hidden=unvalued, chance_best=tuple(chance),
        best_first=best,
    )  # fmt: skip
    return math.exp(increment(value, sees, error_rate))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hole", default="Qc 7d")
    parser.add_argument("--flops", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    cards = parse_cards(args.hole.split())
    if len(cards) != 2 or cards[0] == cards[1]:
        parser.error(f"--hole {args.hole!r}: two different cards")
    hole = (cards[0], cards[1])
    before = holdem.preflop_values(hole, LETTER)
    strategy = holdem.preflop_strategy(hole)
    unseen = [c for c in range(52) if c not in hole]
    best_before = {c: holdem.preflop_best(before.by_first[c], strategy) for c in unseen}
    chance_before = [
        sum(b == o for b in best_before.values()) / len(unseen) for o in holdem.PREFLOP_OPTIONS
    ]
    rng = random.Random(args.seed)
    means: dict[tuple[float, float | None], list[float]] = {a: [] for a in ALTERNATIVES}
    for _ in range(args.flops):
        flop = tuple(rng.sample(unseen, 3))
        values = holdem.flop_values(hole, flop, LETTER)
        plays = holdem.flop_strategy_plays(hole, flop)
        rest = [c for c in unseen if c not in flop]
        best_on = {c: holdem.flop_best_with_first(values, c, plays) for c in rest}
        share = sum(b == "play" for b in best_on.values()) / len(rest)
        taken = "play" if plays else "check"
        for sees, error_rate in ALTERNATIVES:
            products = [
                ratio(
                    "check",
                    strategy,
                    holdem.PREFLOP_OPTIONS,
                    best_before[c],
                    chance_before,
                    sees,
                    error_rate,
                )
                * ratio(
                    taken,
                    taken,
                    holdem.FLOP_OPTIONS,
                    best_on[c],
                    (share, 1 - share),
                    sees,
                    error_rate,
                )
                for c in rest
            ]
            means[(sees, error_rate)].append(sum(products) / len(products))
    print(f"{args.hole}: the strategy {strategy} before the flop; the seat checks")
    for (sees, error_rate), values_of in means.items():
        mean = statistics.fmean(values_of)
        error = statistics.stdev(values_of) / len(values_of) ** 0.5
        print(
            f"p = {sees:g}, ε = {'learnt' if error_rate is None else f'{error_rate:g}'}: "
            f"E[product] = {mean:.4f} "
            f"(standard error {error:.4f}, {len(values_of)} flops)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
