"""Exhaustive enumerations: category counts that are facts of the deck."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from tablewatch.rules.hands import (
    CATEGORY_SHIFT,
    Hand3,
    Hand4,
    Hand5,
    all_combinations,
    best4of5,
    best4of5_table,
    colex_index_batch,
    five_card_table,
    four_card_table,
    three_card_table,
)

pytestmark = pytest.mark.slow


def category_counts(table: npt.NDArray[np.int32], n_categories: int) -> list[int]:
    return [int(n) for n in np.bincount(table >> CATEGORY_SHIFT, minlength=n_categories)]


def test_five_card_counts() -> None:
    table = five_card_table()
    assert len(table) == 2_598_960
    expected = {
        Hand5.ROYAL_FLUSH: 4,
        Hand5.STRAIGHT_FLUSH: 36,
        Hand5.FOUR_OF_A_KIND: 624,
        Hand5.FULL_HOUSE: 3_744,
        Hand5.FLUSH: 5_108,
        Hand5.STRAIGHT: 10_200,
        Hand5.THREE_OF_A_KIND: 54_912,
        Hand5.TWO_PAIR: 123_552,
        Hand5.PAIR: 1_098_240,
        Hand5.HIGH_CARD: 1_302_540,
    }
    assert category_counts(table, len(Hand5)) == [expected[c] for c in Hand5]
    assert len(np.unique(table)) == 7_462


def test_three_card_counts() -> None:
    table = three_card_table()
    assert len(table) == 22_100
    expected = {
        Hand3.MINI_ROYAL: 4,
        Hand3.STRAIGHT_FLUSH: 44,
        Hand3.THREE_OF_A_KIND: 52,
        Hand3.STRAIGHT: 720,
        Hand3.FLUSH: 1_096,
        Hand3.PAIR: 3_744,
        Hand3.HIGH_CARD: 16_440,
    }
    assert category_counts(table, len(Hand3)) == [expected[c] for c in Hand3]


def test_four_card_counts() -> None:
    # 11 straights (A-2-3-4 .. J-Q-K-A) x 4 suits; flushes 4*C(13,4) less those, etc.
    table = four_card_table()
    assert len(table) == 270_725
    expected = {
        Hand4.FOUR_OF_A_KIND: 13,
        Hand4.STRAIGHT_FLUSH: 44,
        Hand4.THREE_OF_A_KIND: 2_496,
        Hand4.FLUSH: 2_816,
        Hand4.STRAIGHT: 2_772,
        Hand4.TWO_PAIR: 2_808,
        Hand4.PAIR: 82_368,
        Hand4.HIGH_CARD: 177_408,
    }
    assert category_counts(table, len(Hand4)) == [expected[c] for c in Hand4]


def test_four_card_poker_best_four_of_five_counts() -> None:
    table = best4of5_table()
    assert len(table) == 2_598_960
    expected = {
        Hand4.FOUR_OF_A_KIND: 624,
        Hand4.STRAIGHT_FLUSH: 2_072,
        Hand4.THREE_OF_A_KIND: 58_656,
        Hand4.FLUSH: 114_616,
        Hand4.STRAIGHT: 101_808,
        Hand4.TWO_PAIR: 123_552,
        Hand4.PAIR: 1_047_552,
        Hand4.HIGH_CARD: 1_150_080,
    }
    assert category_counts(table, len(Hand4)) == [expected[c] for c in Hand4]
    pair_of_aces = (table >> CATEGORY_SHIFT == Hand4.PAIR) & ((table >> 16) & 0xF == 12)
    assert int(pair_of_aces.sum()) == 81_096


def test_best_four_of_five_is_max_of_four_card_table() -> None:
    combos = all_combinations(52, 5)
    four = four_card_table()
    best = np.zeros(len(combos), dtype=np.int32)
    for drop in range(5):
        rest = np.delete(combos, drop, axis=1)
        best = np.maximum(best, four[colex_index_batch(rest, assume_sorted=True)])
    np.testing.assert_array_equal(best, best4of5_table())


def test_best_four_of_five_scalar_every_hand() -> None:
    # the scalar best4of5 has its own shortcut table; check it on every hand
    table = best4of5_table()
    got = [best4of5(hand) for hand in all_combinations(52, 5).tolist()]
    assert got == table.tolist()
