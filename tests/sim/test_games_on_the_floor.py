"""The floor's games: which the simulator plays, in which order, and how the newer two are played.

Three Card Poker and Ultimate Texas Hold 'Em floors are audited against their
truth (every injected error found, nothing else); their players decide as the
strategies their simulators state; a floor of the first two games alone is
the floor it was before the others joined, byte for byte.
"""

from __future__ import annotations

import gzip
import json
import random
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml
from click.testing import CliRunner

from tablewatch.commands.simulate import simulate
from tablewatch.rules.cards import parse_cards
from tablewatch.rules.checks.catalog import PROTOCOL_CHECKS
from tablewatch.rules.decode import encode_event
from tablewatch.rules.games import register, rules_of, unregister
from tablewatch.rules.hands import strength3
from tablewatch.sim import games as sim_games
from tablewatch.sim.floor import Floor
from tablewatch.sim.floor_config import floor_config
from tablewatch.sim.games import choose, played
from tablewatch.sim.games.three_card_poker import ThreeCardPoker
from tests.audit_json import audit_json, findings_of
from tests.game_copies import copy_of
from tests.sim.floors import FIRST_TWO_NAMES
from tests.sim.test_simulated_floor import audit_floor

BASELINE = Path(__file__).resolve().parents[1] / "rules" / "baseline"
ALL_FOUR = ("four_card_poker", "let_it_ride", "three_card_poker", "ultimate_texas_holdem")
# The codes each game's floor must show over two seeds: every protocol code but the other
# games' own (Let It Ride's UNEQUAL_BETS is also Ultimate Texas Hold 'Em's: Blind != Ante).
EXPECTED_CODES = {
    "three_card_poker": set(PROTOCOL_CHECKS) - {"UNEQUAL_BETS", "LATE_WITHDRAWAL"},
    "ultimate_texas_holdem": set(PROTOCOL_CHECKS) - {"LATE_WITHDRAWAL", "ENVY_BONUS_WRONG"},
}


def _events(floor: Floor) -> list[dict[str, Any]]:
    return [msgspec.json.decode(encode_event(e)) for e in floor.events()]


def test_the_first_two_games_alone_give_the_floor_they_gave_before(tmp_path: Path) -> None:
    """The baseline referee's floor (commit 4722a5e's simulator), byte for byte."""
    result = CliRunner().invoke(
        simulate,
        [
            "--games",
            FIRST_TWO_NAMES,
            *("--tables", "12", "--rounds", "1000", "--seed", "7"),
            *("--error-rate", "0.35", "--jackpot-rate", "0.02", "--out", str(tmp_path)),
        ],
    )
    assert result.exit_code == 0, result.output
    with gzip.open(BASELINE / "floor_events.jsonl.gz", "rb") as before:
        assert (tmp_path / "events.jsonl").read_bytes() == before.read()
    assert (tmp_path / "tables.yaml").read_bytes() == (BASELINE / "floor_tables.yaml").read_bytes()


def test_the_floor_takes_every_game_of_the_registry_in_turn() -> None:
    assert tuple(game.rules.name for game in played()) == ALL_FOUR
    tables = floor_config(16, random.Random(3))["tables"]
    assert list(tables) == [
        f"{prefix}-{n:02d}" for n, prefix in enumerate(["FCP", "LIR", "TCP", "UTH"] * 4, start=1)
    ]
    assert Counter(t["game"] for t in tables.values()) == dict.fromkeys(ALL_FOUR, 4)


def test_games_takes_them_in_the_order_given(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        simulate,
        [
            *("--games", "ultimate_texas_holdem, three_card_poker", "--tables", "3"),
            *("--rounds", "6", "--out", str(tmp_path)),
        ],
    )
    assert result.exit_code == 0, result.output
    tables = yaml.safe_load((tmp_path / "tables.yaml").read_text())["tables"]
    assert list(tables) == ["UTH-01", "TCP-02", "UTH-03"]


@pytest.mark.parametrize(
    ("games", "reason"),
    [
        ("three_card_poker,baccarat", "'baccarat': the simulator does not play it"),
        ("let_it_ride,let_it_ride", "'let_it_ride': named twice"),
        (",", "no game named"),
    ],
)
def test_games_refuses_what_it_does_not_play(tmp_path: Path, games: str, reason: str) -> None:
    result = CliRunner().invoke(simulate, ["--games", games, "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "--games" in result.output and reason in result.output
    assert not (tmp_path / "out").exists()


def test_the_help_names_the_games_from_the_registry() -> None:
    text = " ".join(CliRunner().invoke(simulate, ["--help"]).output.split())
    assert "Three Card Poker TCP" in text and "Ultimate Texas Hold 'Em UTH" in text
    assert "among four_card_poker, let_it_ride, three_card_poker, ultimate_texas_holdem" in text


@pytest.mark.parametrize("game", sorted(EXPECTED_CODES))
def test_a_floor_of_the_game_is_audited_with_recall_and_precision_one(game: str) -> None:
    codes: set[str] = set()
    for seed in (1, 2):
        floor = Floor(8, 1500, seed, error_rate=0.2, jackpot_rate=0.05, games=choose(game))
        got, want = audit_floor(floor)
        assert got - want == Counter(), "findings on clean rounds (or on the wrong seat/bet)"
        assert want - got == Counter(), "injected errors not found"
        codes |= {key[2] for key in want}
    assert codes == EXPECTED_CODES[game]


def test_tablewatch_audit_of_a_four_game_floor_finds_its_truth(tmp_path: Path) -> None:
    """The files ``simulate --out`` writes, judged by ``tablewatch audit``: every line of
    truth.jsonl is found (on its seat and bet where it names them), nothing else."""
    made = CliRunner().invoke(
        simulate,
        [
            *("--tables", "16", "--rounds", "1600", "--seed", "3"),
            *("--error-rate", "0.2", "--jackpot-rate", "0.05", "--out", str(tmp_path)),
        ],
    )
    assert made.exit_code == 0, made.output
    judged = findings_of(audit_json(tmp_path / "events.jsonl", tmp_path / "tables.yaml"))
    truth = [json.loads(line) for line in (tmp_path / "truth.jsonl").read_text().splitlines()]
    named = {(t["table_id"], t["round_id"], t["check"]): t for t in truth}
    found: Counter[tuple[object, ...]] = Counter()
    for f in judged:
        t = named.get((f["table_id"], f["round_id"], f["check"]), {})
        seat = f["seat"] if t.get("seat") else None
        found[
            (f["table_id"], f["round_id"], f["check"], seat, f["bet"] if t.get("bet") else None)
        ] += 1
    want = Counter((t["table_id"], t["round_id"], t["check"], t["seat"], t["bet"]) for t in truth)
    assert found == want
    assert {key[0][:3] for key in want} == {"FCP", "LIR", "TCP", "UTH"}
    assert {key[2] for key in want} == set(PROTOCOL_CHECKS)


def test_a_toy_fifth_game_registered_here_is_simulated_and_judged() -> None:
    """A game the registry and the simulator learn in this test alone (played as Three Card
    Poker, under a name and table prefix of its own): its floor's tables, its events and
    its audit, recall = precision = 1.0, with no other file touched."""
    toy = copy_of(rules_of("three_card_poker"), name="toy_poker", title="Toy Poker")
    register(toy)
    try:
        sim_games.register(ThreeCardPoker(toy, prefix="TOY"))
        try:
            assert [game.rules.name for game in played()][-1] == "toy_poker"
            floor = Floor(4, 800, 4, error_rate=0.2, games=choose("toy_poker"))
            assert list(floor.config["tables"]) == ["TOY-01", "TOY-02", "TOY-03", "TOY-04"]
            got, want = audit_floor(floor)
            assert got == want and sum(want.values()) > 50
            assert {key[2] for key in want} >= {"PLAY_WAGER_OUT_OF_RANGE", "DECISION_MISSING"}
        finally:
            sim_games.unregister("toy_poker")
    finally:
        unregister("toy_poker")
    assert "toy_poker" not in [game.rules.name for game in played()]


def test_a_clean_floor_of_every_game_has_no_finding() -> None:
    floor = Floor(8, 800, 5, error_rate=0.0, jackpot_rate=0.1)
    got, want = audit_floor(floor)
    assert want == Counter() and got == Counter()
    assert {t["game"] for t in floor.config["tables"].values()} == set(ALL_FOUR)


def test_three_card_poker_players_play_the_ante_with_queen_six_four_or_better() -> None:
    floor = Floor(4, 600, 9, error_rate=0.0, games=choose("three_card_poker"))
    cards: dict[tuple[str, str, int], list[str]] = defaultdict(list)
    antes: dict[tuple[str, str, int], int] = {}
    bets: Counter[str] = Counter()
    decided = Counter[str]()
    queen_six_four = strength3(parse_cards(["Qs", "6h", "4d"]))
    for e in _events(floor):
        key = (e["table_id"], e.get("round_id", ""), e.get("seat", 0))
        if e["type"] == "card" and e["to"].startswith("seat:"):
            cards[(e["table_id"], e["round_id"], int(e["to"][5:]))].append(e["card"])
        elif e["type"] == "wager":
            bets[e["bet"]] += 1
            if e["bet"] == "ante":
                antes[key] = e["amount"]
        elif e["type"] == "decision":
            strong = strength3(parse_cards(cards[key])) >= queen_six_four
            assert e["action"] == ("play" if strong else "fold"), (key, cards[key])
            if e["action"] == "play":
                assert e["amount"] == antes[key]
            decided[e["action"]] += 1
    assert decided["play"] > 500 and decided["fold"] > 300
    assert bets["pair_plus"] > bets["ante"] / 2 and bets["six_card_bonus"] > 0


def test_ultimate_texas_holdem_players_decide_once_a_street() -> None:
    """Ante = Blind; one Play per seat: 3x or 4x before the flop, 2x after it, 1x after the
    turn and river, or a fold there; every seat decides before the dealer's cards."""
    floor = Floor(4, 600, 9, error_rate=0.0, games=choose("ultimate_texas_holdem"))
    wagers: dict[tuple[str, str, int], dict[str, int]] = defaultdict(dict)
    street: dict[tuple[str, str], int] = {}
    closed: dict[tuple[str, str, int], str] = {}
    plays: Counter[tuple[int, int]] = Counter()
    for e in _events(floor):
        rnd = (e["table_id"], e.get("round_id", ""))
        key = (*rnd, e.get("seat", 0))
        if e["type"] == "round_start":
            street[rnd] = 0
        elif e["type"] == "wager":
            wagers[key][e["bet"]] = e["amount"]
        elif e["type"] == "reveal" and e["target"] == "community":
            street[rnd] = e["index"]
        elif e["type"] == "reveal":
            for seat, placed in wagers.items():
                if seat[:2] == rnd:
                    assert seat in closed, seat
                    assert placed["blind"] == placed["ante"]
        elif e["type"] == "decision":
            assert key not in closed, key
            ante = wagers[key]["ante"]
            allowed = {0: ("play", "check"), 1: ("play", "check"), 2: ("play", "fold")}
            assert e["action"] in allowed[street[rnd]]
            if e["action"] == "play":
                multiple, rest = divmod(e["amount"], ante)
                assert rest == 0 and multiple in {0: (3, 4), 1: (2,), 2: (1,)}[street[rnd]]
                plays[(street[rnd], multiple)] += 1
            if e["action"] != "check":
                closed[key] = e["action"]
    assert plays[(0, 4)] > 100 and plays[(1, 2)] > 50 and plays[(2, 1)] > 50
    assert Counter(closed.values())["fold"] > 50
