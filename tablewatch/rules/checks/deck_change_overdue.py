"""DECK_CHANGE_OVERDUE: a deck still in play after 4 hours (dealt by hand) or 8 hours (shoe).

The game's ``Sections.deck_change``, paragraph (1) for a
deck dealt by hand, (2) from a shoe. Reported on the first round that starts
on a deck past its deadline.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from tablewatch.rules.checks.table_level import table_finding
from tablewatch.rules.events import RoundStart, ms_to_ts, ts_to_ms
from tablewatch.rules.findings import Finding
from tablewatch.rules.game_rules import Sections

CODE: Final = "DECK_CHANGE_OVERDUE"
HOUR_MS: Final = 3_600_000
LIMIT_HOURS: Final = {"hand": 4, "manual_shoe": 8, "automated_shoe": 8}


def check(
    sections: Sections, dealing: str, deck_in_ts: str, deck_in_id: str, start: RoundStart
) -> Finding | None:
    hours = LIMIT_HOURS[dealing]
    if start.ts < _not_before(deck_in_ts, hours):
        return None  # (timestamps of one format compare as text, in time order)
    age = ts_to_ms(start.ts) - ts_to_ms(deck_in_ts)
    if age <= hours * HOUR_MS:
        return None
    paragraph = "(1)" if dealing == "hand" else "(2)"
    return table_finding(
        start.table_id,
        start.round_id,
        CODE,
        sections.deck_change + paragraph,
        f"deck {start.deck_id} ({dealing.replace('_', ' ')}) in play since {deck_in_ts}: "
        f"{age / HOUR_MS:.2f} h, over the {hours} h limit",
        (deck_in_id, start.event_id),
        start.ts,
    )


@lru_cache(maxsize=1024)
def _not_before(deck_in_ts: str, hours: int) -> str:
    """A time before which no round can find the deck overdue: checked once per deck, this
    spares every round two timestamp conversions. A second early, clear of any rounding."""
    return ms_to_ts(ts_to_ms(deck_in_ts) + hours * HOUR_MS - 1000)
