"""Let It Ride Bets 1, 2 and 3: pay tables A and B of § 643a.12(a).

A hand of a pair of tens or better wins (§ 643a.11(f)(2), 2019); the payout
limit per hand of § 643a.12(e) caps what the three bets pay together.
"""

from tablewatch.rules.paytables.odds import to_one
from tablewatch.rules.paytables.table import pay_tables

SECTION = "§ 643a.12(a)"
PAYOUT_LIMIT_SECTION = "§ 643a.12(e)"
MIN_PAYOUT_LIMIT = 5_000_000  # $50,000, § 643a.12(e)

MAIN = pay_tables(
    "main",
    SECTION,
    {
        "A": {
            "royal_flush": to_one(1000),
            "straight_flush": to_one(200),
            "four_of_a_kind": to_one(50),
            "full_house": to_one(11),
            "flush": to_one(8),
            "straight": to_one(5),
            "three_of_a_kind": to_one(3),
            "two_pair": to_one(2),
            "pair_of_tens_or_better": to_one(1),
        },
        "B": {
            "royal_flush": to_one(500),
            "straight_flush": to_one(200),
            "four_of_a_kind": to_one(50),
            "full_house": to_one(11),
            "flush": to_one(8),
            "straight": to_one(5),
            "three_of_a_kind": to_one(3),
            "two_pair": to_one(2),
            "pair_of_tens_or_better": to_one(1),
        },
    },
)
