"""The hard-coded flush offsets of the keyed lookup tables: the search's answer, and checked."""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement

import pytest

from tablewatch.rules.hands import five_card, four_card, three_card
from tablewatch.rules.hands.keyed_tables import (
    FLUSH_OFFSET_3,
    FLUSH_OFFSET_4,
    FLUSH_OFFSET_5,
    RANK_KEYS_3,
    RANK_KEYS_4,
    RANK_KEYS_5,
    RankEvaluator,
    build_keyed_tables,
    build_rank_sum_table,
    free_offset,
    rank_multisets,
    rank_sum,
)

SIZES: list[tuple[int, tuple[int, ...], RankEvaluator, int]] = [
    (5, RANK_KEYS_5, five_card.rank_strength5, FLUSH_OFFSET_5),
    (4, RANK_KEYS_4, four_card.rank_strength4, FLUSH_OFFSET_4),
    (3, RANK_KEYS_3, three_card.rank_strength3, FLUSH_OFFSET_3),
]


@pytest.mark.parametrize(("size", "keys", "evaluate", "offset"), SIZES)
def test_each_hard_coded_offset_is_the_smallest_free_one(
    size: int, keys: tuple[int, ...], evaluate: RankEvaluator, offset: int
) -> None:
    plain = build_rank_sum_table(size, keys, lambda ranks: evaluate(ranks, False))
    suited = [rank_sum(ranks, keys) for ranks in combinations(range(12, -1, -1), size)]
    assert free_offset(plain, suited) == offset


@pytest.mark.parametrize(("size", "keys", "evaluate", "offset"), SIZES)
def test_tables_built_at_the_given_offset_equal_those_built_by_searching(
    size: int, keys: tuple[int, ...], evaluate: RankEvaluator, offset: int
) -> None:
    given = build_keyed_tables(size, keys, evaluate, offset)
    searched = build_keyed_tables(size, keys, evaluate)
    assert given.table == searched.table
    assert given.flush_offset == searched.flush_offset
    assert max(given.flush_offset) == offset


def test_an_offset_that_lands_flushes_on_used_slots_is_refused() -> None:
    with pytest.raises(AssertionError, match="flush offset 1 lands 3-card flushes"):
        build_keyed_tables(3, RANK_KEYS_3, three_card.rank_strength3, 1)


@pytest.mark.parametrize("size", range(1, 8))
@pytest.mark.parametrize("max_copies", [1, 2, 4])
def test_rank_multisets_are_those_with_no_rank_over_max_copies(size: int, max_copies: int) -> None:
    every = combinations_with_replacement(range(12, -1, -1), size)
    allowed = [ms for ms in every if max(map(ms.count, ms)) <= max_copies]
    assert list(rank_multisets(size, max_copies)) == allowed
