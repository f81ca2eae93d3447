"""The games the simulator plays, by name: one module each (how the game is played).

:data:`SIMULATED` lists them in the order the floor's tables take them
(table 1 the first game, table 2 the second, ... then again).
"""

from __future__ import annotations

from tablewatch.sim.games.four_card_poker import FourCardPoker
from tablewatch.sim.games.let_it_ride import LetItRide
from tablewatch.sim.games.simulated_game import SimulatedGame

__all__ = ["SIMULATED", "SimulatedGame", "simulated"]

SIMULATED: tuple[SimulatedGame, ...] = (LetItRide(), FourCardPoker())
_BY_NAME: dict[str, SimulatedGame] = {game.rules.name: game for game in SIMULATED}


def simulated(name: str) -> SimulatedGame:
    """The simulator of the game called ``name``; ``KeyError`` naming it if there is none."""
    game = _BY_NAME.get(name)
    if game is None:
        raise KeyError(f"the simulator does not play {name!r} (it plays {', '.join(_BY_NAME)})")
    return game
