"""Four Card Poker Aces Up: pay tables A-F of § 641a.12(c), on the player's best four cards."""

from tablewatch.rules.paytables.odds import Odds, to_one
from tablewatch.rules.paytables.table import pay_tables

SECTION = "§ 641a.12(c)"

_HANDS = (
    "four_of_a_kind",
    "straight_flush",
    "three_of_a_kind",
    "flush",
    "straight",
    "two_pair",
    "pair_of_aces",
)
_ODDS = {
    "A": (50, 30, 9, 6, 4, 2, 1),
    "B": (50, 30, 7, 6, 5, 2, 1),
    "C": (50, 40, 8, 5, 4, 3, 1),
    "D": (50, 40, 8, 6, 4, 2, 1),
    "E": (50, 30, 8, 6, 4, 2, 1),
    "F": (50, 40, 7, 5, 4, 3, 1),
}


def _column(odds: tuple[int, ...]) -> dict[str, Odds | None]:
    return {h: to_one(x) for h, x in zip(_HANDS, odds, strict=True)}


ACES_UP = pay_tables("aces_up", SECTION, {letter: _column(o) for letter, o in _ODDS.items()})
