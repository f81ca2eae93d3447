"""SHUFFLER_COUNT_MISMATCH: a counting shuffler reported other than 52 cards and the deck stayed.

§ 641a.5(b), § 643a.5(b): the deck shall be removed from the table. Reported
on the first round dealt from that deck after the bad count.
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.cards import DECK_SIZE
from tablewatch.rules.checks.table_level import by_game, table_finding
from tablewatch.rules.events import RoundStart, Shuffle
from tablewatch.rules.findings import Finding

CODE: Final = "SHUFFLER_COUNT_MISMATCH"


def check(game: str, shuffle: Shuffle, start: RoundStart) -> Finding | None:
    if shuffle.card_count is None or shuffle.card_count == DECK_SIZE:
        return None
    return table_finding(
        start.table_id,
        start.round_id,
        CODE,
        by_game(game, "§ 641a.5(b)", "§ 643a.5(b)"),
        f"the shuffler counted {shuffle.card_count} cards in deck {shuffle.deck_id}, not "
        f"{DECK_SIZE}, and the deck was dealt again",
        (shuffle.event_id, start.event_id),
        start.ts,
    )
