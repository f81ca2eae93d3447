"""Four Card Poker strengths (§ 641a.6): hand-written cases and properties."""

from __future__ import annotations

from itertools import combinations
from random import Random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablewatch.rules.cards import parse_cards
from tablewatch.rules.hands import (
    Hand4,
    best4of5,
    best4of6,
    category_of,
    leading_rank,
    rank_nibbles,
    strength4,
)


def cards(text: str) -> tuple[int, ...]:
    return parse_cards(text.split())


def hand_strategy(k: int) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, 51), min_size=k, max_size=k, unique=True)


# An independent reference: explicit straight rank sets and group-size patterns.
_STRAIGHTS4 = [frozenset({12, 0, 1, 2})] + [frozenset(range(r, r + 4)) for r in range(10)]


def reference4(hand: list[int] | tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    """``(category, k0..k4)`` worked out directly from the regulation's wording."""
    ranks = [c >> 2 for c in hand]
    suited = len({c & 3 for c in hand}) == 1
    rank_set = frozenset(ranks)
    if rank_set in _STRAIGHTS4:
        high = 2 if rank_set == _STRAIGHTS4[0] else max(ranks)
        return (Hand4.STRAIGHT_FLUSH if suited else Hand4.STRAIGHT), (high, 0, 0, 0, 0)
    by_count = sorted(rank_set, key=lambda r: (ranks.count(r), r), reverse=True)
    pattern = sorted((ranks.count(r) for r in rank_set), reverse=True)
    if pattern == [4]:
        category = Hand4.FOUR_OF_A_KIND
    elif pattern == [3, 1]:
        category = Hand4.THREE_OF_A_KIND
    elif suited:
        category = Hand4.FLUSH
    elif pattern == [2, 2]:
        category = Hand4.TWO_PAIR
    elif pattern == [2, 1, 1]:
        category = Hand4.PAIR
    else:
        category = Hand4.HIGH_CARD
    padded = (*by_count, 0, 0, 0, 0, 0)[:5]
    return category, padded


def key(strength: int) -> tuple[int, tuple[int, ...]]:
    return category_of(strength), rank_nibbles(strength)


@pytest.mark.parametrize(
    ("text", "category", "lead"),
    [
        ("Ac Ad Ah As", Hand4.FOUR_OF_A_KIND, 12),
        ("Jh Qh Kh Ah", Hand4.STRAIGHT_FLUSH, 12),
        ("Ad 2d 3d 4d", Hand4.STRAIGHT_FLUSH, 2),
        ("9c 9d 9h 2s", Hand4.THREE_OF_A_KIND, 7),
        ("2h 5h 9h Kh", Hand4.FLUSH, 11),
        ("Jc Qd Kh As", Hand4.STRAIGHT, 12),
        ("Ac 2d 3h 4s", Hand4.STRAIGHT, 2),
        ("Kc Kd 2h 2s", Hand4.TWO_PAIR, 11),
        ("Ac Ad 2h 3s", Hand4.PAIR, 12),
        ("Ac Kd 9h 3s", Hand4.HIGH_CARD, 12),
    ],
)
def test_categories(text: str, category: Hand4, lead: int) -> None:
    value = strength4(cards(text))
    assert category_of(value) == category
    assert leading_rank(value) == lead


def test_rank_order_of_categories() -> None:
    # § 641a.6(b): quads > straight flush > trips > flush > straight > two pair > pair
    order = [
        "Ac Kd 9h 3s",
        "2c 2d 3h 4s",
        "2c 2d 3h 3s",
        "2c 3d 4h 5s",
        "2h 3h 4h 6h",
        "2c 2d 2h 3s",
        "2s 3s 4s 5s",
        "2c 2d 2h 2s",
    ]
    values = [strength4(cards(text)) for text in order]
    assert values == sorted(values)
    assert [category_of(v) for v in values] == list(Hand4)


def test_quads_beat_a_straight_flush() -> None:
    assert strength4(cards("2c 2d 2h 2s")) > strength4(cards("Js Qs Ks As"))


def test_ace_low_straight_is_the_lowest() -> None:
    lowest = strength4(cards("Ac 2d 3h 4s"))
    assert category_of(lowest) == Hand4.STRAIGHT
    assert lowest < strength4(cards("2c 3d 4h 5s")) < strength4(cards("Jc Qd Kh As"))
    assert strength4(cards("Ah 2h 3h 4h")) < strength4(cards("2s 3s 4s 5s"))


@pytest.mark.parametrize("text", ["Kc Ad 2h 3s", "Qc Kd Ah 2s"])
def test_no_wraparound_straight(text: str) -> None:
    assert category_of(strength4(cards(text))) == Hand4.HIGH_CARD
    suited = " ".join(card[0] + "h" for card in text.split())
    assert category_of(strength4(cards(suited))) == Hand4.FLUSH


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("Ac Ad Kh 3s", "Ah As Qc Jd"),  # pair: kicker
        ("Ac Ad Kh 3s", "Ah As Kc 2d"),  # pair: second kicker
        ("Kc Kd 3h 3s", "Qc Qd Jh Js"),  # two pair: high pair
        ("Kc Kd 4h 4s", "Kh Ks 3c 3d"),  # two pair: low pair
        ("9c 9d 9h 3s", "9c 9d 9s 2h"),  # trips: kicker
        ("Ah Kh Qh 2h", "Ac Kc Jc Tc"),  # flush: ranks in order
        ("Ac Kd Qh 3s", "Ac Kd Qh 2s"),  # high card: last card
    ],
)
def test_kicker_comparisons(better: str, worse: str) -> None:
    assert strength4(cards(better)) > strength4(cards(worse))


def test_same_ranks_different_suits_tie() -> None:
    assert strength4(cards("Ac Ad Kh 4s")) == strength4(cards("Ah As Kc 4d"))


def test_best_of_more_cards() -> None:
    # the dealer's six cards hold four aces and a straight flush
    assert category_of(best4of6(cards("Ac Ad Ah As Kc Qc"))) == Hand4.FOUR_OF_A_KIND
    assert category_of(best4of5(cards("9s Ts Js Qs 2c"))) == Hand4.STRAIGHT_FLUSH
    assert category_of(best4of5(cards("Ac Ad Ah 2c 3c"))) == Hand4.THREE_OF_A_KIND


def test_bad_input() -> None:
    with pytest.raises(ValueError):
        strength4((0, 1, 2))
    with pytest.raises(ValueError):
        best4of5((0, 1, 2, 3, 99))
    with pytest.raises(ValueError):
        best4of6((0, 1, 2, 3, 4))


@given(hand_strategy(4))
def test_matches_reference(hand: list[int]) -> None:
    assert key(strength4(hand)) == reference4(hand)


@given(hand_strategy(4), hand_strategy(4))
def test_order_matches_reference(a: list[int], b: list[int]) -> None:
    assert (strength4(a) < strength4(b)) == (reference4(a) < reference4(b))
    assert (strength4(a) == strength4(b)) == (reference4(a) == reference4(b))


@given(hand_strategy(4), st.randoms(use_true_random=False))
def test_card_order_does_not_matter(hand: list[int], rng: Random) -> None:
    shuffled = list(hand)
    rng.shuffle(shuffled)
    assert strength4(hand) == strength4(shuffled)


@given(hand_strategy(5), st.randoms(use_true_random=False))
def test_best4of5_is_max_over_subsets(hand: list[int], rng: Random) -> None:
    expected = max(strength4(sub) for sub in combinations(hand, 4))
    rng.shuffle(hand)
    assert best4of5(hand) == expected


@given(hand_strategy(6))
def test_best4of6_is_max_over_subsets(hand: list[int]) -> None:
    assert best4of6(hand) == max(strength4(sub) for sub in combinations(hand, 4))


@given(st.integers(0, 3), st.lists(st.integers(0, 12), min_size=4, max_size=4, unique=True))
def test_best4of5_with_four_suited_cards(suit: int, ranks: list[int]) -> None:
    # the path for four or more cards of one suit, plus a fifth card of each kind
    suited = [r * 4 + suit for r in ranks]
    for extra in range(52):
        if extra in suited:
            continue
        hand = [*suited, extra]
        assert best4of5(hand) == max(strength4(sub) for sub in combinations(hand, 4))
