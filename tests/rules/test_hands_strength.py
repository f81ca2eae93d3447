"""The shared strength encoding and colex combination indexing."""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
import pytest

from tablewatch.rules.cards import parse_cards
from tablewatch.rules.hands import (
    Hand5,
    all_combinations,
    category_of,
    colex_index,
    colex_index_batch,
    leading_rank,
    n_combinations,
    pack_strength,
    rank_nibbles,
    strength5,
)


def cards(text: str) -> tuple[int, ...]:
    return parse_cards(text.split())


def test_pack_layout() -> None:
    # pair of nines, ace-seven-three kickers
    value = pack_strength(Hand5.PAIR, (7, 12, 5, 1))
    assert value == 1 << 20 | 7 << 16 | 12 << 12 | 5 << 8 | 1 << 4
    assert category_of(value) == Hand5.PAIR
    assert leading_rank(value) == 7
    assert rank_nibbles(value) == (7, 12, 5, 1, 0)


def test_pack_rejects_bad_ranks() -> None:
    with pytest.raises(ValueError):
        pack_strength(Hand5.PAIR, (13,))
    with pytest.raises(ValueError):
        pack_strength(Hand5.HIGH_CARD, (6, 5, 4, 3, 2, 1))


def test_documented_examples() -> None:
    assert rank_nibbles(strength5(cards("9c 9d As 7h 3c"))) == (7, 12, 5, 1, 0)
    full = strength5(cards("5c 5d 5h Ks Kc"))
    assert category_of(full) == Hand5.FULL_HOUSE
    assert rank_nibbles(full) == (3, 11, 0, 0, 0)
    two = strength5(cards("Jc Jd 4h 4s Ac"))
    assert rank_nibbles(two) == (9, 2, 12, 0, 0)
    wheel = strength5(cards("Ac 2d 3h 4s 5c"))
    assert (category_of(wheel), rank_nibbles(wheel)) == (Hand5.STRAIGHT, (3, 0, 0, 0, 0))


def test_colex_small_enumeration() -> None:
    rows = all_combinations(6, 3)
    expected = sorted(combinations(range(6), 3), key=lambda c: c[::-1])
    assert [tuple(int(x) for x in row) for row in rows] == expected
    assert [colex_index(c) for c in expected] == list(range(comb(6, 3)))


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_colex_index_matches_row_number(k: int) -> None:
    rows = all_combinations(52, k)
    assert rows.shape == (n_combinations(52, k), k)
    assert rows.dtype == np.uint8
    assert bool(np.all(np.diff(rows.astype(np.int16), axis=1) > 0))
    np.testing.assert_array_equal(
        colex_index_batch(rows, assume_sorted=True), np.arange(len(rows), dtype=np.int64)
    )


def test_colex_index_is_order_free() -> None:
    rng = np.random.default_rng(7)
    hands = np.argsort(rng.random((500, 52)), axis=1)[:, :5]
    got = colex_index_batch(hands)
    assert got.tolist() == [colex_index(h.tolist()) for h in hands]
    assert colex_index((51, 50, 49, 48, 47)) == comb(52, 5) - 1


def test_all_combinations_is_cached_and_read_only() -> None:
    rows = all_combinations(52, 5)
    assert rows is all_combinations(52, 5)
    assert not rows.flags.writeable
    wide = all_combinations(10, 2, dtype=np.int64)
    assert wide.dtype == np.int64


def test_colex_batch_validation() -> None:
    with pytest.raises(ValueError):
        colex_index_batch(np.array([[0, 52]]))
    with pytest.raises(ValueError):
        colex_index_batch(np.array([0, 1, 2]))
    with pytest.raises(TypeError):
        colex_index_batch(np.array([[0.0, 1.0]]))
