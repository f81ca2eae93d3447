"""Pay tables the casino states by their rows, highest hand first (a descriptor's ``RowSlot``).

The configuration writes ``{rows: [40, 30, 6, 3, 1]}``: one payout per hand
of the slot, in the slot's order. A "to 1" slot takes whole numbers of at
least 1 (X of "X to 1"); a "meter" slot (a progressive) takes "X for 1" or
"P% of meter", or 0 for a hand it does not pay; an "envy" slot takes "$N"
per $1 of the progressive wager, or 0. A list that does not fit is refused
with one line naming the row, its hand and the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from tablewatch.rules.game_rules import RowSlot
from tablewatch.rules.paytables.odds import Odds, OddsKind, parse_odds, to_one
from tablewatch.rules.paytables.table import PayTable

TO_ONE: Final = "to 1"
METER: Final = "meter"
ENVY: Final = "envy"
_WHAT: Final = {
    TO_ONE: "a whole number X of 'X to 1', at least 1",
    METER: "'X for 1', 'P% of meter' or 0 (not paid)",
    ENVY: "'$N' per $1 of the progressive wager, or 0 (not paid)",
}


def rows_of(where: str, choice: object, slot: RowSlot) -> list[object]:
    """The row list of ``choice`` (``{rows: [...]}``) with as many rows as ``slot`` has hands;
    ``ValueError`` naming ``where`` otherwise."""
    hands = slot.hands
    example = "{rows: [" + ", ".join(_example(slot.payout) for _ in hands) + "]}"
    if not isinstance(choice, Mapping) or set(choice) != {"rows"}:
        raise ValueError(
            f"{where}: write this pay table by its rows, highest hand first, {example} "
            f"({len(hands)} rows: {', '.join(hands)}; {slot.section})"
        )
    rows = choice["rows"]
    if not isinstance(rows, list):
        raise ValueError(f"{where}.rows: expected a list of {len(hands)} rows, e.g. {example}")
    if len(rows) != len(hands):
        raise ValueError(
            f"{where}.rows: {len(rows)} row{'s' if len(rows) != 1 else ''} given, "
            f"{len(hands)} needed ({', '.join(hands)}, highest hand first; {slot.section})"
        )
    return list(rows)


def table_of_rows(where: str, wager: str, slot: RowSlot, choice: object) -> PayTable:
    """The pay table ``choice`` states for ``wager`` by rows (a "to 1" or "meter" slot)."""
    rows = rows_of(where, choice, slot)
    paid: dict[str, Odds] = {}
    labels = []
    for index, (hand, row) in enumerate(zip(slot.hands, rows, strict=True)):
        odds = _odds(f"{where}.rows[{index}] ({hand})", row, slot)
        labels.append(str(row) if slot.payout == TO_ONE else str(odds or 0))
        if odds is not None:
            paid[hand] = odds
    separator = "-" if slot.payout == TO_ONE else ", "
    return PayTable(wager, separator.join(labels), slot.section, paid)


def envy_of_rows(where: str, slot: RowSlot, choice: object) -> dict[str, int]:
    """An Envy Bonus stated by rows: cents per $1 of the progressive wager, by hand."""
    rows = rows_of(where, choice, slot)
    envy = {}
    for index, (hand, row) in enumerate(zip(slot.hands, rows, strict=True)):
        odds = _odds(f"{where}.rows[{index}] ({hand})", row, slot)
        if odds is not None:
            envy[hand] = odds.value * 100
    return envy


def _odds(where: str, row: object, slot: RowSlot) -> Odds | None:
    """One row's payout; None for a hand not paid (0, where the slot allows it)."""
    what = f"each row is {_WHAT[slot.payout]} ({slot.section})"
    if slot.payout == TO_ONE:
        if isinstance(row, bool) or not isinstance(row, int):
            raise ValueError(f"{where}: {row!r} is not a whole number: {what}")
        if row < 0:
            raise ValueError(f"{where}: {row} is negative: {what}")
        if row == 0:
            raise ValueError(f"{where}: 0 pays nothing: {what}")
        return to_one(row)
    if row == 0 and not isinstance(row, bool):
        return None
    if not isinstance(row, str):
        raise ValueError(f"{where}: {row!r} is not a payout: {what}")
    try:
        odds = parse_odds(row)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    allowed = (OddsKind.FOR_ONE, OddsKind.METER) if slot.payout == METER else (OddsKind.DOLLARS,)
    if odds.kind not in allowed:
        raise ValueError(f"{where}: {row!r} is not {_WHAT[slot.payout]} ({slot.section})")
    return odds


def _example(payout: str) -> str:
    return {TO_ONE: "X", METER: "'X for 1'", ENVY: "'$N'"}[payout]
