"""The simulated floor's Rules Submission: a mix of games, pay tables, shufflers and dealing."""

from __future__ import annotations

import random
from typing import Any

DEALINGS = ("hand", "manual_shoe", "automated_shoe")

# Casino-supplied 2019 pay tables (§ 643a.12(e)-(g)) for the one table that offers them.
FIVE_CARD_PROGRESSIVE = {
    "royal_flush": "100% of meter",
    "straight_flush": "10% of meter",
    "four_of_a_kind": "500 for 1",
    "full_house": "100 for 1",
    "flush": "50 for 1",
    "straight": "30 for 1",
    "three_of_a_kind": "9 for 1",
}
FIVE_CARD_ENVY = {"royal_flush": "$1,000", "straight_flush": "$100"}
SIX_CARD_BONUS = {
    "royal_flush": "1000 to 1",
    "straight_flush": "200 to 1",
    "four_of_a_kind": "50 to 1",
    "full_house": "20 to 1",
    "flush": "15 to 1",
    "straight": "10 to 1",
    "three_of_a_kind": "5 to 1",
}


def table_ids(n: int) -> list[str]:
    """Alternating games: LIR-01, FCP-02, LIR-03, ..."""
    return [f"{'LIR' if i % 2 == 0 else 'FCP'}-{i + 1:02d}" for i in range(n)]


def floor_config(n_tables: int, rng: random.Random) -> dict[str, Any]:
    tables: dict[str, Any] = {}
    for i, table_id in enumerate(table_ids(n_tables)):
        dealing = DEALINGS[(i // 2) % 3]
        counting = (i // 2) % 2 == 1
        progressive = i % 5 != 4
        if table_id.startswith("LIR"):
            paytables: dict[str, Any] = {
                "main": rng.choice("AB"),
                "five_card_bonus": rng.choice("ABCDEF"),
                "three_card_bonus": rng.choice("ABCDEF"),
            }
            table: dict[str, Any] = {"game": "let_it_ride", "payout_limit": 5_000_000}
            if progressive:
                paytables["progressive"] = rng.choice("AB")
                table["progressive_reset"] = rng.choice((100_000, 250_000))
            if i == 2:  # one table with the 2019 wagers
                paytables["five_card_progressive"] = FIVE_CARD_PROGRESSIVE
                paytables["five_card_envy"] = FIVE_CARD_ENVY
                paytables["six_card_bonus"] = SIX_CARD_BONUS
                table.setdefault("progressive_reset", 100_000)
        else:
            paytables = {"aces_up": rng.choice("ABCDEF")}
            table = {"game": "four_card_poker"}
            if progressive:
                letter = rng.choice("AB")
                paytables["progressive"] = letter
                paytables["envy"] = rng.choice("AB")
                table["progressive_reset"] = 500_000 if letter == "A" else 100_000
        table["paytables"] = paytables
        table["counting_shuffler"] = counting
        table["dealing"] = dealing
        if "progressive_reset" in table:
            table["progressive_rate"] = 0.2
        tables[table_id] = table
    return {"tables": tables}
