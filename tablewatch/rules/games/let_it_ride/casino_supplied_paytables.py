"""The wagers whose pay tables the casino supplies (58 Pa. Code § 643a.11, 2019).

The 2019 § 643a.11 adds the Five-Card Progressive (§ 643a.12(e)), Five Card
Hand Bonus (§ 643a.12(f)) and Six Card Bonus (§ 643a.12(g)) wagers; their
amounts are the casino's, written in the configuration as ``{hand: odds}``
(:mod:`tablewatch.rules.paytables.casino_supplied` reads them), and the
Five-Card Envy Bonus as ``{hand: "$N"}`` per $1 of the receiver's wager.
"""

from __future__ import annotations

from typing import Final

CASINO_SUPPLIED: Final[dict[str, str]] = {
    "five_card_progressive": "§ 643a.12(e)",
    "five_card_hand_bonus": "§ 643a.12(f)",
    "six_card_bonus": "§ 643a.12(g)",
}
FIVE_CARD_ENVY_SECTION: Final = "§ 643a.12(e)(5)"
