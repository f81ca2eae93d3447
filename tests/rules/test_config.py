"""The table configuration is validated against the regulation, and refusals cite the rule."""

from __future__ import annotations

from typing import Any

import pytest

from tablewatch.rules.config import ConfigError, parse_config, parse_table
from tablewatch.rules.paytables.odds import OddsKind, parse_odds


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
