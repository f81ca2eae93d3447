"""Ultimate Texas Hold 'Em's Play 1x or fold after the river, valued: checked against an
enumeration of the dealer's hands written here (settlement as § 653a.12(a), (b): a win
pays the Play 1 to 1, the Ante 1 to 1 when the dealer qualifies with a pair or better, the
Blind by its table A, which pays no pair: a push; a loss takes them; a tie pushes)."""

from __future__ import annotations

import dataclasses
import math
from itertools import combinations

import numpy as np
import pytest

from tablewatch.patterns.advantage_play import ALTERNATIVES, increment
from tablewatch.rules.cards import parse_cards
from tablewatch.rules.game_rules import DecisionValue
from tablewatch.rules.games.ultimate_texas_holdem.decision_values import preflop_values
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


def preflop_round(
    hole: tuple[str, str],
    action: str,
    amount: int | None = None,
    dealer: tuple[str, str] = ("9c", "4d"),
    board: tuple[str, ...] = BOARD,
) -> RoundResult:
    """Seat 1 (Ante and Blind 1,000) raises ``amount`` or checks before the flop; a check
    is followed by checks and a fold."""
    moves: list[tuple[int, str, int | None]] = [(0, action, amount)]
    if action == "check":
        moves += [(1, "check", None), (RIVER, "fold", None)]
    seat = Seat(hole, {"ante": 1_000, "blind": 1_000}, moves)
    (result,) = rounds([play_round({1: seat}, community=board, dealer=dealer)], CONFIG)
    return result


def test_a_raise_before_the_flop_is_valued_with_the_hidden_cards_by_hand() -> None:
    """Hidden cards known (board K-Q-7-7-2, the dealer's 9c 4d): sevens, jack kicker, beat
    sevens, nine kicker; the dealer qualifies (the Ante wins 1), the Blind pushes on a pair:
    4x nets 4 + 1, 3x 3 + 1, a check would play 2x on the flop: 2 + 1."""
    (value,) = valued(preflop_round(HOLE, "play", 4_000))
    assert value.point == "before the flop"
    assert (value.options, value.taken) == (("4x", "3x", "check"), "4x")
    assert value.strategy == "check"  # J-4 offsuit is not among the strategy's raises
    assert value.hidden == (5.0, 4.0, 3.0)
    assert sum(value.chance_best) == pytest.approx(1.0)
    # the same round valued again gives the same estimate (its draw is seeded by the cards)
    assert valued(preflop_round(HOLE, "play", 4_000)) == (value,)


def test_pocket_aces_raise_4x_and_seven_deuce_checks_whatever_the_first_card() -> None:
    (aces,) = valued(preflop_round(("As", "Ad"), "play", 3_000))
    assert (aces.taken, aces.strategy, aces.best_first) == ("3x", "4x", "4x")
    assert aces.chance_best == (1.0, 0.0, 0.0)
    assert aces.seen[0] > aces.seen[1] > 0 and aces.seen[0] > aces.seen[2]
    seven_deuce = valued(preflop_round(("7c", "2d"), "check"))
    (junk,) = (v for v in seven_deuce if v.point == "before the flop")
    assert (junk.taken, junk.strategy, junk.best_first) == ("check", "check", "check")
    assert junk.chance_best == (0.0, 0.0, 1.0)
    assert junk.seen[2] > junk.seen[0]


def test_hands_of_the_same_ranks_and_suitedness_get_the_same_values() -> None:
    """K-5 offsuit in hearts and spades, and in diamonds and clubs: the same estimate, the
    dealer's first card's suit mapped alike (a queen of the king's suit, of the five's, of
    a third suit; a five of a suit neither holds)."""
    one = preflop_values(tuple(parse_cards(["Kh", "5s"])), "A")
    other = preflop_values(tuple(parse_cards(["5c", "Kd"])), "A")
    assert one.seen == other.seen
    for first, same in (("Qh", "Qd"), ("Qs", "Qc"), ("Qc", "Qh"), ("5d", "5s")):
        (a,) = parse_cards([first])
        (b,) = parse_cards([same])
        assert one.by_first[a].tolist() == other.by_first[b].tolist()
    assert np.isnan(one.by_first[parse_cards(["Kh"])[0]]).all()


@pytest.mark.parametrize("taken", ["4x", "3x", "check"])
def test_an_honest_raises_likelihood_ratio_has_mean_one_over_the_first_cards(taken: str) -> None:
    """K-5 offsuit (4x best for some first cards, a check for others): the dealer's first
    card uniform over the 50 cards the player does not see, each alternative's likelihood
    ratio averages exactly 1, whatever he took."""
    hole = ("Kh", "5s")
    deck = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    fillers = ("2c", "3d", "8s", "9h", "Tc", "Jd", "6h")
    values = []
    for first in (c for c in deck if c not in hole):
        second, *board = [c for c in fillers if c != first][:6]
        result = preflop_round(hole, "play", 4_000, dealer=(first, second), board=tuple(board))
        values += [v for v in valued(result) if v.point == "before the flop"]
    assert len(values) == 50
    assert 0 < values[0].chance_best[0] < 1
    for option, chance in zip(values[0].options, values[0].chance_best, strict=True):
        assert sum(v.best_first == option for v in values) / 50 == pytest.approx(chance)
    for sees, error_rate in ALTERNATIVES:
        ratios = [
            math.exp(increment(dataclasses.replace(v, taken=taken), sees, error_rate))
            for v in values
        ]
        assert sum(ratios) / len(ratios) == pytest.approx(1.0, abs=1e-12)


def test_a_play_before_the_flop_of_another_size_is_not_valued() -> None:
    assert valued(preflop_round(HOLE, "play", 2_000)) == ()


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
