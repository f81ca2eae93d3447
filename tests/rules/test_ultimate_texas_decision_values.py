"""Ultimate Texas Hold 'Em's Play 1x or fold after the river, valued: checked against an
enumeration of the dealer's hands written here (settlement as § 653a.12(a), (b): a win
pays the Play 1 to 1, the Ante 1 to 1 when the dealer qualifies with a pair or better, the
Blind by its table A, which pays no pair: a push; a loss takes them; a tie pushes)."""

from __future__ import annotations

from itertools import combinations

import pytest

from tablewatch.rules.cards import parse_cards
from tablewatch.rules.game_rules import DecisionValue
from tablewatch.rules.hands import Hand5, best5of7, category_of
from tablewatch.rules.judge import RoundResult
from tests.rules.test_ultimate_texas_golden import CONFIG, RIVER, Seat, play_round
from tests.scenarios import rounds

BOARD = ("Kh", "Qh", "7h", "7d", "2s")
HOLE = ("Jc", "4s")  # a pair of sevens on the board, jack kicker: the Blind pays nothing


def play_1x(hole: tuple[str, ...], dealer: tuple[str, ...]) -> int:
    """Ante, Blind and Play of a 1x Play, in Antes, on BOARD (no Blind win: a pair)."""
    mine = best5of7(parse_cards((*hole, *BOARD)))
    theirs = best5of7(parse_cards((*dealer, *BOARD)))
    qualifies = 1 if category_of(theirs) >= Hand5.PAIR else 0
    if mine > theirs:
        return 1 + qualifies
    if mine < theirs:
        return -(1 + qualifies + 1)
    return 0


def mean_play(hole: tuple[str, ...], first: str | None = None) -> float:
    deck = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    rest = [c for c in deck if c not in hole and c not in BOARD]
    if first is None:
        hands = list(combinations(rest, 2))
    else:
        hands = [(first, c) for c in rest if c != first]
    return sum(play_1x(hole, h) for h in hands) / len(hands)


def river_round(dealer: tuple[str, str], action: str) -> RoundResult:
    seat = Seat(HOLE, {"ante": 1_000, "blind": 1_000}, [(0, "check", None), (1, "check", None)])
    seat.decisions.append((RIVER, action, 1_000 if action == "play" else None))
    t = play_round({1: seat}, community=BOARD, dealer=dealer)
    (result,) = rounds([t], CONFIG)
    return result


def valued(result: RoundResult, point: str | None = None) -> tuple[DecisionValue, ...]:
    ctx = result._context
    values = ctx.config.rules.decision_values
    assert values is not None
    return tuple(v for v in values.value(ctx.view, ctx.config) if point in (None, v.point))


def test_a_river_play_is_valued_over_the_dealers_hands() -> None:
    (value,) = valued(river_round(("9c", "4d"), "fold"), "after the river")
    # the known strategy plays a jack in the hole; this player folded
    assert (value.strategy, value.taken) == ("play", "fold")
    assert value.seen == pytest.approx((mean_play(HOLE), -2.0), abs=1e-12)
    assert value.first_card == pytest.approx((mean_play(HOLE, "9c"), -2.0), abs=1e-12)
    assert value.hidden == (2.0, -2.0)  # sevens, J kicker beat sevens, 9 kicker: Play + Ante
    deck = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    firsts = [c for c in deck if c not in HOLE and c not in BOARD]
    share = sum(mean_play(HOLE, c) > -2 for c in firsts) / len(firsts)
    assert value.chance_best == pytest.approx((share, 1 - share), abs=1e-12)
    assert value.best_first == ("play" if mean_play(HOLE, "9c") > -2 else "fold")


def test_a_dealer_ace_first_makes_folding_best() -> None:
    (value,) = valued(river_round(("As", "Ad"), "fold"), "after the river")
    by_hand = mean_play(HOLE, "As")
    assert by_hand < -2  # an ace pairs him or beats the jack kicker more often than not
    assert value.first_card[0] == pytest.approx(by_hand, abs=1e-12)
    assert value.best_first == "fold"


def test_a_raise_before_the_flop_is_not_valued() -> None:
    seat = Seat(HOLE, {"ante": 1_000, "blind": 1_000}, [(0, "play", 4_000)])
    (result,) = rounds([play_round({1: seat}, community=BOARD)], CONFIG)
    assert valued(result) == ()


def test_a_flop_check_is_valued_by_the_river_decision_it_leaves() -> None:
    """Hidden cards known (turn 7d, river 2s, the dealer's 9c 4d): 2x would win 2 + 1 (the
    Ante, the dealer qualifying with the board's sevens), the Blind pushing on a pair; a
    check then plays 1x at the river and wins 1 + 1."""
    result = river_round(("9c", "4d"), "play")
    (flop,) = valued(result, "on the flop")
    assert (flop.options, flop.taken) == (("play", "check"), "check")
    # the known strategy plays 2x on the flop with a pair using a hole card or a straight
    # or better: J-4 on K-Q-7 has neither
    assert flop.strategy == "check"
    assert flop.hidden == (3.0, 2.0)
    assert 0.0 <= flop.chance_best[0] <= 1.0
    assert flop.chance_best[0] + flop.chance_best[1] == pytest.approx(1.0)
    # the best option with the first card known is the larger of its two values
    play, check = flop.first_card
    assert flop.best_first == ("play" if play > check else "check")
    # the same round valued again gives the same estimate (its draw is seeded by the cards)
    assert valued(result, "on the flop") == (flop,)
