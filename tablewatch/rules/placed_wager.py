"""A wager on the layout, as the round view sums it up from ``wager`` events.

A msgspec Struct, in a module of its own: the rest of the round view is
compiled by mypyc (tablewatch.native), which compiles classes of its own kind only.
"""

from __future__ import annotations

import msgspec


class PlacedWager(msgspec.Struct, gc=False):
    """A wager on the layout (a msgspec Struct: a round builds a dozen, several times faster)."""

    seat: int
    bet: str
    amount: int
    event_ids: list[str] = msgspec.field(default_factory=list)
