"""Four Card Poker Ante and Play: 1 to 1 (§ 641a.12(a)) and the Ante bonus (§ 641a.12(b)).

The Ante bonus is paid on the Ante to a player who made a Play Wager,
whether or not the hand beats the dealer's.
"""

from tablewatch.rules.paytables.odds import to_one
from tablewatch.rules.paytables.table import PayTable

ANTE_PLAY_SECTION = "§ 641a.12(a)"
ANTE_BONUS_SECTION = "§ 641a.12(b)"

ANTE_AND_PLAY = to_one(1)

ANTE_BONUS = PayTable(
    "ante_bonus",
    "-",
    ANTE_BONUS_SECTION,
    {
        "four_of_a_kind": to_one(25),
        "straight_flush": to_one(20),
        "three_of_a_kind": to_one(2),
    },
)
