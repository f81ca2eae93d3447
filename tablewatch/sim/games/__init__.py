"""The games the simulator plays, by name: one module each (how the game is played).

A game is simulated when the rules registry knows it
(:mod:`tablewatch.rules.games`) and the simulator has its
:class:`SimulatedGame`: found in this package's module of the game's name
(its ``SIMULATOR``), or registered with :func:`register` (a test's toy game).
:func:`played` lists them in the registry's order, the order a floor's tables
take them by default (table 1 the first game, table 2 the second, ... then
again).
"""

from __future__ import annotations

import importlib
import importlib.util

from tablewatch.rules.games import names
from tablewatch.sim.games.simulated_game import SimulatedGame

__all__ = ["SimulatedGame", "choose", "played", "register", "simulated", "unregister"]

_BY_NAME: dict[str, SimulatedGame] = {}


def register(game: SimulatedGame) -> None:
    """The simulator plays ``game`` (its descriptor registered in the rules registry)."""
    name = game.rules.name
    if name in _BY_NAME:
        raise ValueError(f"the simulator already plays a game named {name!r}")
    _BY_NAME[name] = game


def unregister(name: str) -> None:
    """The simulator no longer plays ``name``; ``KeyError`` naming it if it did not."""
    simulated(name)
    del _BY_NAME[name]


def played() -> tuple[SimulatedGame, ...]:
    """Every game the simulator plays whose descriptor is registered, in the registry's
    order."""
    return tuple(_BY_NAME[name] for name in names() if name in _BY_NAME)


def simulated(name: str) -> SimulatedGame:
    """The simulator of the game called ``name``; ``KeyError`` naming it if there is none."""
    game = _BY_NAME.get(name)
    if game is None:
        plays = ", ".join(game.rules.name for game in played())
        raise KeyError(f"the simulator does not play {name!r} (it plays {plays})")
    return game


def choose(games: str | None) -> tuple[SimulatedGame, ...]:
    """The games named in ``games`` (comma-separated, in the order the floor's tables take
    them); every game the simulator plays for ``None``. ``ValueError`` naming a game it does
    not play, or a game named twice."""
    every = played()
    if games is None:
        return every
    plays = ", ".join(game.rules.name for game in every)
    chosen = [name.strip() for name in games.split(",") if name.strip()]
    if not chosen:
        raise ValueError(f"no game named (one or more of {plays})")
    by_name = {game.rules.name: game for game in every}
    for name in chosen:
        if name not in by_name:
            raise ValueError(f"{name!r}: the simulator does not play it (it plays {plays})")
        if chosen.count(name) > 1:
            raise ValueError(f"{name!r}: named twice")
    return tuple(by_name[name] for name in chosen)


def _discover() -> None:
    for name in names():
        module_name = f"{__name__}.{name}"
        if importlib.util.find_spec(module_name) is None:
            continue
        game = getattr(importlib.import_module(module_name), "SIMULATOR", None)
        if isinstance(game, SimulatedGame):
            register(game)


_discover()
