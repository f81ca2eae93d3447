"""The simulated floor's Rules Submission: a mix of games, pay tables, shufflers and dealing.

The tables take the floor's games in turn (by default every game the simulator plays,
:func:`~tablewatch.sim.games.played`, in the registry's order); each game's simulator
configures its own tables' pay tables.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from tablewatch.sim.games import SimulatedGame, played

DEALINGS = ("hand", "manual_shoe", "automated_shoe")
TABLES_PER_PIT = 4


def game_of(index: int, games: Sequence[SimulatedGame] | None = None) -> SimulatedGame:
    """The game of the floor's table ``index`` (from 0): ``games`` (every game played) in
    turn."""
    games = games or played()
    return games[index % len(games)]


def table_ids(n: int, games: Sequence[SimulatedGame] | None = None) -> list[str]:
    """The games in turn, each table's id its game's prefix and its number: for games
    (A, B), A-01, B-02, A-03, ..."""
    games = games or played()
    return [f"{game_of(i, games).prefix}-{i + 1:02d}" for i in range(n)]


def floor_config(
    n_tables: int, rng: random.Random, games: Sequence[SimulatedGame] | None = None
) -> dict[str, Any]:
    games = games or played()
    tables: dict[str, Any] = {}
    for i, table_id in enumerate(table_ids(n_tables, games)):
        dealing = DEALINGS[(i // 2) % 3]
        counting = (i // 2) % 2 == 1
        progressive = i % 5 != 4
        table, paytables = game_of(i, games).floor_table(i, rng, progressive)
        table["paytables"] = paytables
        table["counting_shuffler"] = counting
        table["dealing"] = dealing
        if "progressive_reset" in table:
            table["progressive_rate"] = 0.2
        # where it stands and what films it (no rule reads them: the dashboards' pits,
        # the alerts' routing, an auditor's video)
        table["pit"] = f"Pit {i // TABLES_PER_PIT + 1}"
        table["cameras"] = [f"CAM-{i + 1:02d}A", f"CAM-{i + 1:02d}B"]
        tables[table_id] = table
    return {"tables": tables}
