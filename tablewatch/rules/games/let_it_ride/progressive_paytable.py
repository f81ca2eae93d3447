"""Let It Ride (three-card) Progressive Payout Wager and its Envy Bonus: § 643a.12(d).

Paid "for 1" (the chip went into the table inventory at lockout); a spade
mini-royal is 100% of the meter. The Envy Bonus (§ 643a.12(d)(5)) is a fixed
sum per mini-royal held by another player, by the receiver's wager size.
"""

from tablewatch.rules.paytables.odds import for_one, of_meter
from tablewatch.rules.paytables.table import pay_tables

SECTION = "§ 643a.12(d)(1)"
RESET_SECTION = "§ 643a.12(d)(3)"
ENVY_SECTION = "§ 643a.12(d)(5)"
MIN_RESET = {"A": 100_000, "B": 100_000}  # $1,000, § 643a.12(d)(3)

PROGRESSIVE = pay_tables(
    "progressive",
    SECTION,
    {
        "A": {
            "mini_royal_spades": of_meter(100),
            "mini_royal": for_one(500),
            "straight_flush": for_one(70),
            "three_of_a_kind": for_one(60),
            "straight": for_one(6),
        },
        "B": {
            "mini_royal_spades": of_meter(100),
            "mini_royal": for_one(500),
            "straight_flush": for_one(100),
            "three_of_a_kind": for_one(90),
            "straight": None,
        },
    },
)

# Envy Bonus in cents for a $1 Progressive Payout Wager; the $5 table of
# § 643a.12(d)(5) is exactly five times it, so other sizes pay pro rata.
ENVY_PER_DOLLAR: dict[str, int] = {
    "mini_royal_spades": 10_000,
    "mini_royal": 2_500,
}
