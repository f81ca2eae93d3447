"""Let It Ride's Bet 1, ride or pull, valued: checked against an enumeration written here.

Pay table A (§ 643a.12(a)) by a ranking written out for the test: royal flush 1000, straight
flush 200, four of a kind 50, full house 11, flush 8, straight 5, three of a kind 3, two pair
2, a pair of tens or better 1 (to 1); anything else loses the unit."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from tablewatch.rules.game_rules import DecisionValue
from tablewatch.rules.judge import RoundResult
from tests.scenarios import lir_deal, lir_table, rounds

RANKS = "23456789TJQKA"
DECK = [r + s for r in RANKS for s in "cdhs"]


def net(five: tuple[str, ...]) -> int:
    ranks = sorted((RANKS.index(c[0]) for c in five), reverse=True)
    counts = sorted(Counter(ranks).values(), reverse=True)
    flush = len({c[1] for c in five}) == 1
    distinct = sorted(set(ranks))
    straight = len(distinct) == 5 and (
        distinct[4] - distinct[0] == 4 or distinct == [0, 1, 2, 3, 12]
    )
    if straight and flush:
        return 1000 if distinct[0] == RANKS.index("T") else 200
    if counts[0] == 4:
        return 50
    if counts[:2] == [3, 2]:
        return 11
    if flush:
        return 8
    if straight:
        return 5
    if counts[0] == 3:
        return 3
    if counts[:2] == [2, 2]:
        return 2
    if counts[0] == 2:
        pair = next(r for r, n in Counter(ranks).items() if n == 2)
        return 1 if pair >= RANKS.index("T") else -1
    return -1


def mean_net(known: tuple[str, ...]) -> float:
    rest = [c for c in DECK if c not in known]
    hands = [(*known, *more) for more in combinations(rest, 5 - len(known))]
    return sum(net(h) for h in hands) / len(hands)


def bet1_round(hand: str, community: str, action: str) -> RoundResult:
    t = lir_table()
    t.round_start("R-1", "D-1")
    for bet in ("bet1", "bet2", "bet3"):
        t.wager(2, bet, 1_000)
    t.lockout()
    lir_deal(t, {2: hand.split()}, community.split())
    t.stub_count(47)
    t.decision(2, action, "bet1")
    t.reveal("community", 1)
    t.decision(2, "pull", "bet2")
    t.reveal("community", 2)
    t.round_end()
    (result,) = rounds([t])
    return result


def valued(result: RoundResult) -> DecisionValue:
    ctx = result._context
    values = ctx.config.rules.decision_values
    assert values is not None
    (value,) = values.value(ctx.view, ctx.config)
    return value


def test_three_to_a_royal_rides_and_a_seven_high_pulls() -> None:
    royal = valued(bet1_round("Jh Qh Kh", "2c 5d", "ride"))
    seven = valued(bet1_round("7c 2d 9s", "2c 5d", "pull"))
    assert mean_net(("Jh", "Qh", "Kh")) > 0 > mean_net(("7c", "2d", "9s"))
    assert (royal.strategy, seven.strategy) == ("ride", "pull")
    hand = ("Jh", "Qh", "Kh")
    firsts = [c for c in DECK if c not in hand]
    bet2 = sum(max(mean_net((*hand, c)), 0.0) for c in firsts) / len(firsts)
    three = mean_net(hand)
    assert royal.seen == pytest.approx((2 * three + bet2, three + bet2), abs=1e-9)


def test_seeing_a_ten_first_makes_riding_ten_jack_best() -> None:
    hand = ("Th", "Jd", "4c")
    value = valued(bet1_round("Th Jd 4c", "Tc 5d", "pull"))
    assert mean_net(hand) < 0  # the strategy pulls
    assert value.strategy == "pull"
    first = mean_net((*hand, "Tc"))  # a pair of tens: never below 1
    assert first >= 1
    assert value.first_card == pytest.approx((3 * first, 2 * first), abs=1e-9)
    assert value.best_first == "ride"
    final = net((*hand, "Tc", "5d"))
    assert final == 1
    assert value.hidden == (3.0, 2.0)
    firsts = [c for c in DECK if c not in hand]
    share = sum(mean_net((*hand, c)) > 0 for c in firsts) / len(firsts)
    assert value.chance_best == pytest.approx((share, 1 - share), abs=1e-12)
