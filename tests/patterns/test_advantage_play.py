"""ADVANTAGE_PLAY_SUSPECTED: the sequential test's arithmetic, honest floors, a hole-carder."""

from __future__ import annotations

import copy
import itertools
import math

import msgspec
import pytest

from tablewatch.patterns.advantage_play import (
    ALTERNATIVES,
    AdvantagePlay,
    Settings,
    increment,
    learn_own,
    own_share,
    round_increment,
    threshold_after,
)
from tablewatch.patterns.pattern_round import Decision, PatternRound
from tablewatch.rules.audit import Auditor
from tablewatch.rules.config import parse_config
from tablewatch.rules.events import Wager
from tablewatch.rules.game_rules import DecisionValue
from tablewatch.rules.judge import RoundResult
from tablewatch.sim.floor import Floor
from tablewatch.sim.games import SimulatedGame
from tablewatch.sim.games.let_it_ride import SIMULATOR as LET_IT_RIDE
from tablewatch.sim.games.three_card_poker import SIMULATOR as THREE_CARD_POKER
from tablewatch.sim.games.ultimate_texas_holdem import SIMULATOR as ULTIMATE_TEXAS_HOLDEM
from tablewatch.sim.players import HoleCarder
from tests.rules.test_three_card_poker import CONFIG, deal, table
from tests.scenarios import configs, rounds


def decision(taken: str, strategy: str, best: str, chance_play: float) -> DecisionValue:
    """A play-or-fold decision; ``chance_play``: the share of first cards where playing is
    best."""
    return DecisionValue(
        seat=3,
        event_id="E",
        point="play or fold",
        options=("play", "fold"),
        taken=taken,
        strategy=strategy,
        seen=(-1.1, -1.0),
        first_card=(-0.8, -1.0),
        hidden=(1.0, -1.0),
        chance_best=(chance_play, 1 - chance_play),
        best_first=best,
    )


def test_an_increment_is_the_log_of_the_two_likelihoods_worked_by_hand() -> None:
    # p = 0.5, eps = 0.02. Played against the strategy (sigma = 0.02), playing best with the
    # first card seen, which it is for a quarter of the first cards:
    # (0.5 * 1 + 0.5 * 0.02) / (0.5 * 0.25 + 0.5 * 0.02) = 0.51 / 0.135
    assert increment(decision("play", "fold", "play", 0.25), 0.5, 0.02) == pytest.approx(
        math.log(0.51 / 0.135)
    )
    # folded as the strategy says (sigma = 0.98) though playing was best with the card seen:
    # (0.5 * 0 + 0.5 * 0.98) / (0.5 * 0.75 + 0.5 * 0.98) = 0.49 / 0.865
    assert increment(decision("fold", "fold", "play", 0.25), 0.5, 0.02) == pytest.approx(
        math.log(0.49 / 0.865)
    )
    # an option best whatever the first card weighs nothing
    assert increment(decision("play", "play", "play", 1.0), 0.5, 0.02) == 0.0


@pytest.mark.parametrize("taken", ["play", "fold"])
@pytest.mark.parametrize("strategy", ["play", "fold"])
def test_an_honest_decision_s_likelihood_ratio_has_mean_one(taken: str, strategy: str) -> None:
    """Whatever the player's own strategy, the first card is best-for-his-option with its
    chance q: E[exp(increment)] = q * LR(matched) + (1 - q) * LR(not matched) = 1 (Ville's
    bound rests on it)."""
    q_play = 0.3
    q = q_play if taken == "play" else 1 - q_play
    other = "fold" if taken == "play" else "play"
    matched = math.exp(increment(decision(taken, strategy, taken, q_play), 0.5, 0.02))
    missed = math.exp(increment(decision(taken, strategy, other, q_play), 0.5, 0.02))
    assert q * matched + (1 - q) * missed == pytest.approx(1.0)


def test_his_own_strategy_is_learnt_by_class_each_decision_weighed_by_the_card() -> None:
    # A class neither he nor the floor has decided in: each option 0.1 of a decision, the
    # strategy's 1 more: fold (the strategy's) 1.1 / 1.2, play 0.1 / 1.2; his own share
    # starts from that prior counted as 2 decisions.
    fold_it = decision("fold", "fold", "play", 0.25)
    play_it = decision("play", "fold", "play", 0.25)
    own: dict[str, dict[str, float]] = {}
    assert own_share(fold_it, own) == pytest.approx(1.1 / 1.2)
    assert own_share(play_it, own) == pytest.approx(0.1 / 1.2)
    # A fold where the card he could have seen says play: his own strategy chose it
    # (weight 1). Then play's share is (0 + 2 * 0.1 / 1.2) / (1 + 2) = 1/18, and a play the
    # card explains counts (1 - p) sigma / (p + (1 - p) sigma), p = 0.5: 1/19.
    assert learn_own(own, [fold_it], 0.5) == [1.0]
    assert own_share(play_it, own) == pytest.approx(1 / 18)
    assert learn_own(own, [play_it], 0.5) == [pytest.approx(1 / 19)]
    assert list(own) == ["play or fold: the strategy says fold"]
    assert own["play or fold: the strategy says fold"] == pytest.approx(
        {"fold": 1.0, "play": 1 / 19}
    )
    assert own_share(play_it, own) == pytest.approx((1 / 19 + 2 / 12) / (1 + 1 / 19 + 2))
    # the floor's decisions of the class (30 plays, 10 folds) are the prior instead:
    # play's (30 + 0.1) / (40 + 1.2)
    floor = {"play or fold: the strategy says fold": {"play": 30.0, "fold": 10.0}}
    assert own_share(play_it, {}, floor) == pytest.approx(30.1 / 41.2)
    assert own_share(play_it, own, floor) == pytest.approx(
        (1 / 19 + 2 * 30.1 / 41.2) / (1 + 1 / 19 + 2)
    )
    # another class is learnt apart: the same hand where the strategy plays
    assert own_share(decision("play", "play", "play", 0.25), own) == pytest.approx(1.1 / 1.2)
    # a share is kept within 1% of 0 and 1, however many decisions
    own["play or fold: the strategy says fold"]["fold"] = 1e6
    assert own_share(fold_it, own) == 0.99 and own_share(play_it, own) == 0.01


@pytest.mark.parametrize("counts", [{}, {"play": 3.0}, {"fold": 40.0, "play": 0.5}])
@pytest.mark.parametrize("on_floor", [{}, {"play": 12.0, "fold": 2.0}])
def test_the_learnt_alternative_keeps_an_honest_mean_of_one(
    counts: dict[str, float], on_floor: dict[str, float]
) -> None:
    # whatever has been learnt of him and the floor, over the first cards (play best on a
    # share 0.3)
    own = {"play or fold: the strategy says fold": counts}
    floor = {"play or fold: the strategy says fold": on_floor}
    for taken in ("play", "fold"):
        value = decision(taken, "fold", taken, 0.3)
        matched = math.exp(increment(value, 0.5, None, own, floor))
        other = "fold" if taken == "play" else "play"
        value = decision(taken, "fold", other, 0.3)
        missed = math.exp(increment(value, 0.5, None, own, floor))
        q = 0.3 if taken == "play" else 0.7
        assert q * matched + (1 - q) * missed == pytest.approx(1.0, abs=1e-12)


def test_the_statistic_crosses_its_threshold_on_the_fourteenth_such_decision() -> None:
    # The first alternative (p 0.5) learns his own strategy: the share of his decisions of
    # the class ("play or fold", the strategy saying fold) that played, c his weighted count
    # of them so far, from a prior worth 2 decisions, the floor's share: the floor's plays
    # (his alone here, c) with 0.1 more for each of the two options and 1 more for the
    # strategy's fold, pi = (c + 0.1) / (c + 1.2); sigma = (c + 2 pi) / (c + 2), 1/12 at
    # first. Each decision multiplies its likelihood ratio by
    # (0.5 + 0.5 sigma) / (0.5 * 0.25 + 0.5 sigma), 3.25 at first, and adds sigma / (1 + sigma)
    # to c (the chance he played by his own strategy, not by the card). The second (p 0.5,
    # eps 0.25, sigma 0.25): (0.5 + 0.125) / 0.25 = 2.5 each. The statistic: the log of their
    # mean weighted 0.9 and 0.1, against the threshold of a unit's first quarter hour of play
    # (these rounds take a minute each), ln(40,000) = 10.597.
    factors = []
    c = 0.0
    for _ in range(16):
        pi = (c + 0.1) / (c + 1.2)
        sigma = (c + 2 * pi) / (c + 2)
        factors.append((0.5 + 0.5 * sigma) / (0.125 + 0.5 * sigma))
        c += sigma / (1 + sigma)
    assert factors[0] == pytest.approx(3.25)
    # c = 1/13 after the first: sigma = 0.1705
    assert factors[1] == pytest.approx((0.5 + 0.5 * 0.1705) / (0.125 + 0.5 * 0.1705), abs=1e-3)

    def statistic(learnt: list[float]) -> float:
        return math.log(0.9 * math.prod(learnt) + 0.1 * 2.5 ** len(learnt))

    assert statistic(factors[:13]) < math.log(40_000) <= statistic(factors[:14])
    fold = AdvantagePlay(Settings())
    findings = []
    for n in range(1, 17):
        value = decision("play", "fold", "play", 0.25)
        found = fold.observe(
            "PC-9",
            value,
            "TCP-01",
            f"R-{n}",
            f"2026-12-01T10:{n:02d}:00.000Z",
            f"2026-12-01T10:{n:02d}:30.000Z",
        )
        if found is not None:
            findings.append((n, found))
    assert [n for n, _ in findings] == [14]
    ((_, finding),) = findings
    assert finding.check == "ADVANTAGE_PLAY_SUSPECTED"
    assert finding.unit == "PC-9" and finding.table_id == "TCP-01" and finding.seat == 3
    assert finding.statistic == pytest.approx(statistic(factors[:14]))
    assert finding.threshold == pytest.approx(math.log(40_000))
    assert finding.false_alarm_rate == (
        "at most 1 per 10,000 honest player-hours (the threshold after 0.2 h of play)"
    )
    assert len(finding.evidence) == 5  # the five heaviest rounds: the first, the largest
    assert finding.evidence[0] == ("TCP-01", "R-1")
    assert (finding.first_ts, finding.last_ts) == (
        "2026-12-01T10:01:00.000Z",
        "2026-12-01T10:14:30.000Z",
    )
    # started again after it, his strategy as learnt kept
    assert fold.units["PC-9"].llr == pytest.approx(statistic(factors[14:16]))


def _judged(floor: Floor) -> list[RoundResult]:
    auditor = Auditor(parse_config(floor.config))
    return [r for r in auditor.feed_all(floor.events()) if isinstance(r, RoundResult)]


@pytest.mark.parametrize("game", [THREE_CARD_POKER, LET_IT_RIDE])
def test_honest_units_of_a_fixed_floor_raise_nothing(game: SimulatedGame) -> None:
    floor = Floor(2, 800, 29, games=(game,))
    fold = AdvantagePlay()
    findings = [f for r in _judged(floor) for f in fold.feed(r)]
    assert findings == []
    assert len(fold.units) > 10  # seats in each dealer's down, every one of them judged
    assert max(u.llr for u in fold.units.values()) < math.log(10_000)


@pytest.mark.parametrize(
    ("game", "rounds"),
    [(THREE_CARD_POKER, 150), (ULTIMATE_TEXAS_HOLDEM, 120), (LET_IT_RIDE, 200)],
)
def test_a_hole_carder_who_always_sees_is_found_by_his_player_id(
    game: SimulatedGame, rounds: int
) -> None:
    carder = HoleCarder(table=0, seat=3, sees=1.0, player_id="PC-77", seed=5)
    floor = Floor(1, rounds, 29, games=(game,), hole_carders=(carder,))
    results = _judged(floor)
    fold = AdvantagePlay()
    findings = [f for r in results for f in fold.feed(r)]
    assert findings and {f.unit for f in findings} == {"PC-77"}
    assert findings[0].seat == 3
    # he sat at seat 3 every round, his wagers carrying his id, and took the option best
    # with the dealer's first card known every time it was valued
    valued = 0
    for result in results:
        ctx = result._context
        ids = {e.player_id for e in ctx.rnd.wager_events if type(e) is Wager and e.seat == 3}
        assert ids == {"PC-77"}
        values = ctx.config.rules.decision_values
        assert values is not None
        for value in values.value(ctx.view, ctx.config):
            if value.seat == 3:
                assert value.taken == value.best_first
                valued += 1
    assert valued >= rounds // 4


def test_the_same_floor_without_him_is_the_floor_without_the_option() -> None:
    plain = list(Floor(1, 40, 29, games=(THREE_CARD_POKER,)).events())
    nobody = list(Floor(1, 40, 29, games=(THREE_CARD_POKER,), hole_carders=()).events())
    assert plain == nobody
    carder = HoleCarder(table=0, seat=3, sees=0.0, seed=5)  # never sees: plays as the others
    seated = list(Floor(1, 40, 29, games=(THREE_CARD_POKER,), hole_carders=(carder,)).events())
    assert all(getattr(e, "player_id", None) is None for e in seated)


def test_a_hole_carder_at_a_table_the_floor_lacks_is_refused() -> None:
    with pytest.raises(ValueError, match="hole-carder: table 3 is not 0 to 1"):
        Floor(2, 10, 1, hole_carders=(HoleCarder(table=3, seat=1, sees=0.5),))


def test_the_threshold_is_the_deciding_tables_setting() -> None:
    config = copy.deepcopy(CONFIG)
    config["tables"]["TCP-2"]["patterns"] = {"advantage_false_alarm_hours": 1}
    t = table("TCP-2")
    for round_id in ("R-1", "R-2"):
        t.round_start(round_id, "D-1")
        t.wager(1, "ante", 1_000, player_id="PC-3")
        t.lockout()
        # plays by Q-6-4; a king first: fold
        deal(t, {1: ["Qc", "6d", "4h"]}, ["Ks", "9h", "5c"])
        t.decision(1, "fold")
        t.reveal("dealer")
        t.round_end()
    first, second = rounds([t], config)
    fold = AdvantagePlay()
    assert fold.feed(first) == []  # one such fold is not enough, even at ln 4
    (finding,) = fold.feed(second)
    assert (finding.unit, finding.seat) == ("PC-3", 1)
    assert set(finding.evidence) == {("TCP-2", "R-1"), ("TCP-2", "R-2")}
    assert finding.threshold == pytest.approx(math.log(4))  # 2 * 1 h / half an hour
    assert finding.false_alarm_rate == (
        "at most 1 per 1 honest player-hours (the threshold after 0.0 h of play)"
    )
    config["tables"]["TCP-2"]["patterns"] = {"advantage_false_alarm_hours": 0}
    with pytest.raises(ValueError, match=r"patterns\.advantage_false_alarm_hours: 0 is under 1"):
        configs(config)


def _decision(point: str, best_first: str) -> DecisionValue:
    return DecisionValue(
        seat=2, event_id=f"e-{point}", point=point, options=("x", "y"), taken="x",
        strategy="x", seen=(0.0, 0.0), first_card=(0.0, 0.0), hidden=(0.0, 0.0),
        chance_best=(0.5, 0.5), best_first=best_first,
    )  # fmt: skip


def test_a_rounds_decisions_on_one_first_card_keep_the_honest_mean_of_one() -> None:
    # four first cards, equally likely to an honest player; with two of them "x" is best
    # at both of the round's decisions (they rest on the same card), with two "y"
    rounds = [
        [_decision("first", best), _decision("second", best)] for best in ("x", "x", "y", "y")
    ]
    for sees, error_rate in ALTERNATIVES:
        each = [round_increment(values, sees, error_rate) for values in rounds]
        assert sum(math.exp(x) for x in each) / 4 == pytest.approx(1.0, abs=1e-12)
        # multiplied, the two factors would not keep it: 1.12 here for the learnt alternative
        # before he has decided, 1.16 for e = 25%
        product = [
            math.exp(sum(increment(v, sees, error_rate) for v in values)) for values in rounds
        ]
        assert sum(product) / 4 > 1.05
    # one decision alone adds its own increment, as before
    single = _decision("only", "y")
    assert round_increment([single], 0.5, 0.02) == increment(single, 0.5, 0.02)


@pytest.mark.parametrize(
    ("weights", "reason"),
    [((0.5,), "1 for 2 alternatives"), ((0.9, 0.2), "not positive summing to 1"),
     ((1.0, 0.0), "not positive summing to 1")],
)  # fmt: skip
def test_settings_refuse_weights_that_break_the_bound(
    weights: tuple[float, ...], reason: str
) -> None:
    with pytest.raises(ValueError, match=reason):
        Settings(weights=weights)


@pytest.mark.parametrize(
    ("hours", "c"),
    [(0.05, 40_000), (0.25, 40_000), (0.5, 20_000), (1.0, 10_000), (2.0, 5_000),
     (3.5, 10_000 / 3.5), (4.0, 2_500), (16.0, 625), (60.0, 10_000 / 60)],
)  # fmt: skip
def test_a_units_threshold_falls_as_it_plays(hours: float, c: float) -> None:
    assert threshold_after(hours, 10_000) == pytest.approx(math.log(c))


def test_the_thresholds_spend_at_most_one_false_finding_per_10000_player_hours() -> None:
    """The threshold never rises as a unit plays, so an honest unit of T hours is flagged
    only if its statistic reaches its last threshold, which by Ville's bound it does with
    probability at most max(T, a quarter hour) / 10,000 (the module's docstring)."""
    grid = [n / 100 for n in range(1, 6_001)]  # 0.01 h to 60 h
    thresholds = [threshold_after(hours, 10_000) for hours in grid]
    assert all(later <= earlier for earlier, later in itertools.pairwise(thresholds))
    for hours in [0.05, 0.25, 0.5, 0.6, 0.99, 1.0, 1.5, 2.5, 5.0, 9.0, 15.9, 16.0, 33.0, 60.0]:
        bound = math.exp(-threshold_after(hours, 10_000))
        assert bound == pytest.approx(max(hours, 0.25) / 10_000), hours


def test_a_units_clock_counts_its_rounds_and_gaps_up_to_five_minutes() -> None:
    fold = AdvantagePlay()
    value = decision("play", "play", "play", 1.0)  # weighs nothing
    fold.observe("PC-1", value, "T", "R-1", "2026-12-01T10:00:00.000Z", "2026-12-01T10:01:00.000Z")
    fold.observe("PC-1", value, "T", "R-2", "2026-12-01T10:02:00.000Z", "2026-12-01T10:03:00.000Z")
    # an hour away from the table: five minutes of it count
    fold.observe("PC-1", value, "T", "R-3", "2026-12-01T11:03:00.000Z", "2026-12-01T11:04:00.000Z")
    assert fold.units["PC-1"].played_ms == (1 + 1 + 1 + 1 + 5) * 60_000


def test_a_state_saved_without_learnt_strategies_loads_with_empty_tables() -> None:
    # a unit's state as saved before the fold learnt players' strategies: no "own"
    saved = msgspec.msgpack.encode(
        {
            "PC-1": {
                "llrs": [1.5, 0.5], "llr": 1.4, "decisions": 7, "against_strategy": 2,
                "played_ms": 420_000, "last_end_ms": 1_000, "first_ts": "A", "last_ts": "B",
                "tables": ["TCP-01"], "seat": 3, "heaviest": [[0.7, "TCP-01", "R-3"]],
            }
        }
    )  # fmt: skip
    fold = AdvantagePlay()
    fold.load(saved)
    state = fold.units["PC-1"]
    assert (state.llr, state.decisions, state.played_ms, state.own) == (1.4, 7, 420_000, {})
    fold.observe(
        "PC-1",
        decision("fold", "fold", "play", 0.25),
        "TCP-01",
        "R-4",
        "2026-12-01T10:00:00.000Z",
        "2026-12-01T10:00:30.000Z",
    )
    assert state.own == {"play or fold: the strategy says fold": {"fold": 1.0}}
    assert fold.floor == state.own  # the floor's table: his decision, the only one
    again = AdvantagePlay()
    again.load(fold.save())
    assert again.units["PC-1"].own == state.own
    assert again.floor == fold.floor


def _round(n: int, units: list[str]) -> PatternRound:
    """Round ``n`` of TCP-01 in which each of ``units`` played against the strategy's fold,
    play being best with the first card (a share 0.25 of them)."""
    value = decision("play", "fold", "play", 0.25)
    return PatternRound(
        table_id="TCP-01", round_id=f"R-{n}", start_event_id=f"e-{n}",
        start_ts=f"2026-12-01T10:{n:02d}:00.000Z", end_ts=f"2026-12-01T10:{n:02d}:30.000Z",
        dealer_id="D-1", voided=False, codes=(),
        decisions=tuple(Decision(unit, value) for unit in units),
    )  # fmt: skip


def test_the_floors_decisions_are_a_newcomers_prior_once_their_round_is_read() -> None:
    fold = AdvantagePlay()
    assert fold.take(_round(1, ["PC-1", "PC-2"])) == []
    # both read against the floor as it stood before the round: sigma 1/12, 3.25 (and 2.5
    # under the known strategy at eps 0.25)
    for unit in ("PC-1", "PC-2"):
        assert fold.units[unit].llrs == pytest.approx([math.log(3.25), math.log(2.5)])
    # then each play counted (1/12) / (1 + 1/12) = 1/13 in the floor's table
    assert fold.floor == {"play or fold: the strategy says fold": {"play": pytest.approx(2 / 13)}}
    # a newcomer's share of play: the floor's, (2/13 + 0.1) / (2/13 + 1.2)
    fold.take(_round(2, ["PC-3"]))
    sigma = (2 / 13 + 0.1) / (2 / 13 + 1.2)
    assert fold.units["PC-3"].llrs[0] == pytest.approx(
        math.log((0.5 + 0.5 * sigma) / (0.125 + 0.5 * sigma))
    )
