"""The dashboard variables: pit, game, table, dealer (multi-valued, "All" by default).

Their options are queried from the store through the same datasource: pits and games
from the table directory (``tables_v``), tables of the chosen pits and games, dealers
who dealt in the time range.
"""

from __future__ import annotations

from dataclasses import dataclass

ALL = "$__all"


@dataclass(frozen=True, slots=True)
class Variable:
    name: str
    label: str
    sql: str
    refresh_on_time_range: bool = False


VARIABLES = (
    Variable("pit", "Pit", "SELECT DISTINCT pit FROM tables_v WHERE pit != '' ORDER BY pit"),
    Variable("game", "Game", "SELECT DISTINCT game FROM tables_v ORDER BY game"),
    Variable(
        "table",
        "Table",
        "SELECT table_id FROM tables_v"
        " WHERE $__conditionalAll(pit IN (${pit:singlequote}), $pit)"
        " AND $__conditionalAll(game IN (${game:singlequote}), $game)"
        " ORDER BY table_id",
    ),
    Variable(
        "dealer",
        "Dealer",
        "SELECT DISTINCT dealer_id FROM rounds"
        " WHERE $__timeFilter_ms(start_ts) AND dealer_id IS NOT NULL ORDER BY dealer_id",
        refresh_on_time_range=True,
    ),
)
NAMES = frozenset(v.name for v in VARIABLES)
