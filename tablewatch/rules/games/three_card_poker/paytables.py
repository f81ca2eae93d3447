"""Three Card Poker's pay tables (ch. 649a): Ante and Play at 1 to 1, the rest stated by rows.

No text of ch. 649a was read: the payout odds are cited as § 649a.12 (the
section the chapter's structure gives them, as § 641a.12 in Four Card
Poker), never with a subsection. The casino states each table by its rows,
highest hand first (the protocol's "Pay tables of these games"): Pair Plus
5 rows, the Ante bonus 3 (required: the protocol sets no default), the Six
Card Bonus 7, the progressive 5 ("X for 1" or "P% of meter", 0 not paid) and
its Envy Bonus 5 ("$N" per $1, 0 not paid).
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.game_rules import RowSlot
from tablewatch.rules.paytables.odds import to_one
from tablewatch.rules.paytables.rows import ENVY, METER

SECTION: Final = "§ 649a.12"  # payout odds: by the chapter's structure, not read
ANTE_AND_PLAY: Final = to_one(1)

PAIR_PLUS: Final = RowSlot(
    ("straight_flush", "three_of_a_kind", "straight", "flush", "pair"), SECTION
)
ANTE_BONUS: Final = RowSlot(("straight_flush", "three_of_a_kind", "straight"), SECTION)
SIX_CARD_BONUS: Final = RowSlot(
    (
        "royal_flush",
        "straight_flush",
        "four_of_a_kind",
        "full_house",
        "flush",
        "straight",
        "three_of_a_kind",
    ),
    SECTION,
)
# On the seat's three cards: a mini-royal is A-K-Q of one suit.
PROGRESSIVE_HANDS: Final = ("mini_royal", "straight_flush", "three_of_a_kind", "straight", "flush")
PROGRESSIVE: Final = RowSlot(PROGRESSIVE_HANDS, SECTION, METER)
ENVY_BONUS: Final = RowSlot(PROGRESSIVE_HANDS, SECTION, ENVY)

ROWS: Final = {
    "pair_plus": PAIR_PLUS,
    "ante_bonus": ANTE_BONUS,
    "six_card_bonus": SIX_CARD_BONUS,
    "progressive": PROGRESSIVE,
    "envy": ENVY_BONUS,
}
