"""Three Card Poker tables configured: pay tables by rows, and the row lists refused.

Each refusal is one line naming the table, the key (down to the row and its hand) and the
reason.
"""

from __future__ import annotations

from typing import Any

import pytest

from tablewatch.rules.config import ConfigError, parse_config
from tablewatch.rules.paytables.odds import for_one, of_meter, to_one


def tcp(**paytables: Any) -> dict[str, Any]:
    return {
        "game": "three_card_poker",
        "paytables": {"ante_bonus": {"rows": [5, 4, 1]}, **paytables},
    }


def refusal(table: dict[str, Any]) -> str:
    with pytest.raises(ConfigError) as info:
        parse_config({"tables": {"TCP-9": table}})
    (problem,) = info.value.problems
    return problem


def test_every_table_by_rows() -> None:
    config = parse_config(
        {
            "tables": {
                "TCP-1": {
                    **tcp(
                        pair_plus={"rows": [40, 30, 6, 3, 1]},
                        six_card_bonus={"rows": [1000, 200, 50, 25, 20, 10, 5]},
                        progressive={"rows": ["100% of meter", "500 for 1", "70 for 1", 0, 0]},
                        envy={"rows": ["$100", "$50", 0, 0, 0]},
                    ),
                    "progressive_reset": 100_000,
                }
            }
        }
    )["TCP-1"]
    assert dict(config.paytables["pair_plus"].rows) == {
        "straight_flush": to_one(40),
        "three_of_a_kind": to_one(30),
        "straight": to_one(6),
        "flush": to_one(3),
        "pair": to_one(1),
    }
    assert config.paytables["pair_plus"].letter == "40-30-6-3-1"
    assert dict(config.paytables["ante_bonus"].rows) == {
        "straight_flush": to_one(5),
        "three_of_a_kind": to_one(4),
        "straight": to_one(1),
    }
    assert config.paytables["six_card_bonus"].rows["royal_flush"] == to_one(1000)
    assert config.paytables["six_card_bonus"].rows["three_of_a_kind"] == to_one(5)
    assert dict(config.paytables["progressive"].rows) == {
        "mini_royal": of_meter(100),
        "straight_flush": for_one(500),
        "three_of_a_kind": for_one(70),
    }
    assert dict(config.envy_per_dollar) == {"mini_royal": 10_000, "straight_flush": 5_000}
    assert config.paytables["pair_plus"].section == "§ 649a.12"


@pytest.mark.parametrize(
    ("paytables", "problem"),
    [
        (
            {"pair_plus": {"rows": [40, 30, 6, 3]}},
            "table TCP-9: paytables.pair_plus.rows: 4 rows given, 5 needed (straight_flush, "
            "three_of_a_kind, straight, flush, pair, highest hand first; § 649a.12)",
        ),
        (
            {"six_card_bonus": {"rows": [1000, 200, 50, 25, 20, 10, 5, 1]}},
            "table TCP-9: paytables.six_card_bonus.rows: 8 rows given, 7 needed (royal_flush, "
            "straight_flush, four_of_a_kind, full_house, flush, straight, three_of_a_kind, "
            "highest hand first; § 649a.12)",
        ),
        (
            {"pair_plus": {"rows": [40, 30, -6, 3, 1]}},
            "table TCP-9: paytables.pair_plus.rows[2] (straight): -6 is negative: each row is "
            "a whole number X of 'X to 1', at least 1 (§ 649a.12)",
        ),
        (
            {"pair_plus": {"rows": [40, 30, 6, 3, 1.5]}},
            "table TCP-9: paytables.pair_plus.rows[4] (pair): 1.5 is not a whole number: each "
            "row is a whole number X of 'X to 1', at least 1 (§ 649a.12)",
        ),
        (
            {"pair_plus": {"rows": [40, "thirty", 6, 3, 1]}},
            "table TCP-9: paytables.pair_plus.rows[1] (three_of_a_kind): 'thirty' is not a "
            "whole number: each row is a whole number X of 'X to 1', at least 1 (§ 649a.12)",
        ),
        (
            {"pair_plus": {"rows": [40, 30, 6, 0, 1]}},
            "table TCP-9: paytables.pair_plus.rows[3] (flush): 0 pays nothing: each row is a "
            "whole number X of 'X to 1', at least 1 (§ 649a.12)",
        ),
        (
            {"pair_plus": "A"},
            "table TCP-9: paytables.pair_plus: write this pay table by its rows, highest hand "
            "first, {rows: [X, X, X, X, X]} (5 rows: straight_flush, three_of_a_kind, "
            "straight, flush, pair; § 649a.12)",
        ),
        (
            {"ante_bonus": {"rows": [5, 4]}},
            "table TCP-9: paytables.ante_bonus.rows: 2 rows given, 3 needed (straight_flush, "
            "three_of_a_kind, straight, highest hand first; § 649a.12)",
        ),
        (
            {"progressive": {"rows": ["40 to 1", 0, 0, 0, 0]}},
            "table TCP-9: paytables.progressive.rows[0] (mini_royal): '40 to 1' is not 'X for "
            "1', 'P% of meter' or 0 (not paid) (§ 649a.12)",
        ),
        (
            {"aces_up": "A"},
            "table TCP-9: paytables.aces_up: three_card_poker has no such wager (known: "
            "pair_plus, ante_bonus, six_card_bonus, progressive, envy; 58 Pa. Code ch. 649a)",
        ),
    ],
)
def test_a_row_list_that_does_not_fit_is_refused(paytables: dict[str, Any], problem: str) -> None:
    assert refusal(tcp(**paytables)) == problem


def test_the_ante_bonus_is_required() -> None:
    assert refusal(
        {"game": "three_card_poker", "paytables": {"pair_plus": {"rows": [40, 30, 6, 3, 1]}}}
    ) == (
        "table TCP-9: paytables.ante_bonus is required: the casino states its rows, highest "
        "hand first (3 rows: straight_flush, three_of_a_kind, straight; § 649a.12)"
    )


def test_a_progressive_needs_its_reset() -> None:
    problem = refusal(tcp(progressive={"rows": ["100% of meter", "500 for 1", 0, 0, 0]}))
    assert problem.startswith("table TCP-9: progressive_reset is required when a progressive wager")
