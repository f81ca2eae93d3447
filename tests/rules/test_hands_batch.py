"""Batch (numpy) evaluators agree with the scalar ones; input checks."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
import pytest

from tablewatch.rules.hands import (
    best4of5,
    best4of5_batch,
    best4of6,
    best4of6_batch,
    best5of6,
    best5of6_batch,
    strength3,
    strength3_batch,
    strength4,
    strength4_batch,
    strength5,
    strength5_batch,
)

Scalar = Callable[[Sequence[int]], int]
Batch = Callable[[npt.ArrayLike], npt.NDArray[np.int32]]

PAIRS: list[tuple[int, Scalar, Batch]] = [
    (5, strength5, strength5_batch),
    (4, strength4, strength4_batch),
    (3, strength3, strength3_batch),
    (5, best4of5, best4of5_batch),
    (6, best4of6, best4of6_batch),
    (6, best5of6, best5of6_batch),
]


def random_hands(n: int, k: int, seed: int) -> npt.NDArray[np.int64]:
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n, 52)), axis=1)[:, :k]


@pytest.mark.parametrize(("k", "scalar", "batch"), PAIRS, ids=lambda p: getattr(p, "__name__", p))
def test_batch_equals_scalar(k: int, scalar: Scalar, batch: Batch) -> None:
    hands = random_hands(3000, k, seed=k)
    got = batch(hands)
    assert got.dtype == np.int32
    assert got.tolist() == [scalar(h) for h in hands.tolist()]


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.int32, np.int64])
def test_batch_accepts_integer_dtypes(dtype: type[np.integer]) -> None:
    hands = random_hands(200, 5, seed=1)
    expected = strength5_batch(hands)
    np.testing.assert_array_equal(strength5_batch(hands.astype(dtype)), expected)


def test_batch_spans_chunks() -> None:
    hands = random_hands(70_000, 5, seed=3)  # more than one internal chunk
    got = strength5_batch(hands)
    sample = range(0, 70_000, 997)
    assert [int(got[i]) for i in sample] == [strength5(hands[i].tolist()) for i in sample]


def test_batch_empty() -> None:
    assert strength5_batch(np.empty((0, 5), dtype=np.int64)).shape == (0,)


def test_batch_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        strength5_batch(np.zeros((3, 4), dtype=np.int64))
    with pytest.raises(ValueError):
        strength5_batch(np.array([[0, 1, 2, 3, 52]]))
    with pytest.raises(ValueError):
        strength5_batch(np.array([[0, 1, 2, 3, -1]]))
    with pytest.raises(TypeError):
        strength5_batch(np.zeros((3, 5), dtype=np.float64))
