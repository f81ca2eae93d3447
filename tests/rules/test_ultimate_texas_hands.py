"""Hands of seven cards (Ultimate Texas Hold 'Em): the best five of seven.

``best5of7`` against the maximum over its 21 five-card subsets, its batch form
against the scalar one, and the order of seven-card hands against eval7 (a
seven-card evaluator sharing no code with ours).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablewatch.rules.cards import CARDS_BY_TEXT, card_text
from tablewatch.rules.hands import Hand5, best5of7, best5of7_batch, category_of, strength5

seven_cards = st.lists(st.integers(0, 51), min_size=7, max_size=7, unique=True)


def cards(text: str) -> list[int]:
    return [CARDS_BY_TEXT[c] for c in text.split()]


@given(seven_cards)
def test_best5of7_is_the_max_over_its_21_subsets(hand: list[int]) -> None:
    assert best5of7(hand) == max(strength5(sub) for sub in combinations(hand, 5))


@pytest.mark.parametrize(
    ("hand", "category"),
    [
        ("As Ks 2d 3c Qs Js Ts", Hand5.ROYAL_FLUSH),
        ("9h 8h 7h 6h 5h Ah Ad", Hand5.STRAIGHT_FLUSH),
        ("Ah 2d 3c 4s 5h Kd Kc", Hand5.STRAIGHT),  # the wheel beats the pair of kings
        ("7c 7d 7h 2s 2d 9c 9d", Hand5.FULL_HOUSE),  # sevens full of nines, not of twos
        ("Qc Qd Qh Qs 2d 2c 2h", Hand5.FOUR_OF_A_KIND),
        ("2c 5c 9c Jc Kc Ad Ah", Hand5.FLUSH),
        ("Ac Kd 9h 7s 5c 3d 2h", Hand5.HIGH_CARD),
    ],
)
def test_best5of7_categories(hand: str, category: Hand5) -> None:
    assert category_of(best5of7(cards(hand))) == category


def test_best_full_house_of_two_trips() -> None:
    # two sets of trips: the higher trips full of the lower pair
    assert best5of7(cards("Kc Kd Kh 4s 4d 4c 2h")) == strength5(cards("Kc Kd Kh 4s 4d"))


def test_best5of7_refuses_other_counts() -> None:
    with pytest.raises(ValueError, match="expected 7 distinct cards"):
        best5of7(cards("As Ks Qs Js Ts 9s"))
    with pytest.raises(ValueError, match="expected 7 distinct cards"):
        best5of7([0, 1, 2, 3, 4, 5, 52])


def random_hands(n: int, seed: int) -> npt.NDArray[np.int64]:
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n, 52)), axis=1)[:, :7]


def test_batch_equals_scalar() -> None:
    hands = random_hands(3000, seed=653)
    got = best5of7_batch(hands)
    assert got.dtype == np.int32
    assert got.tolist() == [best5of7(h) for h in hands.tolist()]


def test_same_order_as_eval7() -> None:
    import eval7

    hands = random_hands(40_000, seed=7)
    deck = [eval7.Card(card_text(c)) for c in range(52)]
    theirs = np.array([eval7.evaluate([deck[c] for c in hand]) for hand in hands.tolist()])
    ours = best5of7_batch(hands).astype(np.int64)
    pairs = np.unique(np.stack([ours, theirs.astype(np.int64)], axis=1), axis=0)
    assert len(np.unique(pairs[:, 0])) == len(pairs), "a tie for us is not a tie for eval7"
    assert bool(np.all(np.diff(pairs[:, 1]) > 0)), "eval7 orders seven-card hands differently"
