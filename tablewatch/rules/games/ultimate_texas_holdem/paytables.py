"""Ultimate Texas Hold 'Em pay tables (§ 653a.12(a)-(c), read in full).

Ante and Play at 1 to 1 ((a)); the Blind by pay table A or B ((b)); Trips by
pay table A, B, C or D ((c)), each transcribed row by row as the regulation
prints it, "to 1" (the Blind's flush "3 to 2"). A hand a table does not list
is not paid by it: the Blind then pushes (its tables' last row, "Less than a
straight" / "Less than a flush": Push), the Trips loses.

The Progressive Payout Wager's tables (§ 653a.12(d)(1) on) were not read:
the casino writes its rows in the configuration, as for the casino-supplied
wagers of the other games.
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.paytables.odds import to, to_one
from tablewatch.rules.paytables.table import pay_tables

ANTE_PLAY_SECTION: Final = "§ 653a.12(a)"
BLIND_SECTION: Final = "§ 653a.12(b)"
TRIPS_SECTION: Final = "§ 653a.12(c)"
PROGRESSIVE_SECTION: Final = "§ 653a.12"  # its subsection, (d), was read only to (d)(1)'s start

ANTE_AND_PLAY: Final = to_one(1)

BLIND: Final = pay_tables(
    "blind",
    BLIND_SECTION,
    {
        "A": {
            "royal_flush": to_one(500),
            "straight_flush": to_one(50),
            "four_of_a_kind": to_one(10),
            "full_house": to_one(3),
            "flush": to(3, 2),
            "straight": to_one(1),
        },
        "B": {
            "royal_flush": to_one(500),
            "straight_flush": to_one(50),
            "four_of_a_kind": to_one(10),
            "full_house": to_one(3),
            "flush": to(3, 2),
        },
    },
)

TRIPS: Final = pay_tables(
    "trips",
    TRIPS_SECTION,
    {
        letter: {
            "royal_flush": to_one(50),
            "straight_flush": to_one(40),
            "four_of_a_kind": to_one(quads),
            "full_house": to_one(full_house),
            "flush": to_one(flush),
            "straight": to_one(straight),
            "three_of_a_kind": to_one(3),
        }
        for letter, (quads, full_house, flush, straight) in {
            "A": (30, 9, 7, 4),
            "B": (30, 8, 6, 5),
            "C": (30, 8, 7, 4),
            "D": (20, 7, 6, 5),
        }.items()
    },
)
