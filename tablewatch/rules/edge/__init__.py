"""House edge of each wager, computed through our pay tables and hand names.

Exact enumerations (every hand equally likely) price each distinct hand once
with the functions settlement uses (:mod:`tablewatch.rules.edge.pricing`);
a wager whose optimal play cannot be enumerated cheaply is a Monte-Carlo of
a learned strategy (:class:`MonteCarloEdge`). Which wagers of a game are priced, and
how, is the game descriptor's ``edges`` (:mod:`tablewatch.rules.games`).
Pure computation: no file I/O.
"""

from __future__ import annotations

from tablewatch.rules.edge.result import EdgeResult
from tablewatch.rules.game_rules import ExactEdge, MonteCarloEdge, RowsEdge, WagerEdge
from tablewatch.rules.games import all_rules, rules_of
from tablewatch.rules.paytables.rows import table_of_rows
from tablewatch.rules.paytables.table import PayTable

__all__ = [
    "EdgeResult",
    "ExactEdge",
    "MonteCarloEdge",
    "RowsEdge",
    "WagerEdge",
    "exact_edge",
    "games_with_edges",
    "rows_table",
    "wager_edge",
    "wagers_of",
]


def games_with_edges() -> tuple[str, ...]:
    """The games with a wager whose house edge is computed here, in registration order."""
    return tuple(rules.name for rules in all_rules() if rules.edges)


def wagers_of(game: str) -> tuple[str, ...]:
    """The wagers of ``game`` whose house edge is computed here (none for an unknown game)."""
    if game not in games_with_edges():
        return ()
    return tuple(rules_of(game).edges)


def wager_edge(game: str, wager: str) -> WagerEdge:
    """How the edge of ``game``'s ``wager`` is computed; ``KeyError`` for an unknown one."""
    if game not in games_with_edges():
        raise KeyError(game)
    return rules_of(game).edges[wager]


def exact_edge(game: str, wager: str, letter: str) -> EdgeResult:
    """House edge of an exactly enumerated wager; ``KeyError`` for an unknown one."""
    spec = wager_edge(game, wager)
    if not isinstance(spec, ExactEdge) or letter not in spec.tables:
        raise KeyError(letter)
    return spec.compute(game, letter)


def rows_table(game: str, wager: str, text: str) -> PayTable:
    """The pay table ``text`` ("40,30,6,3,1": rows, highest hand first) states for ``game``'s
    ``wager`` priced by rows; ``ValueError`` naming the row and the reason."""
    spec = wager_edge(game, wager)
    if not isinstance(spec, RowsEdge):
        raise KeyError(wager)
    rows: list[object] = []
    for item in text.split(","):
        item = item.strip()
        rows.append(int(item) if item.lstrip("-").isdigit() else item)
    try:
        return table_of_rows("--rows", spec.slot, spec.rows, {"rows": rows})
    except ValueError as exc:
        raise ValueError(str(exc).replace("--rows.rows", "--rows")) from None
