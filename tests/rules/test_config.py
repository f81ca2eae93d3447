"""The table configuration is validated against the regulation, and refusals cite the rule."""

from __future__ import annotations

from typing import Any

import pytest

from tablewatch.rules.config import ConfigError, parse_config, parse_table
from tablewatch.rules.games import all_rules
from tablewatch.rules.paytables.odds import OddsKind, parse_odds

# The registered games, as a refusal lists them ("four_card_poker, let_it_ride, ...: 58 Pa.
# Code ch. 641a, ch. 643a, ..."): every game registered, in order.
_GAMES = (
    f"{', '.join(r.name for r in all_rules())}: "
    f"58 Pa. Code {', '.join(r.chapter for r in all_rules())}"
)


def lir(**fields: Any) -> dict[str, Any]:
    return {"game": "let_it_ride", "paytables": {"main": "A"}, **fields}


def test_protocol_example_configuration() -> None:
    configs = parse_config(
        {
            "tables": {
                "LIR-07": lir(
                    paytables={
                        "main": "A",
                        "five_card_bonus": "B",
                        "three_card_bonus": "D",
                        "progressive": "A",
                    },
                    counting_shuffler=False,
                    payout_limit=5_000_000,
                    progressive_reset=100_000,
                ),
                "FCP-02": {
                    "game": "four_card_poker",
                    "paytables": {"aces_up": "C", "progressive": "A", "envy": "A"},
                    "counting_shuffler": True,
                    "progressive_reset": 500_000,
                },
            }
        }
    )
    assert configs["LIR-07"].letter("five_card_bonus") == "B"
    assert configs["FCP-02"].envy_per_dollar["straight_flush"] == 500
    assert configs["LIR-07"].envy_per_dollar["mini_royal_spades"] == 10_000


@pytest.mark.parametrize(
    ("table", "words"),
    [
        (lir(payout_limit=4_999_999), "§ 643a.12(e)"),
        (lir(paytables={"main": "C"}), "§ 643a.12(a)"),
        (lir(paytables={"main": "A", "three_card_bonus": "G"}), "§ 643a.12(c)"),
        (
            lir(paytables={"main": "A", "progressive": "A"}, progressive_reset=99_999),
            "§ 643a.12(d)(3)",
        ),
        (lir(paytables={"main": "A", "progressive": "A"}), "progressive_reset is required"),
        (lir(paytables={"five_card_bonus": "A"}), "paytables.main is required"),
        (
            {
                "game": "four_card_poker",
                "paytables": {"aces_up": "A", "progressive": "A", "envy": "A"},
                "progressive_reset": 499_999,
            },
            "§ 641a.12(d)(3)",
        ),
        (
            {
                "game": "four_card_poker",
                "paytables": {"aces_up": "A", "progressive": "B", "envy": "B"},
                "progressive_reset": 99_999,
            },
            "$1,000.00 minimum",
        ),
        (
            {
                "game": "four_card_poker",
                "paytables": {"aces_up": "A", "progressive": "A"},
                "progressive_reset": 500_000,
            },
            "§ 641a.12(d)(5)",
        ),
        (
            {"game": "four_card_poker", "paytables": {"aces_up": "A"}, "payout_limit": 5_000_000},
            "Let It Ride only",
        ),
        ({"game": "baccarat"}, "ch. 641a, ch. 643a"),
        (
            lir(paytables={"main": "A", "six_card_bonus": {"royal": "1000 to 1"}}),
            "not a five-card hand",
        ),
        (lir(paytables={"main": "A", "six_card_bonus": {"royal_flush": "lots"}}), "not a payout"),
        (lir(paytables={"main": "A", "aces_up": "A"}), "has no such wager"),
        (lir(counting_shuffler="yes"), "counting_shuffler"),
        (lir(colour="red"), "colour"),
    ],
)
def test_refused_with_the_rule(table: dict[str, Any], words: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_table("T-1", table)
    assert words in str(info.value)
    assert str(info.value).startswith("table T-1")


def test_minimum_values_accepted() -> None:
    parse_table("T", lir(payout_limit=5_000_000))
    parse_table(
        "T",
        {
            "game": "four_card_poker",
            "paytables": {"aces_up": "F", "progressive": "B", "envy": "B"},
            "progressive_reset": 100_000,
        },
    )


def test_odds_text() -> None:
    assert parse_odds("1,000 to 1").kind is OddsKind.TO_ONE
    assert parse_odds("500 for 1").paid(100) == 50_000
    assert parse_odds("$20,000").paid(500) == 10_000_000
    assert parse_odds("10% of meter").paid(100, meter=123_456) == 12_345
    with pytest.raises(ValueError):
        parse_odds("101% of meter")


def test_top_level_shape() -> None:
    with pytest.raises(ConfigError):
        parse_config({"table": {}})
    with pytest.raises(ConfigError):
        parse_config([1])


def _problems(document: dict[str, Any]) -> list[str]:
    with pytest.raises(ConfigError) as refused:
        parse_config(document)
    assert str(refused.value) == "\n".join(refused.value.problems)
    return list(refused.value.problems)


def test_every_problem_of_every_table_is_reported() -> None:
    problems = _problems(
        {
            "tables": {
                "LIR-07": lir(
                    paytables={"main": "C", "three_card_bonus": "G", "bogus": "A"},
                    payout_limit=100,
                    colour="red",
                ),
                "GOOD": lir(),
                "FCP-02": {
                    "game": "four_card_poker",
                    "paytables": {"aces_up": "Z", "progressive": "A"},
                    "progressive_reset": -5,
                    "payout_limit": 5_000_000,
                },
                "X-1": {"game": "blackjack"},
                "X-2": {"paytables": {"main": "A"}},
            }
        }
    )
    assert problems == [
        "table LIR-07: unknown key `colour` (a table's keys: game, paytables, "
        "counting_shuffler, payout_limit, progressive_reset, progressive_rate, dealing, pit, "
        "cameras, signing, keys, patterns)",
        "table LIR-07: paytables.main: 'C' is not a pay table of § 643a.12(a) (choose one of A, B)",
        "table LIR-07: paytables.three_card_bonus: 'G' is not a pay table of § 643a.12(c) "
        "(choose one of A, B, C, D, E, F)",
        "table LIR-07: paytables.bogus: let_it_ride has no such wager (known: five_card_bonus, "
        "main, progressive, three_card_bonus, five_card_progressive, five_card_hand_bonus, "
        "six_card_bonus, five_card_envy; 58 Pa. Code ch. 643a)",
        "table LIR-07: payout_limit $1.00 is under the $50,000.00 minimum per hand (§ 643a.12(e))",
        "table FCP-02: paytables.aces_up: 'Z' is not a pay table of § 641a.12(c) "
        "(choose one of A, B, C, D, E, F)",
        "table FCP-02: progressive_reset must not be negative (§ 641a.12(d)(3))",
        "table FCP-02: paytables.envy is required with the progressive wager: the casino "
        "selects Envy Bonus table A or B (§ 641a.12(d)(5))",
        "table FCP-02: payout_limit applies to Let It Ride only (§ 643a.12(e))",
        f"table X-1: game 'blackjack' is not one this service audits ({_GAMES})",
        f"table X-2: game is required (one of {_GAMES.partition(':')[0]})",
    ]


def test_a_key_of_the_wrong_type_hides_no_other_problem() -> None:
    problems = _problems(
        {
            "tables": {
                "LIR-07": lir(
                    paytables={"main": 5, "progressive": "A"},
                    payout_limit="a lot",
                    counting_shuffler="yes",
                    progressive_rate=2,
                )
            }
        }
    )
    assert problems == [
        "table LIR-07: paytables.main: Expected `str | object`, got `int`",
        "table LIR-07: payout_limit: Expected `int | null`, got `str`",
        "table LIR-07: counting_shuffler: Expected `bool`, got `str`",
        "table LIR-07: progressive_reset is required when a progressive wager is offered "
        "(progressive): the initial and reset amount must be in the Rules Submission "
        "(§ 643a.12(d)(3))",
        "table LIR-07: progressive_rate 2.0 must be a share of each progressive wager, over 0 "
        "and at most 1 (§ 643a.12(d)(3))",
    ]


def test_a_refused_key_is_not_refused_again_by_what_needs_it() -> None:
    """A wrong main pay table is not also a missing one; a wrong Envy table, a missing one;
    a progressive_reset of the wrong type, a missing one."""
    problems = _problems(
        {
            "tables": {
                "LIR-07": lir(paytables={"main": "Q"}),
                "FCP-02": {
                    "game": "four_card_poker",
                    "paytables": {"aces_up": "C", "progressive": "A", "envy": "X"},
                    "progressive_reset": "5000",
                },
                "FCP-03": {"game": "four_card_poker", "paytables": "C"},
            }
        }
    )
    assert problems == [
        "table LIR-07: paytables.main: 'Q' is not a pay table of § 643a.12(a) (choose one of A, B)",
        "table FCP-02: progressive_reset: Expected `int | null`, got `str`",
        "table FCP-02: paytables.envy: 'X' is not an Envy Bonus pay table of § 641a.12(d)(5) "
        "(choose one of A, B)",
        "table FCP-03: paytables: Expected `object`, got `str`",
    ]


def test_a_table_that_is_not_a_mapping() -> None:
    assert _problems({"tables": {"T": ["game"], "U": lir(payout_limit=1)}}) == [
        "table T: Expected `object`, got `array`",
        "table U: payout_limit $0.01 is under the $50,000.00 minimum per hand (§ 643a.12(e))",
    ]
