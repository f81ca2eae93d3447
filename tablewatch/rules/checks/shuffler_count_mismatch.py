"""SHUFFLER_COUNT_MISMATCH: a counting shuffler reported other than 52 cards and the deck stayed.

The deck shall be removed from the table (the game's ``Sections.shuffler_count``).
Reported on the first round dealt from that deck
after the bad count.
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.cards import DECK_SIZE
from tablewatch.rules.checks.table_level import table_finding
from tablewatch.rules.events import RoundStart, Shuffle
from tablewatch.rules.findings import Finding
from tablewatch.rules.game_rules import Sections

CODE: Final = "SHUFFLER_COUNT_MISMATCH"


def check(sections: Sections, shuffle: Shuffle, start: RoundStart) -> Finding | None:
    if shuffle.card_count is None or shuffle.card_count == DECK_SIZE:
        return None
    return table_finding(
        start.table_id,
        start.round_id,
        CODE,
        sections.shuffler_count,
        f"the shuffler counted {shuffle.card_count} cards in deck {shuffle.deck_id}, not "
        f"{DECK_SIZE}, and the deck was dealt again",
        (shuffle.event_id, start.event_id),
        start.ts,
    )
