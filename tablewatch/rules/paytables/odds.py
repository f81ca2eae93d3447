"""How a pay table states a payout, and what ``paid`` must then be.

The protocol (``docs/protocol.md``, "What `paid` holds"):

- "X to 1": the stake stays with the player; ``paid`` = X × stake ("X to Y",
  e.g. 3 to 2: X × stake / Y, rounded down to the cent).
- "X for 1": the stake is kept by the house; ``paid`` = X × stake.
- "$N" (a bonus stated in dollars): per $1 wagered, "for 1"; ``paid`` = N × stake.
- "P% of meter": ``paid`` = P% of the meter at the moment of payment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum


class OddsKind(Enum):
    TO_ONE = "to 1"
    FOR_ONE = "for 1"
    DOLLARS = "dollars per $1, for 1"
    METER = "% of meter"


@dataclass(frozen=True, slots=True)
class Odds:
    kind: OddsKind
    value: int  # X of "X to/for 1", N of "$N", P of "P% of meter"
    per: int = 1  # Y of "X to Y" (2 for "3 to 2"); 1 for every other kind

    def paid(self, stake: int, meter: int | None = None) -> int | None:
        """Cents handed to the player on a win; ``None`` if the meter is unknown."""
        if self.kind is OddsKind.METER:
            if meter is None:
                return None
            return meter * self.value // 100
        if self.per != 1:
            return self.value * stake // self.per
        return self.value * stake

    @property
    def is_meter(self) -> bool:
        return self.kind is OddsKind.METER

    def __str__(self) -> str:
        if self.kind is OddsKind.DOLLARS:
            return f"${self.value:,}"
        if self.kind is OddsKind.METER:
            return f"{self.value}% of meter"
        if self.per != 1:
            return f"{self.value:,} to {self.per:,}"
        return f"{self.value:,} {self.kind.value}"


def to_one(x: int) -> Odds:
    return Odds(OddsKind.TO_ONE, x)


def to(x: int, y: int) -> Odds:
    """ "X to Y" (the stake stays with the player)."""
    if x < 1 or y < 1:
        raise ValueError(f"odds of {x} to {y}: both sides must be at least 1")
    return Odds(OddsKind.TO_ONE, x, y)


def for_one(x: int) -> Odds:
    return Odds(OddsKind.FOR_ONE, x)


def dollars(n: int) -> Odds:
    return Odds(OddsKind.DOLLARS, n)


def of_meter(percent: int) -> Odds:
    return Odds(OddsKind.METER, percent)


_ODDS_TEXT = re.compile(
    r"^\s*(?:(?P<x>[0-9][0-9,]*)\s+(?P<kind>to|for)\s+1"
    r"|\$(?P<dollars>[0-9][0-9,]*)"
    r"|(?P<pct>[0-9]{1,3})\s*%\s+of\s+meter)\s*$"
)


def parse_odds(text: str) -> Odds:
    """``"500 for 1"``, ``"11 to 1"``, ``"$2,000"``, ``"10% of meter"`` -> :class:`Odds`."""
    match = _ODDS_TEXT.match(text)
    if match is None:
        raise ValueError(
            f"{text!r} is not a payout: write 'X to 1', 'X for 1', '$N' or 'P% of meter'"
        )
    if match.group("x"):
        x = int(match.group("x").replace(",", ""))
        return to_one(x) if match.group("kind") == "to" else for_one(x)
    if match.group("dollars"):
        return dollars(int(match.group("dollars").replace(",", "")))
    pct = int(match.group("pct"))
    if not 1 <= pct <= 100:
        raise ValueError(f"{text!r}: a meter share is 1% to 100%")
    return of_meter(pct)
