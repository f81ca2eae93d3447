"""Games by descriptor: the registry, and a third game that needs no edit outside its own module.

The toy game below is everything a new game is: a descriptor (a
``GameRules``), its pay table, its settlement and a check of its own, here
in the test. Registered, it is configured from YAML like any table, and its
rounds are folded and judged by the normal ``Auditor`` (and the ``tablewatch
audit`` command): the checks common to all games cite its sections, its
settlement prices its wagers, its own check runs, its own check code joins
the catalog.

Its name is ``toy_third`` and its bets are ``ante`` and
``three_card_bonus``, bet names the protocol's vocabulary (the registry's)
already holds, so its events decode as any controller's would (they go
through the decoder here); what a configuration may name is what the
registry holds, and that is where the toy is added.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from tablewatch.cli import main
from tablewatch.rules import games
from tablewatch.rules.audit import Auditor, findings_of
from tablewatch.rules.checks.catalog import CHECKS, Check
from tablewatch.rules.checks.context import RoundContext
from tablewatch.rules.config import ConfigError, parse_config
from tablewatch.rules.edge import wagers_of
from tablewatch.rules.findings import Finding
from tablewatch.rules.game_rules import (
    Configuration,
    Exposure,
    GameCheck,
    GameRules,
    LetteredSlot,
    ProgressiveReset,
    Sections,
    Wager,
)
from tablewatch.rules.hands import strength3
from tablewatch.rules.paytables.hand_names import three_card_names
from tablewatch.rules.paytables.odds import to_one
from tablewatch.rules.paytables.table import PayTable
from tablewatch.rules.round_view import RoundView
from tablewatch.rules.settlement import Expected, Settlement
from tablewatch.rules.settlement.expected import distinct
from tablewatch.rules.table_config import TableConfig
from tablewatch.script import TableScript
from tests.scenarios import wire

# ---- the registry ----------------------------------------------------------------


def test_the_games_are_registered_by_name() -> None:
    assert games.names()[:3] == ("four_card_poker", "let_it_ride", "three_card_poker")
    assert games.rules_of("three_card_poker").title == "Three Card Poker"
    assert games.rules_of("let_it_ride").title == "Let It Ride"
    assert games.rules_of("four_card_poker").hand_cards == 5


def test_an_unknown_game_is_an_error_naming_it() -> None:
    with pytest.raises(games.UnknownGame, match="'blackjack'"):
        games.rules_of("blackjack")
    with pytest.raises(ConfigError) as info:
        parse_config({"tables": {"BJ-1": {"game": "blackjack", "paytables": {}}}})
    assert str(info.value).startswith(
        "table BJ-1: game 'blackjack' is not one this service audits "
        "(four_card_poker, let_it_ride, three_card_poker"
    )
    assert "58 Pa. Code ch. 641a, ch. 643a, ch. 649a" in str(info.value)


def test_a_game_cannot_be_registered_twice() -> None:
    with pytest.raises(ValueError, match="already registered"):
        games.register(games.rules_of("let_it_ride"))


# ---- a toy third game, defined here ------------------------------------------------

TOY = "toy_third"
BONUS_SECTION = "toy § 3(b)"
ANTE_SECTION = "toy § 3(a)"
BONUS = {
    "A": PayTable(
        "three_card_bonus",
        "A",
        BONUS_SECTION,
        {
            "straight_flush": to_one(40),
            "three_of_a_kind": to_one(30),
            "straight": to_one(6),
            "flush": to_one(3),
            "pair": to_one(1),
        },
    )
}
OVER_ANTE = "BONUS_OVER_ANTE"  # the toy's own check code


def settle_toy(view: RoundView, config: TableConfig) -> Settlement:
    """Three Card Bonus on the player's three cards; the Ante 1 to 1 against the dealer's three."""
    out = Settlement()
    dealer = view.cards.get("dealer", [])
    dealer_hand = strength3(dealer) if len(dealer) == 3 and distinct(dealer) else None
    for seat in view.seats():
        cards = view.seat_cards(seat)
        if len(cards) != 3 or not distinct(cards):
            continue  # a misdeal or a repeated card: nothing to price
        hand = strength3(cards)
        names = three_card_names(hand, cards)
        out.add_table_wager(
            config, seat, "three_card_bonus", view.amount(seat, "three_card_bonus"), names
        )
        ante = view.amount(seat, "ante")
        if ante and dealer_hand is not None:
            result = "win" if hand > dealer_hand else "lose"
            out.add(Expected(seat, "ante", result, ante, ANTE_SECTION, odds=to_one(1)))
    return out


def bonus_over_ante(ctx: RoundContext) -> list[Finding]:
    """The toy's own rule: a Three Card Bonus wager no larger than the seat's Ante (toy § 7)."""
    out = []
    for seat in ctx.view.seats():
        ante = ctx.view.amount(seat, "ante")
        bonus = ctx.view.amount(seat, "three_card_bonus")
        if bonus > ante:
            out.append(
                ctx.finding(
                    OVER_ANTE,
                    "toy § 7",
                    f"seat {seat}: Three Card Bonus of {bonus} over the Ante of {ante}",
                    seat=seat,
                    bet="three_card_bonus",
                    expected=ante,
                    actual=bonus,
                )
            )
    return out


def toy_sections() -> Sections:
    by_dealing = {"hand": "toy § 8(a)", "manual_shoe": "toy § 8(b)", "automated_shoe": "toy § 8(c)"}
    return Sections(
        lockout="toy § 2(c)",
        one_deck="toy § 1(a)",
        deck_change="toy § 1(c)",
        shuffler_count="toy § 1(d)",
        wagers_offered="toy § 2(d)",
        settlement="toy § 4",
        envy="toy § 5",
        round_end="toy § 6",
        void="toy § 9",
        misdeal="toy § 9(c)",
        early_exposure="toy § 9(d)",
        face_up_in_deck="toy § 9(a)",
        shoe_fault="toy § 9(f)",
        progressive_count=by_dealing,
        stub_count=by_dealing,
        stub_cadence=by_dealing,
    )


TOY_RULES = GameRules(
    name=TOY,
    title="Toy Three Card Poker",
    chapter="toy ch. 1",
    wagers=(
        Wager("ante", None, ANTE_SECTION, always=True),
        Wager("three_card_bonus", "three_card_bonus", BONUS_SECTION),
    ),
    hand_cards=3,
    areas=(("dealer", 3, "the dealer"),),
    exposure=Exposure("dealer", "a dealer card", face_up=0, revealed_by=("dealer", None)),
    configuration=Configuration(
        lettered={"three_card_bonus": LetteredSlot(BONUS, BONUS_SECTION)},
        required=("three_card_bonus",),
        progressive_reset=ProgressiveReset("progressive", {}, "toy § 5"),
    ),
    sections=toy_sections(),
    settle=settle_toy,
    checks=(
        GameCheck(
            OVER_ANTE,
            bonus_over_ante,
            Check(OVER_ANTE, "medium", "a Three Card Bonus wager larger than the Ante"),
        ),
    ),
)

TOY_CONFIG = """
tables:
  TOY-1:
    game: toy_third
    paytables: {three_card_bonus: A}
    counting_shuffler: true
"""


@contextmanager
def registered(rules: GameRules) -> Iterator[None]:
    """``rules`` registered for the block, unregistered after."""
    games.register(rules)
    try:
        yield
    finally:
        games.unregister(rules.name)


@pytest.fixture
def toy() -> Iterator[GameRules]:
    with registered(TOY_RULES):
        yield TOY_RULES


def toy_table() -> TableScript:
    t = TableScript("TOY-1")
    t.table_open(TOY)
    t.deck_in("D-1", "hand")
    t.shuffle("D-1", 52)
    return t


def toy_round(t: TableScript, *, bonus_paid: int, dealer: str = "Kc 9s 2d") -> None:
    """Seat 2: a pair of queens (Ante and Three Card Bonus win); seat 4: eight high, a Three
    Card Bonus over its Ante (both lose)."""
    t.round_start("R-1", "D-1")
    t.wager(2, "ante", 1000)
    t.wager(2, "three_card_bonus", 500)
    t.wager(4, "ante", 500)
    t.wager(4, "three_card_bonus", 1000)
    t.lockout()
    t.cards("seat:2", ["Qh", "Qd", "4c"])
    t.cards("seat:4", ["7s", "8s", "2h"])
    t.cards("dealer", dealer.split())
    t.reveal("dealer")
    t.settle(4, "ante", "lose")
    t.settle(4, "three_card_bonus", "lose")
    t.settle(2, "ante", "win", 1000)
    t.settle(2, "three_card_bonus", "win", bonus_paid)
    t.round_end()


def audit_toy(t: TableScript) -> list[Finding]:
    configs = parse_config(yaml.safe_load(TOY_CONFIG))
    return list(findings_of(Auditor(configs).feed_all(wire([t]))))


def test_the_toy_game_is_configured_from_yaml(toy: GameRules) -> None:
    config = parse_config(yaml.safe_load(TOY_CONFIG))["TOY-1"]
    assert config.game == TOY
    assert config.rules is toy
    assert config.letter("three_card_bonus") == "A"
    with pytest.raises(ConfigError, match=r"'Z' is not a pay table of toy § 3\(b\)"):
        parse_config({"tables": {"TOY-2": {"game": TOY, "paytables": {"three_card_bonus": "Z"}}}})
    with pytest.raises(ConfigError, match=r"paytables.three_card_bonus is required.*toy § 3\(b\)"):
        parse_config({"tables": {"TOY-2": {"game": TOY}}})
    with pytest.raises(ConfigError, match="toy_third has no such wager"):
        parse_config({"tables": {"TOY-2": {"game": TOY, "paytables": {"aces_up": "A"}}}})
    with pytest.raises(ConfigError, match="payout_limit applies to Let It Ride only"):
        parse_config(
            {
                "tables": {
                    "TOY-2": {
                        "game": TOY,
                        "paytables": {"three_card_bonus": "A"},
                        "payout_limit": 1,
                    }
                }
            }
        )


def test_a_clean_toy_round_has_no_finding(toy: GameRules) -> None:
    t = toy_table()
    toy_round(t, bonus_paid=500)
    found = audit_toy(t)
    assert [(f.check, f.seat) for f in found] == [(OVER_ANTE, 4)]  # its own check, nothing else


def test_a_wrong_toy_payout_is_found_with_the_toys_section(toy: GameRules) -> None:
    t = toy_table()
    toy_round(t, bonus_paid=1500)
    found = audit_toy(t)
    assert [f.check for f in found] == [OVER_ANTE, "WRONG_PAYOUT"]
    wrong = found[1]
    assert (wrong.table_id, wrong.round_id, wrong.seat, wrong.bet) == (
        "TOY-1",
        "R-1",
        2,
        "three_card_bonus",
    )
    assert (wrong.expected, wrong.actual) == (500, 1500)
    assert wrong.regulation == BONUS_SECTION
    assert wrong.severity == "critical"
    assert found[0].severity == "medium"  # the toy's own code, in the catalog while registered
    assert wrong.message == (
        "seat 2 three_card_bonus: pair pays 1 to 1 on $5.00: $5.00; settled `win` with $15.00 paid"
    )


def test_the_common_checks_read_the_toys_descriptor(toy: GameRules) -> None:
    t = toy_table()
    toy_round(t, bonus_paid=500, dealer="Kc 9s")  # the dealer short of a card
    t.round_start("R-2", "D-1")
    t.wager(1, "aces_up", 500)  # another game's bet
    t.lockout()
    t.cards("seat:1", ["2c", "3c", "4c"])
    t.cards("dealer", ["5h", "6h", "7h"])
    t.settle(1, "aces_up", "returned")
    t.round_end()
    found = audit_toy(t)
    assert [(f.round_id, f.check, f.regulation) for f in found] == [
        ("R-1", OVER_ANTE, "toy § 7"),
        ("R-1", "ROUND_NOT_VOIDED", "toy § 9(c)"),
        ("R-2", "WAGER_NOT_OFFERED", "toy § 2(d)"),
    ]
    assert found[1].message.startswith("the dealer was dealt 2 card(s), not 3")


def test_the_audit_command_audits_the_toy_game(toy: GameRules, tmp_path: Path) -> None:
    t = toy_table()
    toy_round(t, bonus_paid=1500)
    (tmp_path / "events.jsonl").write_bytes(t.jsonl())
    (tmp_path / "tables.yaml").write_text(TOY_CONFIG)
    result = CliRunner().invoke(
        main,
        ["audit", str(tmp_path / "events.jsonl"), "--config", str(tmp_path / "tables.yaml")],
    )
    assert result.exit_code == 1, result.output  # findings
    assert "WRONG_PAYOUT" in result.stdout
    assert OVER_ANTE in result.stdout


def test_registering_adds_and_unregistering_removes_the_toy() -> None:
    before = games.names()
    assert TOY not in before and OVER_ANTE not in CHECKS
    with registered(TOY_RULES):
        assert games.rules_of(TOY) is TOY_RULES
        assert CHECKS[OVER_ANTE].severity == "medium"
        assert wagers_of(TOY) == ()  # no house edge computed for it
    assert TOY not in games.names() and OVER_ANTE not in CHECKS
    assert games.names() == before
