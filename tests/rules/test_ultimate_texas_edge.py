"""Ultimate Texas Hold 'Em house edges: Trips exact over all C(52, 7) hands, and Ante, Blind
and Play together under the stated strategy (Monte-Carlo).

The Trips figures are checked against the textbook seven-card class counts with the pay
tables of § 653a.12(c) written out here, sharing no code with the enumeration; the one
published figure found is pay table C's 3.50%.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from tablewatch.cli import main
from tablewatch.rules.cards import CARDS_BY_TEXT
from tablewatch.rules.edge import exact_edge
from tablewatch.rules.games.ultimate_texas_holdem import ante_edge
from tablewatch.rules.games.ultimate_texas_holdem.seven_card_counts import (
    seven_card_strength_counts,
)
from tablewatch.rules.hands import Hand5, category_of

GAME = "ultimate_texas_holdem"

# Seven-card hands by their best five (the textbook counts; royal flush within the
# straight flushes' 41,584).
TEXTBOOK = {
    "royal_flush": 4_324,
    "straight_flush": 37_260,
    "four_of_a_kind": 224_848,
    "full_house": 3_473_184,
    "flush": 4_047_644,
    "straight": 6_180_020,
    "three_of_a_kind": 6_461_620,
    "two_pair": 31_433_400,
    "pair": 58_627_800,
    "high_card": 23_294_460,
}
# § 653a.12(c), "to 1": royal, straight flush, quads, full house, flush, straight, trips.
TRIPS_ROWS = {
    "A": (50, 40, 30, 9, 7, 4, 3),
    "B": (50, 40, 30, 8, 6, 5, 3),
    "C": (50, 40, 30, 8, 7, 4, 3),
    "D": (50, 40, 20, 7, 6, 5, 3),
}
PAID_HANDS = list(TEXTBOOK)[:7]
TOTAL = 133_784_560


def trips_edge_by_hand(letter: str) -> tuple[Fraction, float]:
    """Edge and standard deviation of Trips ``letter`` from the textbook counts."""
    paid = dict(zip(PAID_HANDS, TRIPS_ROWS[letter], strict=True))
    outcomes = [(n, paid.get(hand, -1)) for hand, n in TEXTBOOK.items()]
    mean = Fraction(sum(n * x for n, x in outcomes), TOTAL)
    square = Fraction(sum(n * x * x for n, x in outcomes), TOTAL)
    return -mean, math.sqrt(square - mean * mean)


def test_seven_card_class_counts_are_the_textbooks() -> None:
    counts: Counter[str] = Counter()
    for strength, n in seven_card_strength_counts().items():
        counts[Hand5(category_of(strength)).name.lower()] += n
    assert sum(TEXTBOOK.values()) == TOTAL
    assert dict(counts) == TEXTBOOK
    assert counts["royal_flush"] + counts["straight_flush"] == 41_584


@pytest.mark.parametrize("letter", ["A", "B", "C", "D"])
def test_trips_edge_exact(letter: str) -> None:
    result = exact_edge(GAME, "trips", letter)
    edge, std = trips_edge_by_hand(letter)
    assert result.exact and result.hands == TOTAL
    assert result.house_edge == pytest.approx(float(edge), abs=1e-12)
    assert result.extras["std_dev"] == pytest.approx(std, rel=1e-9)


def test_trips_figures() -> None:
    # C: the published 3.50%; the others as computed (docs/rules.md states them).
    figures = {letter: round(exact_edge(GAME, "trips", letter).house_edge * 100, 2)
               for letter in "ABCD"}  # fmt: skip
    assert figures == {"A": 0.90, "B": 1.90, "C": 3.50, "D": 6.18}
    assert trips_edge_by_hand("C")[0] == Fraction(4_679_700, 133_784_560)


def cards(text: str) -> list[int]:
    return [CARDS_BY_TEXT[c] for c in text.split()]


# Rows: the seat's two, the dealer's two, the five community cards.
DEALS = {
    # flush, raised 4x before the flop (an ace); the dealer's pair of sevens qualifies:
    # Play 4 + Ante 1 + Blind A's flush 1.5
    "Ah 5h 9c 4d Kh Qh 7h 7d 2s": (4, 6.5),
    # 9-4 suited, the dealer's own ranks: checks twice (no pair with a hole card on the
    # flop), and at the river holds 7 7 K Q 9 with no pair of its own and no jack: folds
    "9s 4s 9c 4d Kh Qh 7h 7d 2s": (0, -2.0),
    # pocket kings: 4x, three kings with the board's; the dealer (9c 4d with K Q 8 5 2)
    # does not qualify: the Ante pushes, Play 4, the Blind pushes (A pays no three of a kind)
    "Ks Kc 9c 4d Kh Qh 8c 5d 2s": (4, 4.0),
    # 6-3 offsuit: checks, checks, K Q 8 6 5 with no jack in the hole: folds (Ante, Blind)
    "6c 3d 9c 4d Kh Qh 8c 5d 2s": (0, -2.0),
    # 3-2 suited: checks; on the flop (Kh Qh 7h) nothing; the river pairs the two:
    # 1x, two pair beats the dealer's pair of sevens: Play 1 + Ante 1, Blind pushes
    "3c 2c 9c 4d Kh Qh 7h 7d 2s": (1, 2.0),
    # 8-3: pairs nothing on the flop; two pair on board only; the dealer's 9 kicker wins:
    # 8 3 has no hole pair, no jack: fold
    "8c 3s 9c 4d Kh Qh 7h 7d 2d": (0, -2.0),
    # Q-7 offsuit: checks before the flop, pairs a hole card on the flop: 2x; the dealer's
    # kings (Kd Kc) beat queens: loses Play 2, Ante 1, Blind 1
    "Qc 7s Kd Kc Qh 3h 2d 8c 9s": (2, -4.0),
}


def test_strategy_and_settlement_of_hand_checked_deals() -> None:
    rows = np.array([cards(deal) for deal in DEALS])
    net, play = ante_edge.net_per_ante(rows, ante_edge.blind_pricer("A"))
    got = {deal: (int(p), float(n)) for deal, p, n in zip(DEALS, play, net, strict=True)}
    assert got == DEALS


def share(value: object) -> float:
    assert isinstance(value, float)
    return value


def test_monte_carlo_reproducible_with_its_error_bound() -> None:
    first = ante_edge.edge(GAME, samples=200_000, seed=7)
    again = ante_edge.edge(GAME, samples=200_000, seed=7)
    assert first.house_edge == again.house_edge
    assert first.ci95 is not None
    low, high = first.ci95
    half = 1.96 * share(first.extras["std_dev"]) / math.sqrt(200_000)
    assert high - first.house_edge == pytest.approx(half)
    assert first.house_edge - low == pytest.approx(half)
    # a strategy short of the optimal one: above its published 2.19% (Blind A); this run's
    # interval holds the 10-million-deal figure of docs/rules.md (4.51%, seed 653)
    assert 0.0219 < low < 0.0451 < high
    rates = ("fold_rate", "play_1x_rate", "play_2x_rate", "play_4x_rate")
    plays = sum(share(first.extras[k]) for k in rates)
    assert plays == pytest.approx(1.0)


def test_cli_trips_and_ante() -> None:
    result = CliRunner().invoke(
        main, ["edge", GAME, "trips", "--paytable", "C", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert round(out["house_edge"] * 100, 2) == 3.50
    assert out["hands"] == TOTAL
    result = CliRunner().invoke(
        main, ["edge", GAME, "ante", "--paytable", "B", "--samples", "50000", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["paytable"] == "B" and out["hands"] == 50_000 and out["seed"] == 653
    missing = CliRunner().invoke(main, ["edge", GAME, "ante", "--samples", "50000"])
    assert missing.exit_code == 2
    assert "needs --paytable (one of A, B)" in missing.output
