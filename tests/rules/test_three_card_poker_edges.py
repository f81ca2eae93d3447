"""Three Card Poker house edges, each against its published figure, by exact enumeration.

The counts below are the textbook ones (three-card and six-card hand frequencies), written
out here, not computed by the code under test.
"""

from __future__ import annotations

import json
from fractions import Fraction

from click.testing import CliRunner

from tablewatch.commands.edge import edge
from tablewatch.rules.edge import rows_table, wager_edge
from tablewatch.rules.edge.result import Extra
from tablewatch.rules.game_rules import RowsEdge

GAME = "three_card_poker"
# Three-card hands of 22,100: straight flush 48, three of a kind 52, straight 720, flush
# 1,096, pair 3,744, high card 16,440.
THREE_CARD = {"straight_flush": 48, "three_of_a_kind": 52, "straight": 720, "flush": 1_096}
PAIR, HIGH_CARD = 3_744, 16_440
# Best five of six cards, of C(52,6) = 20,358,520: royal flush 188, straight flush 1,656,
# four of a kind 14,664, full house 165,984, flush 205,792, straight 361,620, trips 732,160.
SIX_CARD = (188, 1_656, 14_664, 165_984, 205_792, 361_620, 732_160)
SIX_CARD_HANDS = 20_358_520


def computed(wager: str, rows: str) -> tuple[float, dict[str, Extra], int]:
    spec = wager_edge(GAME, wager)
    assert isinstance(spec, RowsEdge)
    result = spec.compute(GAME, rows_table(GAME, wager, rows), None)
    assert result.exact
    return result.house_edge, result.extras, result.hands


def test_ante_and_play_under_q64_with_the_1_4_5_ante_bonus() -> None:
    # published: 3.37% of the Ante; the exact enumeration: 13,733,780 / 407,170,400 = 3.3730%,
    # standard deviation 1.6393 Antes
    house_edge, extras, deals = computed("ante", "5,4,1")
    assert deals == 407_170_400  # C(52,3) x C(49,3)
    assert Fraction(-int(str(extras["net_total"])), deals) == Fraction(13_733_780, 407_170_400)
    assert round(house_edge * 100, 2) == 3.37
    assert round(house_edge * 100, 4) == 3.3730
    assert round(float(str(extras["std_dev"])), 4) == 1.6393


def test_pair_plus_40_30_6_3_1_is_7_28_percent() -> None:
    house_edge, extras, hands = computed("pair_plus", "40,30,6,3,1")
    net = 40 * 48 + 30 * 52 + 6 * 720 + 3 * 1_096 + PAIR - HIGH_CARD
    assert (hands, extras["net_total"]) == (22_100, net)
    assert round(house_edge * 100, 2) == 7.28  # published 7.28%


def test_pair_plus_40_30_6_4_1_is_2_32_percent() -> None:
    house_edge, extras, _ = computed("pair_plus", "40,30,6,4,1")
    assert extras["net_total"] == 40 * 48 + 30 * 52 + 6 * 720 + 4 * 1_096 + PAIR - HIGH_CARD
    assert round(house_edge * 100, 2) == 2.32  # published 2.32%


def test_six_card_bonus_by_exact_count() -> None:
    # published (table-games-online.com, 1000-200-50-25-20-10-5): 10.23%
    rows = (1000, 200, 50, 25, 20, 10, 5)
    house_edge, extras, hands = computed("six_card_bonus", ",".join(map(str, rows)))
    paying = sum(SIX_CARD)
    net = sum(r * n for r, n in zip(rows, SIX_CARD, strict=True)) - (SIX_CARD_HANDS - paying)
    assert (hands, extras["net_total"]) == (SIX_CARD_HANDS, net)
    assert Fraction(-net, SIX_CARD_HANDS) == Fraction(2_081_616, 20_358_520)
    assert abs(house_edge * 100 - 10.23) < 0.01
    assert extras["hit_frequency"] == paying / SIX_CARD_HANDS


def test_the_command_takes_the_rows() -> None:
    result = CliRunner().invoke(
        edge, [GAME, "pair_plus", "--rows", "40,30,6,3,1", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert (answer["paytable"], answer["hands"], answer["net_total"]) == (
        "40-30-6-3-1",
        22_100,
        -1_608,
    )
    assert round(answer["std_dev"], 4) == 2.8496


def test_the_command_refuses_rows_that_do_not_fit() -> None:
    runner = CliRunner()
    result = runner.invoke(edge, [GAME, "pair_plus", "--rows", "40,30,6,3"])
    assert result.exit_code == 2
    assert result.stderr == (
        "tablewatch edge: --rows: 4 rows given, 5 needed (straight_flush, three_of_a_kind, "
        "straight, flush, pair, highest hand first; § 649a.12)\n"
    )
    result = runner.invoke(edge, [GAME, "pair_plus", "--rows", "40,30,x,3,1"])
    assert result.exit_code == 2
    assert "--rows[2] (straight): 'x' is not a whole number" in result.stderr
    result = runner.invoke(edge, [GAME, "six_card_bonus"])
    assert result.exit_code == 2
    assert "takes its pay table by rows: give --rows (7 rows" in result.stderr
    result = runner.invoke(edge, ["four_card_poker", "aces_up", "--paytable", "A", "--rows", "1"])
    assert result.exit_code == 2
    assert "has no pay table stated by rows: leave out --rows" in result.stderr


def test_the_store_computes_no_figure_ahead_for_a_table_stated_by_rows() -> None:
    # the store's theoretical figures are per lettered pay table: a wager priced by the rows
    # a table states has none to compute ahead (computing one would call it without rows)
    from tablewatch.store.theoretical import expected_keys

    assert not {key for key in expected_keys() if key[0] == GAME}


def test_the_long_enumerations_report_their_progress() -> None:
    for wager, rows, total in (
        ("ante", "5,4,1", 22_100),
        ("six_card_bonus", "1,1,1,1,1,1,1", SIX_CARD_HANDS),
    ):
        seen: list[tuple[str, int, int]] = []
        spec = wager_edge(GAME, wager)
        assert isinstance(spec, RowsEdge)
        spec.compute(
            GAME, rows_table(GAME, wager, rows), lambda *step, seen=seen: seen.append(step)
        )
        assert len(seen) > 10
        assert seen[-1][1:] == (total, total)
        assert [done for _, done, _ in seen] == sorted(done for _, done, _ in seen)
