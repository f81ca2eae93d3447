"""Simulated floors of the first two games only, as every floor was before the others joined.

``FIRST_TWO`` lists them in the order their tables took them then (Let It
Ride first): a floor of them is, byte for byte, the floor the same options
gave before (the baseline referee's floor is one), so a test whose expected
numbers, table ids or shipped files come from such a floor keeps them.
"""

from __future__ import annotations

from typing import Final

from tablewatch.sim.games import SimulatedGame, choose

FIRST_TWO_NAMES: Final = "let_it_ride,four_card_poker"
FIRST_TWO: Final[tuple[SimulatedGame, ...]] = choose(FIRST_TWO_NAMES)
