"""Pay tables the regulation files here do not state, supplied in the configuration.

A game's descriptor names the slots whose amounts are the casino's
(``Configuration.casino_supplied``, slot -> section, and ``casino_envy``).
Each is written as ``{hand: odds}`` with the 5-card hand names of
:mod:`tablewatch.rules.paytables.hand_names` and odds as "X to 1", "X for
1", "$N" or "P% of meter"; an Envy Bonus as ``{hand: "$N"}`` per $1 of the
receiver's wager.
"""

from __future__ import annotations

from tablewatch.rules.paytables.hand_names import FIVE_CARD_HAND_KEYS
from tablewatch.rules.paytables.odds import OddsKind, parse_odds
from tablewatch.rules.paytables.table import PayTable


def casino_pay_table(where: str, wager: str, section: str, rows: object) -> PayTable:
    """The casino's pay table for ``wager`` (its section ``section``), from ``rows``."""
    if not isinstance(rows, dict) or not rows:
        raise ValueError(
            f"{where}: the casino supplies this pay table ({section}): write it as a mapping "
            f"of hand to odds, e.g. {{royal_flush: '100% of meter', four_of_a_kind: '500 for 1'}}"
        )
    parsed = {}
    for hand, text in rows.items():
        _check_hand(where, hand)
        try:
            parsed[hand] = parse_odds(str(text))
        except ValueError as exc:
            raise ValueError(f"{where}.{hand}: {exc}") from None
    return PayTable(wager, "casino", f"{section} (casino-supplied)", parsed)


def casino_envy(where: str, section: str, rows: object) -> dict[str, int]:
    """The casino's Envy Bonus (its section ``section``), cents per $1 by hand, from ``rows``."""
    if not isinstance(rows, dict) or not rows:
        raise ValueError(
            f"{where}: write the Envy Bonus ({section}) as a mapping "
            f"of hand to dollars per $1 wagered, e.g. {{royal_flush: '$1,000'}}"
        )
    envy = {}
    for hand, text in rows.items():
        _check_hand(where, hand)
        try:
            odds = parse_odds(str(text))
        except ValueError as exc:
            raise ValueError(f"{where}.{hand}: {exc}") from None
        if odds.kind is not OddsKind.DOLLARS:
            raise ValueError(f"{where}.{hand}: an Envy Bonus is a fixed sum such as '$500'")
        envy[hand] = odds.value * 100
    return envy


def _check_hand(where: str, hand: object) -> None:
    if hand not in FIVE_CARD_HAND_KEYS:
        raise ValueError(
            f"{where}: {hand!r} is not a five-card hand (one of {', '.join(FIVE_CARD_HAND_KEYS)})"
        )
