"""Ultimate Texas Hold 'Em Ante, Blind and Play together: a Monte-Carlo of a stated strategy.

The three bets are one decision: the Play (4x or 3x the Ante before the flop,
2x after it, 1x after the river, or a fold) is made on the seat's cards, and
Ante, Blind and Play are settled on the same comparison with the dealer
(§ 653a.12(a), (b)). The optimal strategy is out of reach of an exact count
here, so the edge is that of a simple, stated strategy, scored on random
deals with its 95% error bound; the published optimal-strategy figure
(about 2.19% of the Ante with Blind pay table A) is lower than this
strategy's, which folds and checks hands the optimal play bets.

The strategy (:data:`STRATEGY`), ranks 2 < ... < A:

- before the flop, Play 4x with a pair of threes or better; any ace; a king
  suited, or with a five or better; a queen suited with a six or better, or
  with an eight or better; a jack suited with an eight or better, or with a
  ten; else check;
- on the flop, Play 2x with a pair or better in which a hole card takes part
  (a pocket pair, or a hole card paired by the flop; pocket twos alone not),
  or a straight or better; else check;
- after the river, Play 1x with a pair or better in which a hole card takes
  part, a straight or better that beats the board alone, or a jack or
  better in the hole; else fold.

Settlement as the protocol's: the dealer qualifies with a pair or better
(else the Ante pushes); the better hand wins Play 1 to 1, Ante 1 to 1 when
the dealer qualified, and the Blind by its pay table (push on a hand it does
not pay); a tie pushes them; a fold loses Ante and Blind. The result is per
Ante, as the published figures are.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from tablewatch.rules.edge.deals import sample_cards
from tablewatch.rules.edge.pricing import bonus_of_names, price_strengths
from tablewatch.rules.edge.result import EdgeResult
from tablewatch.rules.games.ultimate_texas_holdem.paytables import (
    ANTE_PLAY_SECTION,
    BLIND,
    BLIND_SECTION,
)
from tablewatch.rules.hands import Hand5, best5of7_batch, strength5_batch
from tablewatch.rules.hands.strength import CATEGORY_SHIFT
from tablewatch.rules.paytables.hand_names import five_card_names

Progress = Callable[[str, int, int], None]
"""``(phase, deals done, deals in the phase)``; the phase is ``evaluate``."""

DEFAULT_SAMPLES: Final = 10_000_000
DEFAULT_SEED: Final = 653
DEFAULT_CHUNK: Final = 500_000
DEALT: Final = 9  # two to the seat, two to the dealer, five community cards

STRATEGY: Final = (
    "pre-flop 4x: a pair of 3s or better, any ace, K suited or K5+, Q6+ suited or Q8+, "
    "J8+ suited or JT; flop 2x: a pair or better using a hole card (not pocket 2s alone) "
    "or a straight or better; river 1x: a pair or better using a hole card, a straight or "
    "better beating the board, or a jack or better in the hole; else check, and fold at "
    "the river"
)

# Ranks: 0 = two ... 12 = ace.
THREE, FIVE, SIX, EIGHT, TEN, JACK, QUEEN, KING, ACE = 1, 3, 4, 6, 8, 9, 10, 11, 12


@dataclass(frozen=True, slots=True)
class Totals:
    """Sums over the deals evaluated, per Ante."""

    deals: int
    net: float
    net_sq: float
    wagered: float  # Ante + Blind + Play, per Ante
    plays: tuple[int, int, int, int]  # folds, Play 1x, 2x, 4x

    def __add__(self, other: Totals) -> Totals:
        return Totals(
            self.deals + other.deals,
            self.net + other.net,
            self.net_sq + other.net_sq,
            self.wagered + other.wagered,
            (
                self.plays[0] + other.plays[0],
                self.plays[1] + other.plays[1],
                self.plays[2] + other.plays[2],
                self.plays[3] + other.plays[3],
            ),
        )


def _category(strength: npt.NDArray[np.int32]) -> npt.NDArray[np.int32]:
    return strength >> CATEGORY_SHIFT


def preflop_4x(
    high: npt.NDArray[np.integer], low: npt.NDArray[np.integer], suited: npt.NDArray[np.bool_]
) -> npt.NDArray[np.bool_]:
    """The hole cards (ranks ``high`` >= ``low``) the strategy raises 4x before the flop."""
    pair = high == low
    out: npt.NDArray[np.bool_] = (
        (pair & (high >= THREE))
        | (high == ACE)
        | ((high == KING) & (suited | (low >= FIVE)))
        | ((high == QUEEN) & ((suited & (low >= SIX)) | (low >= EIGHT)))
        | ((high == JACK) & ((suited & (low >= EIGHT)) | (low >= TEN)))
    )
    return out


def play_multiples(cards: npt.NDArray[np.integer]) -> npt.NDArray[np.int8]:
    """The strategy's Play per deal (0 = fold, else the multiple of the Ante); ``cards``
    rows are the seat's two, the dealer's two, then the five community cards."""
    ranks = cards >> 2
    first, second = ranks[:, 0], ranks[:, 1]
    high, low = np.maximum(first, second), np.minimum(first, second)
    suited = (cards[:, 0] & 3) == (cards[:, 1] & 3)
    return np.where(
        preflop_4x(high, low, suited),
        4,
        np.where(flop_2x(cards), 2, np.where(river_1x(cards), 1, 0)),
    ).astype(np.int8)


def flop_2x(cards: npt.NDArray[np.integer]) -> npt.NDArray[np.bool_]:
    """Whether the strategy plays 2x on the flop (rows as :func:`play_multiples`')."""
    ranks = cards >> 2
    first, second = ranks[:, 0], ranks[:, 1]
    pocket = first == second
    flop = ranks[:, 4:7]
    hole_paired_flop = pocket | (flop == first[:, None]).any(1) | (flop == second[:, None]).any(1)
    five = _category(strength5_batch(np.concatenate([cards[:, :2], cards[:, 4:7]], axis=1)))
    deuces_alone = pocket & (first == 0) & (five == Hand5.PAIR)
    out: npt.NDArray[np.bool_] = (hole_paired_flop & ~deuces_alone) | (five >= Hand5.STRAIGHT)
    return out


def river_1x(cards: npt.NDArray[np.integer]) -> npt.NDArray[np.bool_]:
    """Whether the strategy plays 1x after the river (rows as :func:`play_multiples`')."""
    ranks = cards >> 2
    first, second = ranks[:, 0], ranks[:, 1]
    high = np.maximum(first, second)
    pocket = first == second
    board = ranks[:, 4:9]
    hole_paired = pocket | (board == first[:, None]).any(1) | (board == second[:, None]).any(1)
    seven = best5of7_batch(np.concatenate([cards[:, :2], cards[:, 4:9]], axis=1))
    beats_board = seven > strength5_batch(cards[:, 4:9])
    out: npt.NDArray[np.bool_] = (
        hole_paired | ((_category(seven) >= Hand5.STRAIGHT) & beats_board) | (high >= JACK)
    )
    return out


def net_per_ante(
    cards: npt.NDArray[np.integer],
    blind_net: Callable[[npt.NDArray[np.int32]], npt.NDArray[np.float64]],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int8]]:
    """Each deal's net result for Ante, Blind and Play together, per Ante, and its Play."""
    play = play_multiples(cards)
    board = cards[:, 4:9]
    seat = best5of7_batch(np.concatenate([cards[:, :2], board], axis=1))
    dealer = best5of7_batch(np.concatenate([cards[:, 2:4], board], axis=1))
    qualifies = (_category(dealer) >= Hand5.PAIR).astype(np.float64)
    multiple = play.astype(np.float64)
    won = seat > dealer
    lost = seat < dealer
    net = np.where(won, multiple + qualifies + blind_net(seat), 0.0)
    net = np.where(lost, -(multiple + qualifies + 1.0), net)
    net = np.where(play == 0, -2.0, net)
    return net, play


def blind_pricer(letter: str) -> Callable[[npt.NDArray[np.int32]], npt.NDArray[np.float64]]:
    table = BLIND[letter]

    def price(strengths: npt.NDArray[np.int32]) -> npt.NDArray[np.float64]:
        return price_strengths(
            strengths, lambda names: bonus_of_names(table, names), five_card_names
        )

    return price


def evaluate(
    deals: int,
    letter: str,
    rng: np.random.Generator,
    chunk: int = DEFAULT_CHUNK,
    progress: Progress | None = None,
) -> Totals:
    """Play the strategy on ``deals`` random deals with Blind pay table ``letter``."""
    blind_net = blind_pricer(letter)
    totals = Totals(0, 0.0, 0.0, 0.0, (0, 0, 0, 0))
    while totals.deals < deals:
        size = min(chunk, deals - totals.deals)
        net, play = net_per_ante(sample_cards(rng, size, DEALT), blind_net)
        counts = np.bincount(play, minlength=5)
        totals = totals + Totals(
            size,
            float(net.sum()),
            float(np.square(net).sum()),
            float(2 * size + play.sum(dtype=np.int64)),
            (int(counts[0]), int(counts[1]), int(counts[2]), int(counts[4])),
        )
        if progress is not None:
            progress("evaluate", totals.deals, deals)
    return totals


def edge(
    game: str,
    letter: str = "A",
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
    chunk: int = DEFAULT_CHUNK,
    progress: Progress | None = None,
    **_unused: object,
) -> EdgeResult:
    """House edge per Ante of Ante, Blind (pay table ``letter``) and Play under
    :data:`STRATEGY`, on ``samples`` deals drawn from ``seed`` (``game``: the name the result
    carries). Keywords other Monte-Carlo edges take (training) are ignored."""
    if samples < 2:
        raise ValueError("need at least 2 deals")
    if letter not in BLIND:
        raise ValueError(f"no Blind pay table {letter!r} (one of {', '.join(BLIND)})")
    start = time.perf_counter()
    totals = evaluate(samples, letter, np.random.default_rng(seed), chunk, progress)
    mean = totals.net / samples
    std = math.sqrt(max(totals.net_sq / samples - mean * mean, 0.0))
    half = 1.96 * std / math.sqrt(samples)
    house_edge = -mean
    average_bet = totals.wagered / samples
    folds, one, two, four = totals.plays
    return EdgeResult(
        game=game,
        wager="ante",
        paytable=letter,
        house_edge=house_edge,
        exact=False,
        hands=samples,
        ci95=(house_edge - half, house_edge + half),
        seconds=time.perf_counter() - start,
        extras={
            "unit": "the Ante (Ante, Blind and Play together)",
            "seed": seed,
            "standard_error": half / 1.96,
            "std_dev": std,
            "fold_rate": folds / samples,
            "play_1x_rate": one / samples,
            "play_2x_rate": two / samples,
            "play_4x_rate": four / samples,
            "average_total_bet": average_bet,
            "element_of_risk": house_edge / average_bet,
            "strategy": STRATEGY,
            "section": f"{ANTE_PLAY_SECTION}, {BLIND_SECTION}",
        },
    )
