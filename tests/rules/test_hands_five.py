"""Five-card (Let It Ride, § 643a.6(b)) strengths: hand-written cases and properties."""

from __future__ import annotations

from itertools import combinations
from random import Random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablewatch.rules.cards import parse_cards
from tablewatch.rules.hands import (
    Hand5,
    best5of6,
    category_of,
    leading_rank,
    rank_nibbles,
    strength5,
)


def cards(text: str) -> tuple[int, ...]:
    return parse_cards(text.split())


def hand_strategy(k: int) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, 51), min_size=k, max_size=k, unique=True)


@pytest.mark.parametrize(
    ("text", "category", "lead"),
    [
        ("Ts Js Qs Ks As", Hand5.ROYAL_FLUSH, 12),
        ("9h Th Jh Qh Kh", Hand5.STRAIGHT_FLUSH, 11),
        ("Ad 2d 3d 4d 5d", Hand5.STRAIGHT_FLUSH, 3),
        ("7c 7d 7h 7s 2c", Hand5.FOUR_OF_A_KIND, 5),
        ("3c 3d 3h 2s 2c", Hand5.FULL_HOUSE, 1),
        ("2h 3h 4h 5h 7h", Hand5.FLUSH, 5),
        ("Ac Kd Qh Js Tc", Hand5.STRAIGHT, 12),
        ("Ac 2d 3h 4s 5c", Hand5.STRAIGHT, 3),
        ("Qc Qd Qh 9s 2c", Hand5.THREE_OF_A_KIND, 10),
        ("Kc Kd 2h 2s 9c", Hand5.TWO_PAIR, 11),
        ("Ac Ad 2h 3s 9c", Hand5.PAIR, 12),
        ("Ac Kd 9h 3s 2c", Hand5.HIGH_CARD, 12),
    ],
)
def test_categories(text: str, category: Hand5, lead: int) -> None:
    value = strength5(cards(text))
    assert category_of(value) == category
    assert leading_rank(value) == lead


def test_wheel_is_the_lowest_straight() -> None:
    wheel = strength5(cards("Ac 2d 3h 4s 5c"))
    six_high = strength5(cards("2c 3d 4h 5s 6c"))
    assert wheel < six_high
    assert category_of(wheel) == category_of(six_high) == Hand5.STRAIGHT
    assert strength5(cards("Ah 2h 3h 4h 5h")) < strength5(cards("2s 3s 4s 5s 6s"))


@pytest.mark.parametrize("text", ["Kc Ad 2h 3s 4c", "Qc Kd Ah 2s 3c", "Jc Qd Kh As 2c"])
def test_no_wraparound_straight(text: str) -> None:
    assert category_of(strength5(cards(text))) == Hand5.HIGH_CARD
    suited = " ".join(card[0] + "s" for card in text.split())
    assert category_of(strength5(cards(suited))) == Hand5.FLUSH


def test_royal_beats_king_high_straight_flush() -> None:
    assert strength5(cards("Tc Jc Qc Kc Ac")) > strength5(cards("9d Td Jd Qd Kd"))


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("Ac Ad Kh 4s 3c", "Ac Ad Qh Js Tc"),  # pair: first kicker decides
        ("9c 9d As 7h 4c", "9h 9s Ac 7d 3s"),  # pair: last kicker decides
        ("Kc Kd 3h 3s 4c", "Qc Qd Jh Js Ac"),  # two pair: high pair first
        ("Kc Kd 3h 3s 5c", "Kh Ks 3c 3d 4h"),  # two pair: kicker
        ("Kc Kd 4h 4s 2c", "Kh Ks 3c 3d Ah"),  # two pair: low pair before kicker
        ("2c 2d 2h 3s 3c", "Ac Ad Kh Ks Qc"),  # full house beats two pair
        ("3c 3d 3h 2s 2c", "2h 2s 2d As Ac"),  # full house: trips rank first
        ("Ah Kh Qh Jh 9h", "Ac Kc Qc Jc 8c"),  # flush: ranks in order
        ("Ac Kd Qh Js 9c", "Ac Kd Qh Js 8c"),  # high card: last card decides
        ("5c 5d 5h 5s 3c", "5c 5d 5h 5s 2h"),  # quads: kicker
    ],
)
def test_kicker_comparisons(better: str, worse: str) -> None:
    assert strength5(cards(better)) > strength5(cards(worse))


def test_same_ranks_different_suits_tie() -> None:
    assert strength5(cards("Ac Ad Kh 4s 3c")) == strength5(cards("Ah As Kc 4d 3h"))
    assert strength5(cards("Tc Jc Qc Kc Ac")) == strength5(cards("Ts Js Qs Ks As"))


def test_bad_input() -> None:
    with pytest.raises(ValueError):
        strength5((0, 1, 2, 3))
    with pytest.raises(ValueError):
        strength5((0, 1, 2, 3, 52))
    with pytest.raises(ValueError):
        best5of6((0, 1, 2, 3, 4))


@given(hand_strategy(5), st.randoms(use_true_random=False))
def test_card_order_does_not_matter(hand: list[int], rng: Random) -> None:
    shuffled = list(hand)
    rng.shuffle(shuffled)
    assert strength5(hand) == strength5(shuffled) == strength5(tuple(sorted(hand)))


@given(hand_strategy(5), hand_strategy(5))
def test_total_order_consistent_with_category(a: list[int], b: list[int]) -> None:
    sa, sb = strength5(a), strength5(b)
    key_a = (category_of(sa), rank_nibbles(sa))
    key_b = (category_of(sb), rank_nibbles(sb))
    assert (sa < sb) == (key_a < key_b)
    assert (sa == sb) == (key_a == key_b)
    assert 0 <= category_of(sa) <= Hand5.ROYAL_FLUSH
    assert all(0 <= k <= 12 for k in rank_nibbles(sa))


@given(hand_strategy(6))
def test_best5of6_is_max_over_subsets(hand: list[int]) -> None:
    assert best5of6(hand) == max(strength5(sub) for sub in combinations(hand, 5))
