"""Let It Ride Five Card Bonus: pay tables A-F of § 643a.12(b).

Amounts are per $1 wagered, stated "for 1" (the protocol's reading): the
stake is kept and ``paid`` = amount × stake. A "$0" row does not win.
"""

from tablewatch.rules.paytables.odds import Odds, dollars
from tablewatch.rules.paytables.table import pay_tables

SECTION = "§ 643a.12(b)"

_HANDS = (
    "royal_flush",
    "straight_flush",
    "four_of_a_kind",
    "full_house",
    "flush",
    "straight",
    "three_of_a_kind",
    "two_pair",
    "pair_of_tens_or_better",
)
_AMOUNTS = {
    "A": (20_000, 2_000, 150, 75, 50, 25, 4, 3, 2),
    "B": (20_000, 2_000, 200, 75, 50, 25, 5, 4, 1),
    "C": (20_000, 2_000, 100, 75, 50, 25, 9, 6, 0),
    "D": (10_000, 2_000, 200, 75, 50, 25, 5, 4, 1),
    "E": (10_000, 2_000, 200, 100, 50, 25, 10, 6, 0),
    "F": (10_000, 2_000, 100, 75, 50, 25, 9, 6, 0),
}


def _column(amounts: tuple[int, ...]) -> dict[str, Odds | None]:
    return {hand: dollars(n) if n else None for hand, n in zip(_HANDS, amounts, strict=True)}


FIVE_CARD_BONUS = pay_tables(
    "five_card_bonus", SECTION, {letter: _column(a) for letter, a in _AMOUNTS.items()}
)
