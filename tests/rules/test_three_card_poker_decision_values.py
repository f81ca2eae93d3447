"""Three Card Poker's play or fold valued: checked against an enumeration written here.

The ranking below is written out for the test (straight flush, three of a kind,
straight, flush, pair, high card; A-2-3 the lowest straight), independently of
``rules/hands``; the Play's outcome follows the settlement: the dealer not
qualifying (below queen high) +1, a lower hand +2, a tie 0, a higher hand -2,
in Antes, with the Ante bonus (5-4-1 here: straight flush, trips, straight) on top.
"""

from __future__ import annotations

from itertools import combinations

import pytest

from tablewatch.rules.game_rules import DecisionValue
from tablewatch.rules.judge import RoundResult
from tablewatch.script import TableScript
from tests.rules.test_three_card_poker import CONFIG, deal, table
from tests.scenarios import rounds

RANKS = "23456789TJQKA"
DECK = [r + s for r in RANKS for s in "cdhs"]


def rank3(hand: tuple[str, ...]) -> tuple[int, ...]:
    """Category first, then the ranks that break ties, highest first."""
    values = sorted((RANKS.index(c[0]) for c in hand), reverse=True)
    flush = len({c[1] for c in hand}) == 1
    if values == [12, 1, 0]:  # A-3-2: a straight, three high
        straight_top: int | None = 1
    elif values[0] - values[1] == 1 and values[1] - values[2] == 1:
        straight_top = values[0]
    else:
        straight_top = None
    if straight_top is not None and flush:
        return (5, straight_top)
    if values[0] == values[2]:
        return (4, values[0])
    if straight_top is not None:
        return (3, straight_top)
    if flush:
        return (2, *values)
    if values[0] == values[1] or values[1] == values[2]:
        pair = values[1]
        kicker = values[2] if values[0] == values[1] else values[0]
        return (1, pair, kicker)
    return (0, *values)


QUEEN_HIGH = (0, RANKS.index("Q"), 1, 0)  # Q-3-2, the lowest qualifying hand


def play_outcome(mine: tuple[str, ...], dealer: tuple[str, ...]) -> int:
    theirs = rank3(dealer)
    if theirs < QUEEN_HIGH:
        return 1
    ours = rank3(mine)
    return 2 if ours > theirs else 0 if ours == theirs else -2


def play_value(mine: tuple[str, ...], known: tuple[str, ...] = ()) -> float:
    """The Play's mean over the dealer's hands holding ``known`` (no Ante bonus)."""
    rest = [c for c in DECK if c not in mine and c not in known]
    hands = [(*known, *more) for more in combinations(rest, 3 - len(known))]
    return sum(play_outcome(mine, h) for h in hands) / len(hands)


def one_round(hand: str, dealer: str, action: str) -> RoundResult:
    """Seat 1 holds ``hand`` at TCP-2 (Ante bonus 5-4-1) and plays or folds."""
    t: TableScript = table("TCP-2")
    t.round_start("R-1", "D-1")
    t.wager(1, "ante", 1_000)
    t.lockout()
    deal(t, {1: hand.split()}, dealer.split())
    t.decision(1, action, amount=1_000 if action == "play" else None)
    t.reveal("dealer")
    t.round_end()
    (result,) = rounds([t], CONFIG)
    return result


def valued(result: RoundResult) -> DecisionValue:
    ctx = result._context
    values = ctx.config.rules.decision_values
    assert values is not None
    (value,) = values.value(ctx.view, ctx.config)
    return value


def test_the_known_strategy_is_queen_six_four_the_edge_modules() -> None:
    from tablewatch.rules.games import rules_of

    values = rules_of("three_card_poker").decision_values
    assert values is not None
    assert values.strategy == "play Q-6-4 or better, fold the rest"
    assert values.source == "three_card_poker.ante_play_edge"


def test_queen_six_four_plays_and_queen_six_three_folds_by_their_values() -> None:
    q64 = play_value(("Qc", "6d", "4h"))
    q63 = play_value(("Qc", "6d", "3h"))
    assert q64 > -1 > q63  # a fold loses the Ante: -1
    played = valued(one_round("Qc 6d 4h", "Ks 9s 2c", "play"))
    folded = valued(one_round("Qc 6d 3h", "Ks 9s 2c", "fold"))
    assert (played.strategy, played.taken, folded.strategy, folded.taken) == (
        "play",
        "play",
        "fold",
        "fold",
    )
    assert played.seen == pytest.approx((q64, -1.0), abs=1e-12)
    assert folded.seen == pytest.approx((q63, -1.0), abs=1e-12)
    # the dealer's king high beats either: -2 with all his cards known
    assert played.hidden == (-2.0, -1.0)


def test_queen_six_three_seeing_a_dealer_two_should_play() -> None:
    value = valued(one_round("Qc 6d 3h", "2s 9h 5c", "fold"))
    by_hand = play_value(("Qc", "6d", "3h"), ("2s",))  # the 1,128 completions of a 2
    assert by_hand > -1.0
    assert value.first_card == pytest.approx((by_hand, -1.0), abs=1e-12)
    assert value.best_first == "play"
    # 9-5-2 does not qualify: the Play would have won the Ante and pushed
    assert value.hidden == (1.0, -1.0)
    # the share of the 49 first cards the dealer could hold for which playing is best
    mine = ("Qc", "6d", "3h")
    firsts = [c for c in DECK if c not in mine]
    share = sum(play_value(mine, (c,)) > -1 for c in firsts) / len(firsts)
    assert value.chance_best == pytest.approx((share, 1 - share), abs=1e-12)


def test_the_ante_bonus_is_added_to_a_play() -> None:
    # a straight, 1 to 1 Ante bonus at 5-4-1: every Play value is one Ante higher
    value = valued(one_round("9c Td Jh", "Ac Ad Ah", "play"))
    mine = ("9c", "Td", "Jh")
    assert value.seen[0] == pytest.approx(play_value(mine) + 1, abs=1e-12)
    assert value.first_card[0] == pytest.approx(play_value(mine, ("Ac",)) + 1, abs=1e-12)
    assert value.hidden == (-1.0, -1.0)  # lost to three aces (above a straight): -2 + 1
