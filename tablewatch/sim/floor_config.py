"""The simulated floor's Rules Submission: a mix of games, pay tables, shufflers and dealing.

The tables take the simulated games in turn (:data:`~tablewatch.sim.games.SIMULATED`);
each game's simulator configures its own tables' pay tables.
"""

from __future__ import annotations

import random
from typing import Any

from tablewatch.sim.games import SIMULATED, SimulatedGame

DEALINGS = ("hand", "manual_shoe", "automated_shoe")
TABLES_PER_PIT = 4


def game_of(index: int) -> SimulatedGame:
    """The game of the floor's table ``index`` (from 0)."""
    return SIMULATED[index % len(SIMULATED)]


def table_ids(n: int) -> list[str]:
    """The games in turn: LIR-01, FCP-02, LIR-03, ..."""
    return [f"{game_of(i).prefix}-{i + 1:02d}" for i in range(n)]


def floor_config(n_tables: int, rng: random.Random) -> dict[str, Any]:
    tables: dict[str, Any] = {}
    for i, table_id in enumerate(table_ids(n_tables)):
        dealing = DEALINGS[(i // 2) % 3]
        counting = (i // 2) % 2 == 1
        progressive = i % 5 != 4
        table, paytables = game_of(i).floor_table(i, rng, progressive)
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
