"""Let It Ride Three Card Bonus: pay tables A-F of § 643a.12(c), on the player's 3 cards.

Tables A-C have no mini-royal row: a mini-royal is paid as a straight flush.
"""

from tablewatch.rules.paytables.odds import Odds, to_one
from tablewatch.rules.paytables.table import pay_tables

SECTION = "§ 643a.12(c)"

_HANDS = ("mini_royal", "straight_flush", "three_of_a_kind", "straight", "flush", "pair")
_ODDS = {
    "A": (None, 40, 30, 6, 4, 1),
    "B": (None, 40, 30, 5, 4, 1),
    "C": (None, 40, 30, 6, 3, 1),
    "D": (50, 40, 30, 6, 4, 1),
    "E": (50, 40, 30, 5, 4, 1),
    "F": (50, 40, 30, 6, 3, 1),
}


def _column(odds: tuple[int | None, ...]) -> dict[str, Odds | None]:
    return {h: to_one(x) if x else None for h, x in zip(_HANDS, odds, strict=True)}


THREE_CARD_BONUS = pay_tables(
    "three_card_bonus", SECTION, {letter: _column(o) for letter, o in _ODDS.items()}
)
