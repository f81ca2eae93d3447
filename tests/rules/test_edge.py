"""House edges through our pay tables: published figures, scalar settlement cross-checks, CLI."""

from __future__ import annotations

import json
from itertools import combinations
from math import comb

import numpy as np
import pytest
from click.testing import CliRunner

from tablewatch.cli import main
from tablewatch.rules.config import TableConfig, parse_table
from tablewatch.rules.edge import exact_edge
from tablewatch.rules.edge.deals import sample_cards
from tablewatch.rules.edge.pricing import net_of_names, price_strengths
from tablewatch.rules.events import Decision
from tablewatch.rules.games.four_card_poker import aces_up_edge as aces_up
from tablewatch.rules.games.four_card_poker import ante_edge as four_card_poker_ante
from tablewatch.rules.games.four_card_poker.aces_up_paytable import ACES_UP
from tablewatch.rules.games.let_it_ride import five_card_bonus_edge as five_card_bonus
from tablewatch.rules.games.let_it_ride import main_edge as let_it_ride_main
from tablewatch.rules.games.let_it_ride import three_card_bonus_edge as three_card_bonus
from tablewatch.rules.games.let_it_ride.main_paytable import MAIN
from tablewatch.rules.hands import best4of5_table, colex_index, colex_index_batch, strength5
from tablewatch.rules.paytables.hand_names import five_card_names, four_card_names
from tablewatch.rules.paytables.odds import OddsKind, to_one
from tablewatch.rules.paytables.table import PayTable
from tablewatch.rules.placed_wager import PlacedWager
from tablewatch.rules.round_view import RoundView
from tablewatch.rules.settlement import expected_settlement
from tablewatch.rules.settlement.lines import Expected

STAKE = 500  # cents


def percent(fraction: float) -> float:
    return round(fraction * 100, 2)


# ---- exact edges against published figures --------------------------------


@pytest.mark.parametrize(("letter", "published"), [("A", 2.32), ("C", 7.28), ("D", 2.14)])
def test_three_card_bonus_published(letter: str, published: float) -> None:
    result = exact_edge("let_it_ride", "three_card_bonus", letter)
    assert result.exact and result.ci95 is None
    assert result.hands == comb(52, 3)
    assert percent(result.house_edge) == published


@pytest.mark.slow
def test_let_it_ride_main_published() -> None:
    result = exact_edge("let_it_ride", "main", "A")
    assert percent(result.house_edge) == 3.51
    element_of_risk = result.extras["element_of_risk"]
    assert isinstance(element_of_risk, float)
    assert percent(element_of_risk) == 2.86  # Wizard of Odds' element of risk
    # A smaller royal can only cost the player.
    assert exact_edge("let_it_ride", "main", "B").house_edge > result.house_edge


@pytest.mark.slow
@pytest.mark.parametrize(("letter", "published"), [("A", 4.89), ("B", 13.07)])
def test_five_card_bonus_published(letter: str, published: float) -> None:
    # B: published 13.07%; A: the 4.89% "for 1" figure of docs/protocol.md.
    assert percent(exact_edge("let_it_ride", "five_card_bonus", letter).house_edge) == published


@pytest.mark.slow
def test_aces_up_range() -> None:
    edges = {
        letter: exact_edge("four_card_poker", "aces_up", letter).house_edge for letter in "ABCDEF"
    }
    assert percent(max(edges.values())) == 6.15  # pay table F
    # The published range starts at 1.98% with a 50-40-9-6-4-2-1 table, which is
    # not one of § 641a.12(c)'s: the regulation's table A pays a straight flush
    # 30 to 1, ten units less on 2,072 hands in 2,598,960 (0.80%), so 2.78%.
    assert percent(min(edges.values())) == percent(edges["A"]) == 2.78
    richer_a = PayTable(
        "aces_up", "A'", "test", {**ACES_UP["A"].rows, "straight_flush": to_one(40)}
    )
    net = price_strengths(
        best4of5_table(), lambda names: net_of_names(richer_a, names), four_card_names
    )
    assert percent(-float(net.mean())) == 1.98


# ---- vectorised pricing against the scalar settlement code -------------------


def _decision(seat: int, play: int) -> Decision:
    common = {
        "v": 1,
        "event_id": f"d-{seat}",
        "table_id": "T",
        "seq": 1,
        "ts": "2026-01-01T00:00:00.000Z",
        "round_id": "R",
        "seat": seat,
    }
    if play:
        return Decision(**common, action="play", amount=play * STAKE)  # type: ignore[arg-type]
    return Decision(**common, action="fold")  # type: ignore[arg-type]


def _view(
    wagers: list[str], cards: dict[str, list[int]], decisions: list[Decision] | None = None
) -> RoundView:
    return RoundView(
        wagers={(1, bet): PlacedWager(1, bet, STAKE) for bet in wagers},
        removed={},
        cards=cards,
        card_events={},
        decisions={1: decisions} if decisions else {},
        reveals={},
    )


def _net(line: Expected) -> int:
    """Net cents of a settled line under the protocol's meaning of the odds."""
    if line.result == "win":
        assert line.odds is not None
        paid = line.odds.paid(line.stake)
        assert paid is not None
        return paid if line.odds.kind is OddsKind.TO_ONE else paid - line.stake
    if line.result == "lose" and not line.optional:
        return -line.stake
    return 0  # returned, or an Ante bonus not due


def _nets(view: RoundView, config: TableConfig) -> dict[str, int]:
    settlement = expected_settlement(view, config)
    return {bet: _net(line) for (_, bet), line in settlement.lines.items()}


@pytest.mark.slow
def test_four_card_poker_matches_settlement() -> None:
    rng = np.random.default_rng(20260101)
    deals = sample_cards(rng, 2_000, 11)
    plays = rng.choice(np.array([0, 1, 2, 3]), size=len(deals))
    described = four_card_poker_ante.describe_deals(deals)
    ante = four_card_poker_ante.ante_net(described.won, described.bonus(), plays)
    player_index = colex_index_batch(deals[:, :5])
    letters = "ABCDEF"
    configs = {
        letter: parse_table("T", {"game": "four_card_poker", "paytables": {"aces_up": letter}})
        for letter in letters
    }
    for i, row in enumerate(deals.tolist()):
        letter = letters[i % len(letters)]
        view = _view(
            ["ante", "aces_up"],
            {"seat:1": row[:5], "dealer": row[5:]},
            [_decision(1, int(plays[i]))],
        )
        nets = _nets(view, configs[letter])
        ante_total = nets["ante"] + nets.get("play", 0) + nets.get("ante_bonus", 0)
        assert ante_total == ante[i] * STAKE, (row, plays[i], nets)
        assert nets["aces_up"] == aces_up.net_table(letter)[player_index[i]] * STAKE


@pytest.mark.slow
def test_let_it_ride_matches_settlement() -> None:
    rng = np.random.default_rng(6431)
    deals = sample_cards(rng, 2_000, 5)
    index = colex_index_batch(deals)
    three_index = colex_index_batch(deals[:, :3])
    bets = ["bet1", "bet2", "bet3", "five_card_bonus", "three_card_bonus"]
    for i, row in enumerate(deals.tolist()):
        main_letter, bonus_letter = "AB"[i % 2], "ABCDEF"[i % 6]
        config = parse_table(
            "T",
            {
                "game": "let_it_ride",
                "paytables": {
                    "main": main_letter,
                    "five_card_bonus": bonus_letter,
                    "three_card_bonus": bonus_letter,
                },
            },
        )
        nets = _nets(_view(bets, {"seat:1": row[:3], "community": row[3:]}), config)
        main_net = let_it_ride_main.net_table(main_letter)[index[i]] * STAKE
        assert nets["bet1"] == nets["bet2"] == nets["bet3"] == main_net, (row, nets)
        assert nets["five_card_bonus"] == five_card_bonus.net_table(bonus_letter)[index[i]] * STAKE
        assert (
            nets["three_card_bonus"]
            == three_card_bonus.net_table(bonus_letter)[three_index[i]] * STAKE
        )


@pytest.mark.slow
def test_ride_decisions_match_brute_force() -> None:
    table = MAIN["A"]
    after_four = let_it_ride_main.conditional_means(let_it_ride_main.net_table("A"), 4)
    after_three = let_it_ride_main.conditional_means(let_it_ride_main.net_table("A"), 3)
    rng = np.random.default_rng(3)
    for row in sample_cards(rng, 3, 4).tolist():
        rest = [c for c in range(52) if c not in row]
        four = [net_of_names(table, five_card_names(strength5([*row, c]))) for c in rest]
        three = [
            net_of_names(table, five_card_names(strength5([*row[:3], a, b])))
            for a, b in combinations([c for c in range(52) if c not in row[:3]], 2)
        ]
        assert after_four[colex_index(row)] == pytest.approx(np.mean(four))
        assert after_three[colex_index(row[:3])] == pytest.approx(np.mean(three))
        assert let_it_ride_main.ride_bet2("A", np.array([row]))[0] == (np.mean(four) > 0)
        assert let_it_ride_main.ride_bet1("A", np.array([row[:3]]))[0] == (np.mean(three) > 0)


# ---- Monte-Carlo -------------------------------------------------------------


def test_sample_cards_are_distinct_and_spread() -> None:
    cards = sample_cards(np.random.default_rng(0), 50_000, 11)
    assert cards.shape == (50_000, 11)
    ordered = np.sort(cards, axis=1)
    assert (np.diff(ordered.astype(np.int16), axis=1) > 0).all()
    counts = np.bincount(cards.reshape(-1), minlength=52)
    expected = 50_000 * 11 / 52
    assert np.abs(counts - expected).max() < 6 * np.sqrt(expected)


@pytest.mark.slow
def test_four_card_poker_ante_monte_carlo_runs() -> None:
    result = four_card_poker_ante.edge(
        "four_card_poker", samples=200_000, train_samples=200_000, seed=11
    )
    assert not result.exact
    assert result.ci95 is not None
    lo, hi = result.ci95
    assert lo < result.house_edge < hi
    assert 0.0 < result.house_edge < 0.06
    assert result.hands == 200_000
    # Same seed, same answer.
    again = four_card_poker_ante.edge(
        "four_card_poker", samples=200_000, train_samples=200_000, seed=11
    )
    assert again.house_edge == result.house_edge


def test_isotonic_fit() -> None:
    fitted = four_card_poker_ante.isotonic_increasing([0.1, 0.3, 0.2, 0.4], [1.0, 1.0, 1.0, 1.0])
    assert fitted == pytest.approx([0.1, 0.25, 0.25, 0.4])


# ---- command line ------------------------------------------------------------


def test_cli_three_card_bonus_json() -> None:
    result = CliRunner().invoke(
        main, ["edge", "let_it_ride", "three_card_bonus", "--paytable", "A", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["game"] == "let_it_ride"
    assert data["wager"] == "three_card_bonus"
    assert data["paytable"] == "A"
    assert data["exact"] is True
    assert data["ci95"] is None
    assert percent(data["house_edge"]) == 2.32


def test_cli_table_format() -> None:
    result = CliRunner().invoke(
        main, ["edge", "let_it_ride", "three_card_bonus", "--paytable", "D"]
    )
    assert result.exit_code == 0, result.output
    assert "2.1357%" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["blackjack", "main", "--paytable", "A"], "unknown game"),
        (["let_it_ride", "aces_up", "--paytable", "A"], "no wager"),
        (["let_it_ride", "three_card_bonus", "--paytable", "G"], "not a pay table"),
        (["let_it_ride", "main"], "needs --paytable"),
        (["four_card_poker", "ante", "--paytable", "A"], "no lettered pay table"),
    ],
)
def test_cli_refuses_unknown_input(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["edge", *args])
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stdout == ""
