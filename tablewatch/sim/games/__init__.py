"""The games the simulator plays, by name: one module each (how the game is played).

A game is simulated when the rules registry knows it
(:mod:`tablewatch.rules.games`) and this package has a module of the same
name whose ``SIMULATOR`` is its :class:`SimulatedGame`. :data:`SIMULATED`
lists them in the registry's order, the order a floor's tables take them by
default (table 1 the first game, table 2 the second, ... then again).
"""

from __future__ import annotations

import importlib
import importlib.util

from tablewatch.rules.games import names
from tablewatch.sim.games.simulated_game import SimulatedGame

__all__ = ["SIMULATED", "SimulatedGame", "choose", "simulated"]


def _discover() -> tuple[SimulatedGame, ...]:
    found = []
    for name in names():
        module_name = f"{__name__}.{name}"
        if importlib.util.find_spec(module_name) is None:
            continue
        game = getattr(importlib.import_module(module_name), "SIMULATOR", None)
        if isinstance(game, SimulatedGame):
            found.append(game)
    return tuple(found)


SIMULATED: tuple[SimulatedGame, ...] = _discover()
_BY_NAME: dict[str, SimulatedGame] = {game.rules.name: game for game in SIMULATED}


def simulated(name: str) -> SimulatedGame:
    """The simulator of the game called ``name``; ``KeyError`` naming it if there is none."""
    game = _BY_NAME.get(name)
    if game is None:
        raise KeyError(f"the simulator does not play {name!r} (it plays {', '.join(_BY_NAME)})")
    return game


def choose(games: str | None) -> tuple[SimulatedGame, ...]:
    """The games named in ``games`` (comma-separated, in the order the floor's tables take
    them); every game the simulator plays for ``None``. ``ValueError`` naming a game it does
    not play, or a game named twice."""
    if games is None:
        return SIMULATED
    chosen = [name.strip() for name in games.split(",") if name.strip()]
    if not chosen:
        raise ValueError(f"no game named (one or more of {', '.join(_BY_NAME)})")
    for name in chosen:
        if name not in _BY_NAME:
            raise ValueError(
                f"{name!r}: the simulator does not play it (it plays {', '.join(_BY_NAME)})"
            )
        if chosen.count(name) > 1:
            raise ValueError(f"{name!r}: named twice")
    return tuple(_BY_NAME[name] for name in chosen)
