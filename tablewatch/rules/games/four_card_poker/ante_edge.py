"""Four Card Poker Ante and Play (§ 641a.11(b), (c)(3), § 641a.12(a), (b)): Monte-Carlo.

After seeing five cards and the dealer's face-up card the player folds
(forfeiting the Ante) or makes a Play Wager of ``r`` = 1 to 3 Antes. With
``p`` the probability that the player's best four equal or beat the dealer's
best four of six (a tie goes to the player) and ``B`` the Ante bonus of the
player's hand (paid with a Play Wager whatever the dealer holds), the
expected result per Ante is ``(1 + r)(2p - 1) + B``: linear in ``r``, so the
best choice is always to fold, play 1x or play 3x.

``p`` cannot be enumerated cheaply (five player cards x up card x 1,370,754
hidden dealer hands), so it is *learned* per cell from a training
simulation, and the resulting strategy is scored on an independent
evaluation simulation (its own random stream), which gives an unbiased
estimate of the strategy's house edge and its 95% confidence interval.

Cells: ``coarse`` is (player's best-four strength, up card rank); ``fine``
adds how many of the player's cards share the up card's rank (0-3) and its
suit (0-5), the card-removal effects the strength leaves out. Sparse cells
borrow from their parent cell through a few pseudo-counts, and the estimates
are then fitted non-decreasing in the player's strength within each up card
context (a better hand wins at least as often), which pools the training
noise of neighbouring strengths.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Literal

import numpy as np
import numpy.typing as npt

from tablewatch.rules.edge.deals import sample_cards
from tablewatch.rules.edge.pricing import LOSE, bonus_of_names, net_win
from tablewatch.rules.edge.result import EdgeResult
from tablewatch.rules.games.four_card_poker.ante_and_bonus_paytable import (
    ANTE_AND_PLAY,
    ANTE_BONUS,
    ANTE_BONUS_SECTION,
    ANTE_PLAY_SECTION,
)
from tablewatch.rules.hands import best4of5_batch, best4of5_table, best4of6_batch
from tablewatch.rules.paytables.hand_names import four_card_names

Granularity = Literal["coarse", "fine"]
Progress = Callable[[str, int, int], None]
"""``(phase, deals done, deals in the phase)``; phase ``train`` or ``evaluate``."""

PLAY_CHOICES = (0, 1, 2, 3)
"""Fold, or a Play Wager of one to three Antes (§ 641a.11(b))."""

DEFAULT_SAMPLES = 80_000_000
DEFAULT_TRAIN_SAMPLES = 50_000_000
DEFAULT_SEED = 641
DEFAULT_CHUNK = 1_000_000
PRIOR_WEIGHT = 8.0
"""Pseudo-counts with which a cell's estimate leans on its parent cell's."""

_RANKS = 13
_RANK_MATCHES = 4  # the player can hold 0-3 cards of the up card's rank
_SUIT_MATCHES = 6  # and 0-5 of its suit
_FINE = _RANK_MATCHES * _SUIT_MATCHES


@cache
def hand_classes() -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float64]]:
    """Every best-four strength of five cards (ascending) and its Ante bonus per Ante.

    The bonus is priced once per strength through § 641a.12(b)'s pay table
    and the hand names settlement uses (``0`` when none is paid).
    """
    strengths = np.unique(best4of5_table())
    bonus = np.fromiter(
        (bonus_of_names(ANTE_BONUS, four_card_names(int(s))) for s in strengths),
        dtype=np.float64,
        count=len(strengths),
    )
    strengths.flags.writeable = False
    bonus.flags.writeable = False
    return strengths, bonus


def ante_net(
    won: npt.NDArray[np.bool_], bonus: npt.NDArray[np.float64], play: npt.NDArray[np.integer]
) -> npt.NDArray[np.float64]:
    """Net result per Ante of each deal: ``play`` Antes on the Play Wager (0: fold).

    A fold loses the Ante (and earns no bonus); otherwise Ante and Play win
    or lose together at § 641a.12(a)'s odds and the bonus is added.
    """
    per_unit = np.where(won, net_win(ANTE_AND_PLAY), LOSE)
    played = (1 + play) * per_unit + bonus
    return np.where(play == 0, LOSE, played)


@dataclass(frozen=True, slots=True)
class Deals:
    """What the Monte-Carlo needs of a batch of deals."""

    won: npt.NDArray[np.bool_]  # player's best four >= dealer's best four of six
    hand_class: npt.NDArray[np.intp]  # index into hand_classes()
    coarse: npt.NDArray[np.int64]  # cell keys
    fine: npt.NDArray[np.int64]

    def bonus(self) -> npt.NDArray[np.float64]:
        return hand_classes()[1][self.hand_class]


def describe_deals(cards: npt.NDArray[np.integer]) -> Deals:
    """``cards``: rows of 11 cards, the player's five then the dealer's six (the last face up)."""
    if cards.ndim != 2 or cards.shape[1] != 11:
        raise ValueError(f"expected an (N, 11) array of cards, got {cards.shape}")
    player = cards[:, :5]
    strengths, _ = hand_classes()
    mine = best4of5_batch(player)
    won = mine >= best4of6_batch(cards[:, 5:])
    hand_class = np.searchsorted(strengths, mine)
    up = cards[:, 10].astype(np.int64)
    up_rank, up_suit = up >> 2, up & 3
    coarse = hand_class * _RANKS + up_rank
    rank_matches = ((player >> 2) == up_rank[:, None]).sum(axis=1)
    suit_matches = ((player & 3) == up_suit[:, None]).sum(axis=1)
    fine = (coarse * _RANK_MATCHES + rank_matches) * _SUIT_MATCHES + suit_matches
    return Deals(won, hand_class, coarse, fine)


def _cells(granularity: Granularity) -> int:
    coarse = len(hand_classes()[0]) * _RANKS
    return coarse if granularity == "coarse" else coarse * _FINE


@dataclass(frozen=True, slots=True)
class AnteStrategy:
    """A Play decision per cell, learned from ``trained`` deals."""

    granularity: Granularity
    play: npt.NDArray[np.int8]  # by cell: 0 fold, else the Play Wager in Antes
    win_probability: npt.NDArray[np.float64]  # the estimate the decision rests on
    deals_seen: npt.NDArray[np.int64]
    trained: int

    def decide(self, deals: Deals) -> npt.NDArray[np.int8]:
        keys = deals.coarse if self.granularity == "coarse" else deals.fine
        return self.play[keys]

    def expected_by_training(self) -> float:
        """In-sample expected result per Ante (optimistic: the cells were fitted to it)."""
        bonus = self._bonus_by_cell()
        best = _best_value(self.win_probability, bonus)
        return float((best * self.deals_seen).sum() / max(self.trained, 1))

    def _bonus_by_cell(self) -> npt.NDArray[np.float64]:
        per_class = hand_classes()[1]
        per_cell = len(self.play) // len(per_class)
        return np.repeat(per_class, per_cell)


def _values(p: npt.NDArray[np.float64], bonus: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Expected result per Ante of each play choice (columns) in each cell (rows)."""
    per_unit = p * net_win(ANTE_AND_PLAY) + (1 - p) * LOSE
    columns = [
        np.full_like(p, LOSE) if r == 0 else (1 + r) * per_unit + bonus for r in PLAY_CHOICES
    ]
    return np.stack(columns, axis=1)


def _best_value(
    p: npt.NDArray[np.float64], bonus: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    values: npt.NDArray[np.float64] = _values(p, bonus).max(axis=1)
    return values


def strategy_from_counts(
    wins: npt.NDArray[np.float64],
    seen: npt.NDArray[np.int64],
    granularity: Granularity,
    prior_weight: float = PRIOR_WEIGHT,
    monotone: bool = True,
) -> AnteStrategy:
    """Decisions from fine-cell win counts.

    Estimates are shrunk toward their parent cells and, if ``monotone``, then
    made non-decreasing in the player's strength within each up card context.
    """
    classes = len(hand_classes()[0])
    by_class_w = wins.reshape(classes, -1).sum(axis=1)
    by_class_n = seen.reshape(classes, -1).sum(axis=1)
    p = (by_class_w + 1.0) / (by_class_n + 2.0)  # Laplace: every class has a value
    levels = [(_RANKS, wins.reshape(classes * _RANKS, -1), seen.reshape(classes * _RANKS, -1))]
    if granularity == "fine":
        levels.append((_FINE, wins.reshape(-1, 1), seen.reshape(-1, 1)))
    for fan_out, w, n in levels:
        parent = np.repeat(p, fan_out)
        p = (w.sum(axis=1) + prior_weight * parent) / (n.sum(axis=1) + prior_weight)
    cell_seen = seen.reshape(len(p), -1).sum(axis=1)
    if monotone:
        p = monotone_in_strength(p, cell_seen, classes)
    bonus = np.repeat(hand_classes()[1], len(p) // classes)
    play = np.asarray(PLAY_CHOICES, dtype=np.int8)[_values(p, bonus).argmax(axis=1)]
    return AnteStrategy(granularity, play, p, cell_seen, int(seen.sum()))


def monotone_in_strength(
    p: npt.NDArray[np.float64], seen: npt.NDArray[np.int64], classes: int
) -> npt.NDArray[np.float64]:
    """Weighted isotonic fit of ``p`` along the hand classes, per context column.

    A stronger hand beats every dealer hand a weaker one beats, so with the
    same information about the dealer its chance of winning is at least as
    high (up to card removal); the fit pools the noise of neighbouring
    strengths. Cells never seen get a negligible weight.
    """
    grid = p.reshape(classes, -1)
    weight = seen.reshape(classes, -1) + 1e-6
    fitted = np.column_stack(
        [
            isotonic_increasing(grid[:, j].tolist(), weight[:, j].tolist())
            for j in range(grid.shape[1])
        ]
    )
    return fitted.reshape(-1)


def isotonic_increasing(values: list[float], weights: list[float]) -> list[float]:
    """Least-squares non-decreasing fit (pool adjacent violators); weights > 0."""
    sums: list[float] = []
    totals: list[float] = []
    sizes: list[int] = []
    for value, weight in zip(values, weights, strict=True):
        sums.append(value * weight)
        totals.append(weight)
        sizes.append(1)
        while len(sums) > 1 and sums[-2] * totals[-1] > sums[-1] * totals[-2]:
            s, t, n = sums.pop(), totals.pop(), sizes.pop()
            sums[-1] += s
            totals[-1] += t
            sizes[-1] += n
    fitted: list[float] = []
    for s, t, n in zip(sums, totals, sizes, strict=True):
        fitted.extend([s / t] * n)
    return fitted


def _chunks(total: int, chunk: int) -> list[int]:
    return [min(chunk, total - start) for start in range(0, total, chunk)]


def train(
    deals: int,
    rng: np.random.Generator,
    granularity: Granularity = "fine",
    chunk: int = DEFAULT_CHUNK,
    progress: Progress | None = None,
    monotone: bool = True,
) -> AnteStrategy:
    """Learn the Play decision per cell from ``deals`` simulated deals."""
    cells = _cells("fine")
    wins = np.zeros(cells, dtype=np.float64)
    seen = np.zeros(cells, dtype=np.int64)
    done = 0
    for size in _chunks(deals, chunk):
        batch = describe_deals(sample_cards(rng, size, 11))
        wins += np.bincount(batch.fine, weights=batch.won, minlength=cells)
        seen += np.bincount(batch.fine, minlength=cells)
        done += size
        if progress is not None:
            progress("train", done, deals)
    return strategy_from_counts(wins, seen, granularity, monotone=monotone)


@dataclass(frozen=True, slots=True)
class Evaluation:
    deals: int
    mean: float  # expected result per Ante
    std: float
    plays: dict[int, int]  # decisions taken, by Play Wager in Antes (0: fold)
    average_total_bet: float  # Ante + Play, in Antes


def evaluate(
    strategy: AnteStrategy,
    deals: int,
    rng: np.random.Generator,
    chunk: int = DEFAULT_CHUNK,
    progress: Progress | None = None,
) -> Evaluation:
    """Play ``strategy`` on ``deals`` fresh simulated deals."""
    total = total_sq = 0.0
    bet = 0
    plays = np.zeros(max(PLAY_CHOICES) + 1, dtype=np.int64)
    done = 0
    for size in _chunks(deals, chunk):
        batch = describe_deals(sample_cards(rng, size, 11))
        play = strategy.decide(batch)
        net = ante_net(batch.won, batch.bonus(), play)
        total += float(net.sum())
        total_sq += float(np.square(net).sum())
        plays += np.bincount(play, minlength=len(plays))
        bet += size + int(play.sum(dtype=np.int64))
        done += size
        if progress is not None:
            progress("evaluate", done, deals)
    mean = total / deals
    variance = max(total_sq / deals - mean * mean, 0.0) * deals / max(deals - 1, 1)
    return Evaluation(
        deals=deals,
        mean=mean,
        std=float(np.sqrt(variance)),
        plays={r: int(plays[r]) for r in PLAY_CHOICES},
        average_total_bet=bet / deals,
    )


def edge(
    game: str,
    samples: int = DEFAULT_SAMPLES,
    train_samples: int = DEFAULT_TRAIN_SAMPLES,
    seed: int = DEFAULT_SEED,
    granularity: Granularity = "fine",
    chunk: int = DEFAULT_CHUNK,
    progress: Progress | None = None,
    monotone: bool = True,
) -> EdgeResult:
    """House edge per Ante of the learned strategy, scored on ``samples`` independent deals
    (``game``: the name the result carries, its descriptor's)."""
    if samples < 2:
        raise ValueError("need at least 2 evaluation deals")
    training = train_samples
    if training < 1:
        raise ValueError("need at least 1 training deal")
    start = time.perf_counter()
    train_seq, eval_seq = np.random.SeedSequence(seed).spawn(2)
    strategy = train(
        training, np.random.default_rng(train_seq), granularity, chunk, progress, monotone
    )
    trained_at = time.perf_counter()
    result = evaluate(strategy, samples, np.random.default_rng(eval_seq), chunk, progress)
    house_edge = -result.mean
    half = 1.96 * result.std / float(np.sqrt(samples))
    return EdgeResult(
        game=game,
        wager="ante",
        paytable=None,
        house_edge=house_edge,
        exact=False,
        hands=samples,
        ci95=(float(house_edge - half), float(house_edge + half)),
        seconds=time.perf_counter() - start,
        extras={
            "unit": "the Ante",
            "training_deals": training,
            "seed": seed,
            "granularity": granularity,
            "monotone": monotone,
            "strategy_cells": int((strategy.deals_seen > 0).sum()),
            "training_seconds": trained_at - start,
            "in_sample_house_edge": -strategy.expected_by_training(),
            "standard_error": float(half / 1.96),
            "std_dev": result.std,
            "fold_rate": result.plays[0] / samples,
            "play_1x_rate": result.plays[1] / samples,
            "play_2x_rate": result.plays[2] / samples,
            "play_3x_rate": result.plays[3] / samples,
            "average_total_bet": result.average_total_bet,
            "element_of_risk": house_edge / result.average_total_bet,
            "strategy": "per cell: fold, Play 1x or Play 3x, whichever has the highest "
            "(1 + r)(2p - 1) + bonus with p learned from the training deals",
            "section": f"{ANTE_PLAY_SECTION}, {ANTE_BONUS_SECTION}",
        },
    )
