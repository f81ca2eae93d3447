"""Three-card strengths (§ 643a.6(c), (d)): hand-written cases and properties."""

from __future__ import annotations

from itertools import combinations
from random import Random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablewatch.rules.cards import parse_cards
from tablewatch.rules.hands import (
    Hand3,
    category_of,
    leading_rank,
    rank_nibbles,
    strength3,
    three_card_table,
)


def cards(text: str) -> tuple[int, ...]:
    return parse_cards(text.split())


_STRAIGHTS3 = [frozenset({12, 0, 1})] + [frozenset(range(r, r + 3)) for r in range(11)]


def reference3(hand: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    """Independent reference: explicit straights, counted pairs."""
    ranks = sorted((c >> 2 for c in hand), reverse=True)
    suited = len({c & 3 for c in hand}) == 1
    rank_set = frozenset(ranks)
    if rank_set in _STRAIGHTS3:
        high = 1 if rank_set == _STRAIGHTS3[0] else ranks[0]
        if suited:
            return (Hand3.MINI_ROYAL if high == 12 else Hand3.STRAIGHT_FLUSH, (high,))
        return Hand3.STRAIGHT, (high,)
    if len(rank_set) == 1:
        return Hand3.THREE_OF_A_KIND, (ranks[0],)
    if len(rank_set) == 2:
        pair = ranks[1]  # the middle card of three sorted cards is always in the pair
        return Hand3.PAIR, (pair, sum(ranks) - 2 * pair)
    return (Hand3.FLUSH if suited else Hand3.HIGH_CARD), tuple(ranks)


@pytest.mark.parametrize(
    ("text", "category", "lead"),
    [
        ("Qs Ks As", Hand3.MINI_ROYAL, 12),
        ("Jd Qd Kd", Hand3.STRAIGHT_FLUSH, 11),
        ("Ac 2c 3c", Hand3.STRAIGHT_FLUSH, 1),
        ("7c 7d 7h", Hand3.THREE_OF_A_KIND, 5),
        ("Ac 2d 3h", Hand3.STRAIGHT, 1),
        ("Qc Kd Ah", Hand3.STRAIGHT, 12),
        ("2h 5h 9h", Hand3.FLUSH, 7),
        ("Kc Kd 2h", Hand3.PAIR, 11),
        ("Ac Kd 9h", Hand3.HIGH_CARD, 12),
    ],
)
def test_categories(text: str, category: Hand3, lead: int) -> None:
    value = strength3(cards(text))
    assert category_of(value) == category
    assert leading_rank(value) == lead


def test_ace_two_three_is_a_straight_but_king_ace_two_is_not() -> None:
    assert category_of(strength3(cards("Ac 2d 3h"))) == Hand3.STRAIGHT
    assert category_of(strength3(cards("Kc Ad 2h"))) == Hand3.HIGH_CARD
    assert category_of(strength3(cards("Kc Ac 2c"))) == Hand3.FLUSH
    assert strength3(cards("Ac 2d 3h")) < strength3(cards("2c 3d 4h"))


def test_category_order() -> None:
    order = ["Ac Kd 9h", "2c 2d 3h", "2h 3h 5h", "Ac 2d 3h", "2c 2d 2h", "Ac 2c 3c", "Qh Kh Ah"]
    values = [strength3(cards(text)) for text in order]
    assert values == sorted(values)
    assert [category_of(v) for v in values] == list(Hand3)


def test_kickers_and_ties() -> None:
    assert strength3(cards("9c 9d Ah")) > strength3(cards("9h 9s Kc"))
    assert strength3(cards("Ac Kd 3h")) > strength3(cards("Ah Kc 2d"))
    assert strength3(cards("Ac Kd 3h")) == strength3(cards("Ad Kh 3s"))


def test_bad_input() -> None:
    with pytest.raises(ValueError):
        strength3((0, 1))
    with pytest.raises(ValueError):
        strength3((0, 1, 60))


def test_every_hand_matches_reference() -> None:
    hands = sorted(combinations(range(52), 3), key=lambda h: h[::-1])  # colex order
    values = [strength3(h) for h in hands]
    for hand, value in zip(hands, values, strict=True):
        expected = reference3(hand)
        assert (category_of(value), rank_nibbles(value)[: len(expected[1])]) == expected, hand
    assert values == three_card_table().tolist()


@given(
    st.lists(st.integers(0, 51), min_size=3, max_size=3, unique=True),
    st.randoms(use_true_random=False),
)
def test_card_order_does_not_matter(hand: list[int], rng: Random) -> None:
    shuffled = list(hand)
    rng.shuffle(shuffled)
    assert strength3(hand) == strength3(shuffled)
