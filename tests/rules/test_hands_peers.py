"""Cross-check the 5-card order against eval7 and treys (dev dependencies)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from tablewatch.rules.cards import card_text
from tablewatch.rules.hands import strength5_batch

pytestmark = pytest.mark.slow

N_HANDS = 200_000


def random_hands() -> npt.NDArray[np.int64]:
    rng = np.random.default_rng(641)
    return np.argsort(rng.random((N_HANDS, 52), dtype=np.float32), axis=1)[:, :5]


def assert_same_order(ours: npt.NDArray[np.int64], theirs: npt.NDArray[np.int64]) -> None:
    """``theirs`` is a strictly increasing function of ``ours`` (same ranking, same ties)."""
    pairs = np.unique(np.stack([ours, theirs], axis=1), axis=0)  # sorted by ours, then theirs
    assert len(np.unique(pairs[:, 0])) == len(pairs), "a tie for us is not a tie for the peer"
    assert bool(np.all(np.diff(pairs[:, 1]) > 0)), "the peer orders hands differently"


def test_same_order_as_eval7() -> None:
    import eval7

    hands = random_hands()
    deck = [eval7.Card(card_text(c)) for c in range(52)]
    theirs = np.array([eval7.evaluate([deck[c] for c in hand]) for hand in hands.tolist()])
    assert_same_order(strength5_batch(hands).astype(np.int64), theirs.astype(np.int64))


def test_same_order_as_treys() -> None:
    import treys

    hands = random_hands()
    deck = [treys.Card.new(card_text(c)) for c in range(52)]
    evaluate = treys.Evaluator().evaluate
    # treys ranks 1 (royal flush) .. 7462 (seven high): lower is better
    theirs = np.array([-evaluate([deck[c] for c in hand], []) for hand in hands.tolist()])
    assert_same_order(strength5_batch(hands).astype(np.int64), theirs.astype(np.int64))
