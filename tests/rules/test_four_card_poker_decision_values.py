"""Four Card Poker's fold or Play 1x-3x valued: hands whose answer is plain, the estimate
against an enumeration of the dealer's completions, the likelihood ratio of an honest
decision of mean one over the dealer's possible first cards, and the test across rounds
on simulated floors (a hole-carder found, honest players not).

Values in Antes (§ 641a.11(c)(3), § 641a.12(a), (b)): a fold -1; a Play of r Antes
(1 + r)(2p - 1) + B, p the chance his best four equal or beat the dealer's best four of
six, B the Ante bonus (25 to 1 on four of a kind)."""

from __future__ import annotations

import dataclasses
import math
from itertools import combinations

import numpy as np
import pytest

from tablewatch.patterns.advantage_play import ALTERNATIVES, AdvantagePlay, increment
from tablewatch.rules.audit import Auditor
from tablewatch.rules.cards import parse_cards
from tablewatch.rules.config import parse_config
from tablewatch.rules.game_rules import DecisionValue
from tablewatch.rules.hands import best4of5, best4of6_batch
from tablewatch.rules.judge import RoundResult
from tablewatch.sim.floor import Floor
from tablewatch.sim.games.four_card_poker import SIMULATOR as FOUR_CARD_POKER
from tablewatch.sim.players import HoleCarder
from tests.scenarios import fcp_deal, fcp_table, rounds

DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]
TENS = ("Th", "Td", "9c", "7s", "4h")  # a pair of tens
UP = "As"
FILLERS = ("2c", "3d", "5s", "8c", "Jh")  # the dealer's other face-down cards


def played(
    hand: tuple[str, ...], dealer: tuple[str, ...], action: str, amount: int | None = None
) -> RoundResult:
    """One round: seat 3 antes 1,000 with ``hand``, the dealer ``dealer`` (the sixth face
    up), seat 3 folds or plays ``amount``, the dealer reveals."""
    t = fcp_table()
    t.round_start("R-1", "D-1")
    t.wager(3, "ante", 1000)
    t.lockout()
    fcp_deal(t, {3: hand}, dealer)
    t.decision(3, action, amount=amount)
    t.reveal("dealer")
    t.round_end()
    (result,) = rounds([t])
    return result


def valued(result: RoundResult) -> tuple[DecisionValue, ...]:
    ctx = result._context
    values = ctx.config.rules.decision_values
    assert values is not None
    return values.value(ctx.view, ctx.config)


def dealer_with_first(first: str) -> tuple[str, ...]:
    others = [c for c in FILLERS if c != first][:4]
    return (first, *others, UP)


def test_four_aces_play_3x_whatever_the_dealer_holds() -> None:
    """The dealer cannot beat four aces: p = 1 for every first card, the bonus 25."""
    hand = ("Ah", "Ad", "Ac", "As", "2h")
    (value,) = valued(played(hand, ("Kc", "Kd", "Kh", "Ks", "3c", "Qd"), "play", 3000))
    assert value.options == ("fold", "1x", "2x", "3x")
    assert (value.taken, value.strategy, value.best_first) == ("3x", "3x", "3x")
    assert value.seen == (-1.0, 27.0, 28.0, 29.0)
    assert value.first_card == (-1.0, 27.0, 28.0, 29.0)
    assert value.hidden == (-1.0, 27.0, 28.0, 29.0)
    assert value.chance_best == (0.0, 0.0, 0.0, 1.0)


@pytest.mark.parametrize(
    ("hand", "named"),
    [(TENS, "pair (T)"), (("Ah", "Kd", "9c", "7s", "4h"), "high card (A)"),
     (("6h", "6d", "6c", "7s", "4h"), "three of a kind (6)"),
     (("Ah", "Ad", "Kc", "Ks", "4h"), "two pair (A)")],
)  # fmt: skip
def test_a_decision_names_the_class_of_the_hand_strategies_are_written_in(
    hand: tuple[str, ...], named: str
) -> None:
    """The best four's category and the rank naming it, as a player's own strategy is
    written ("play 3x with a pair of tens or better"): the advantage test learns his by it."""
    (value,) = valued(played(hand, dealer_with_first("Kh"), "fold"))
    assert value.hand_class == named


def test_a_dealer_ace_first_under_an_ace_up_makes_folding_best() -> None:
    """Tens against an ace up: the strategy plays 1x; with a second ace among the dealer's
    cards he holds aces and the tens never win (p = 0)."""
    (value,) = valued(played(TENS, dealer_with_first("Ah"), "play", 1000))
    assert (value.taken, value.strategy) == ("1x", "1x")
    assert value.first_card == (-1.0, -2.0, -3.0, -4.0)
    assert value.hidden == (-1.0, -2.0, -3.0, -4.0)
    assert value.best_first == "fold"
    # the three other aces make folding best, and some other cards too
    assert 3 / 46 <= value.chance_best[0] < 1.0


def test_the_estimate_is_close_to_the_enumeration_of_the_dealers_completions() -> None:
    """With the first card known (Kh), over the dealer's C(45,4) = 148,995 completions."""
    (value,) = valued(played(TENS, dealer_with_first("Kh"), "fold"))
    mine = best4of5(parse_cards(TENS))
    rest = [c for c in parse_cards(DECK) if c not in parse_cards((*TENS, UP, "Kh"))]
    fours = np.array(list(combinations(rest, 4)), dtype=np.int64)
    known = np.tile(np.array(parse_cards(("Kh", UP)), dtype=np.int64), (len(fours), 1))
    exact = float((best4of6_batch(np.concatenate([known, fours], axis=1)) <= mine).mean())
    estimated = (value.first_card[1] / 2 + 1) / 2  # 1x: 2(2p - 1)
    assert estimated == pytest.approx(exact, abs=0.05)  # about 2,000 hands: sd 0.011


@pytest.mark.parametrize("taken", ["fold", "1x", "2x", "3x"])
def test_an_honest_decisions_likelihood_ratio_has_mean_one_over_the_first_cards(
    taken: str,
) -> None:
    """The dealer's first card uniform over the 46 the player does not see (what he saw
    fixed): each alternative's likelihood ratio averages exactly 1, whatever he took."""
    seen = {*TENS, UP}
    values = [
        valued(played(TENS, dealer_with_first(first), "fold"))[0]
        for first in DECK
        if first not in seen
    ]
    assert len(values) == 46
    chances = values[0].chance_best
    assert all(v.chance_best == chances and v.seen == values[0].seen for v in values)
    for option, chance in zip(values[0].options, chances, strict=True):
        assert sum(v.best_first == option for v in values) / 46 == pytest.approx(chance)
    for sees, error_rate in ALTERNATIVES:
        ratios = [
            math.exp(increment(dataclasses.replace(v, taken=taken), sees, error_rate))
            for v in values
        ]
        assert sum(ratios) / len(ratios) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("amount", [1500, 4000])
def test_a_play_not_a_whole_one_to_three_antes_is_not_valued(amount: int) -> None:
    assert valued(played(TENS, dealer_with_first("Kh"), "play", amount)) == ()


def _judged(floor: Floor) -> list[RoundResult]:
    auditor = Auditor(parse_config(floor.config))
    return [r for r in auditor.feed_all(floor.events()) if isinstance(r, RoundResult)]


def test_a_hole_carder_who_always_sees_is_found_and_honest_seats_are_not() -> None:
    carder = HoleCarder(table=0, seat=3, sees=1.0, player_id="PC-77", seed=5)
    results = _judged(Floor(1, 200, 29, games=(FOUR_CARD_POKER,), hole_carders=(carder,)))
    fold = AdvantagePlay()
    findings = [f for r in results for f in fold.feed(r)]
    assert findings and {f.unit for f in findings} == {"PC-77"}
    valued_here = [v for r in results for v in valued(r) if v.seat == 3]
    assert len(valued_here) >= 150
    assert all(v.taken == v.best_first for v in valued_here)


def test_honest_units_of_a_fixed_floor_raise_nothing() -> None:
    fold = AdvantagePlay()
    findings = [
        f for r in _judged(Floor(2, 600, 29, games=(FOUR_CARD_POKER,))) for f in fold.feed(r)
    ]
    assert findings == []
    assert len(fold.units) > 10
    assert max(u.llr for u in fold.units.values()) < math.log(20_000)
