"""The games this service audits: one package each, looked up by name.

Every module or package of this package that defines ``RULES`` (a
:class:`~tablewatch.rules.game_rules.GameRules`, in the package's
``__init__.py``) is a game, registered under ``RULES.name`` when the package
is first imported, in the order of their names. Adding a game is adding its
package here, with its pay tables, settlement, edges and own checks as
modules beside its descriptor: nothing else names a game. The protocol's
vocabulary follows the registry: the games and bets an event may name
(:func:`tablewatch.rules.events.set_vocabulary`). :func:`register` adds one
defined elsewhere (a test's).
"""

from __future__ import annotations

import importlib
import pkgutil

from tablewatch.rules.checks.catalog import CHECKS
from tablewatch.rules.events import set_vocabulary
from tablewatch.rules.game_rules import GameRules

__all__ = ["GameRules", "UnknownGame", "all_rules", "names", "register", "rules_of", "unregister"]

_GAMES: dict[str, GameRules] = {}
_ADDED_CODES: dict[str, list[str]] = {}  # game -> the check codes it added to the catalog


class UnknownGame(LookupError):
    """No game of that name is registered."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown game {name!r} (one of {', '.join(_GAMES)})")
        self.name = name


def rules_of(name: str) -> GameRules:
    """The descriptor of the game called ``name``; :class:`UnknownGame` if there is none."""
    rules = _GAMES.get(name)
    if rules is None:
        raise UnknownGame(name)
    return rules


def names() -> tuple[str, ...]:
    """Every registered game's name, in registration order."""
    return tuple(_GAMES)


def all_rules() -> tuple[GameRules, ...]:
    return tuple(_GAMES.values())


def register(rules: GameRules) -> None:
    """Register a game; its own check codes the catalog does not list join the catalog."""
    if rules.name in _GAMES:
        raise ValueError(f"a game named {rules.name!r} is already registered")
    added = []
    for check in rules.checks:
        if check.code in CHECKS:
            continue
        if check.entry is None or check.entry.code != check.code:
            raise ValueError(
                f"game {rules.name!r}: check code {check.code} is not in the catalog and has "
                "no catalog entry of its own"
            )
        CHECKS[check.code] = check.entry
        added.append(check.code)
    _GAMES[rules.name] = rules
    _ADDED_CODES[rules.name] = added
    _vocabulary()


def unregister(name: str) -> None:
    """Forget a registered game (and the check codes it added); :class:`UnknownGame` if none."""
    rules_of(name)
    del _GAMES[name]
    for code in _ADDED_CODES.pop(name):
        del CHECKS[code]
    _vocabulary()


def _vocabulary() -> None:
    """The names the protocol's events may hold are the registered games' (their names,
    bets and decisions' bets): :func:`tablewatch.rules.events.set_vocabulary`."""
    games = _GAMES.values()
    set_vocabulary(
        _GAMES,
        [wager.bet for rules in games for wager in rules.wagers],
        [bet for rules in games for bet in rules.decision_bets],
    )


def _discover() -> None:
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        rules = getattr(module, "RULES", None)
        if isinstance(rules, GameRules):
            register(rules)


_discover()
