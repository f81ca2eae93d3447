"""Exact house edges of Pair Plus (22,100 three-card hands) and the Six Card Bonus (C(52,6)).

Each for a pay table stated by rows (``tablewatch edge three_card_poker
pair_plus --rows 40,30,6,3,1``), priced through the hand names settlement
uses. Counts are integers: the edge and the standard deviation per unit
staked are exact up to the final division.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from math import comb, sqrt

import numpy as np

from tablewatch.rules.cards import SPADES
from tablewatch.rules.edge.result import EdgeResult
from tablewatch.rules.hands import all_combinations, three_card_table
from tablewatch.rules.hands.five_card import best5of6_batch
from tablewatch.rules.paytables.hand_names import five_card_names, three_card_names
from tablewatch.rules.paytables.odds import OddsKind
from tablewatch.rules.paytables.table import PayTable

Progress = Callable[[str, int, int], None]


def net_of(table: PayTable, names: Iterable[str]) -> int:
    """Net result of a unit stake ("X to 1": +X; no paying hand: -1)."""
    won = table.odds_for(names)
    if won is None:
        return -1
    odds = won[1]
    if odds.kind is not OddsKind.TO_ONE or odds.paid(100) != 100 * odds.value:
        raise ValueError(f"{odds}: only whole 'X to 1' rows have an exact edge here")
    return odds.value


def edge_of_counts(
    game: str,
    wager: str,
    table: PayTable,
    counts: Counter[int],
    started: float,
    extras: dict[str, float | int | str | None] | None = None,
) -> EdgeResult:
    """The edge of ``counts`` (net result per unit -> how many equally likely hands)."""
    hands = sum(counts.values())
    net = sum(n * c for n, c in counts.items())
    squares = sum(n * n * c for n, c in counts.items())
    mean = net / hands
    return EdgeResult(
        game=game,
        wager=wager,
        paytable=table.letter,
        house_edge=-mean,
        exact=True,
        hands=hands,
        seconds=time.perf_counter() - started,
        extras={
            "net_total": net,
            "hit_frequency": sum(c for n, c in counts.items() if n > -1) / hands,
            "std_dev": sqrt(squares / hands - mean * mean),
            "section": table.section,
            **(extras or {}),
        },
    )


def pair_plus_edge(game: str, table: PayTable, progress: Progress | None = None) -> EdgeResult:
    """Pair Plus under ``table``: exact over the 22,100 three-card hands."""
    started = time.perf_counter()
    cards = all_combinations(52, 3)
    strengths = three_card_table()
    all_spades = ((cards & 3) == SPADES).all(axis=1)  # a mini-royal's name depends on it
    _, first, counts = np.unique(
        strengths.astype(np.int64) * 2 + all_spades, return_index=True, return_counts=True
    )
    out: Counter[int] = Counter()
    for row, count in zip(first, counts, strict=True):
        names = three_card_names(int(strengths[row]), [int(c) for c in cards[row]])
        out[net_of(table, names)] += int(count)
    if progress is not None:
        progress("three-card hands", len(cards), len(cards))
    return edge_of_counts(game, "pair_plus", table, out, started)


def six_card_bonus_edge(game: str, table: PayTable, progress: Progress | None = None) -> EdgeResult:
    """The Six Card Bonus under ``table``: exact over the C(52,6) = 20,358,520 six-card hands
    (the best five of the seat's three and the dealer's three), by their largest card."""
    started = time.perf_counter()
    fives = all_combinations(52, 5)
    by_strength: Counter[int] = Counter()
    total = comb(52, 6)
    done = 0
    for top in range(5, 52):
        n = comb(top, 5)
        rows = np.empty((n, 6), dtype=np.uint8)
        rows[:, :5] = fives[:n]
        rows[:, 5] = top
        values, counts = np.unique(best5of6_batch(rows), return_counts=True)
        for value, count in zip(values.tolist(), counts.tolist(), strict=True):
            by_strength[value] += count
        done += n
        if progress is not None:
            progress("six-card hands", done, total)
    out: Counter[int] = Counter()
    for strength, count in by_strength.items():
        out[net_of(table, five_card_names(strength))] += count
    return edge_of_counts(game, "six_card_bonus", table, out, started)
