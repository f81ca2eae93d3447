"""The settlement lines one round is owed: per wager, per Envy Bonus, per payout limit.

Immutable ``msgspec.Struct``s rather than frozen dataclasses: a round makes a
dozen of them, and a frozen dataclass takes about fifteen times as long to
build (one ``object.__setattr__`` per field). In a module of their own: the
rest of settlement is compiled by mypyc (tablewatch.native), which compiles
classes of its own kind only.
"""

from __future__ import annotations

import msgspec

from tablewatch.rules.paytables.odds import Odds


class Expected(msgspec.Struct, frozen=True, gc=False):
    """The settlement one wager is owed.

    ``result`` is ``win``, ``lose`` or ``returned``. A winning meter payout
    (``odds.is_meter``) is priced at settlement time from the meter reading.
    ``optional``: no ``settle`` line is needed (a bet pulled back by decision, a
    house bonus that is not due).
    """

    seat: int
    bet: str
    result: str
    stake: int
    section: str
    hand: str | None = None
    odds: Odds | None = None
    optional: bool = False
    validation_section: str | None = None  # a win here needs a floorperson's validation
    not_from_inventory_section: str | None = None  # a win here may not come from the inventory

    def paid(self, meter: int | None) -> int | None:
        """Cents owed; ``None`` for a meter payout with no meter reading."""
        if self.result != "win" or self.odds is None:
            return 0
        return self.odds.paid(self.stake, meter)

    @property
    def is_meter(self) -> bool:
        return self.result == "win" and self.odds is not None and self.odds.is_meter


class ExpectedEnvy(msgspec.Struct, frozen=True, gc=False):
    seat: int  # who receives it
    for_seat: int  # whose hand earns it
    paid: int
    hand: str
    section: str


class PayoutLimit(msgspec.Struct, frozen=True, gc=False):
    """A hand whose capped bets together exceed the table's payout limit per hand (the
    game's ``PayoutLimitRule``; ``section`` cites it)."""

    seat: int
    limit: int
    uncapped: int
    section: str
