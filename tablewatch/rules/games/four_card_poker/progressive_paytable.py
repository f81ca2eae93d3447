"""Four Card Poker Progressive Payout Wager (§ 641a.12(d)(1)-(4)) and Envy Bonus ((d)(5))."""

from tablewatch.rules.paytables.odds import for_one, of_meter
from tablewatch.rules.paytables.table import pay_tables

SECTION = "§ 641a.12(d)(1)"
RESET_SECTION = "§ 641a.12(d)(3)"
ENVY_SECTION = "§ 641a.12(d)(5)"
MIN_RESET = {"A": 500_000, "B": 100_000}  # $5,000 and $1,000, § 641a.12(d)(3)

PROGRESSIVE = pay_tables(
    "progressive",
    SECTION,
    {
        "A": {
            "four_aces": of_meter(100),
            "four_of_a_kind": for_one(300),
            "straight_flush": for_one(100),
            "three_of_a_kind": for_one(9),
        },
        "B": {
            "four_aces": of_meter(100),
            "four_of_a_kind": for_one(300),
            "straight_flush": for_one(100),
            "three_of_a_kind": for_one(15),
        },
    },
)

# Envy Bonus in cents for a $1 Progressive Payout Wager, by pay table. The
# $5 tables of § 641a.12(d)(5) are exactly five times these, so other wager
# sizes pay pro rata. The hands listed are the Envy Bonus Qualifying Hands
# of that table (§ 641a.1): straight flush or better for A, four of a kind
# or better for B.
ENVY_PER_DOLLAR: dict[str, dict[str, int]] = {
    "A": {"four_aces": 10_000, "four_of_a_kind": 1_000, "straight_flush": 500},
    "B": {"four_aces": 10_000, "four_of_a_kind": 2_500},
}
