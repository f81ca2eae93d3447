"""``hold_lines``: which bets of each registered game the hold rollups count, and how.

One row per (game, bet) of every game's :attr:`~tablewatch.rules.game_rules.GameRules.hold`:
the priced wager the bet belongs to, whether its stake is the unit, whether a win keeps
the stake (odds "for 1"). ``hold_by_round_lines_mv`` (migration 0018) joins each stored
settle line with these rows on its round's game and its bet. Written by
:func:`tablewatch.store.migrate.migrate` (``tablewatch db migrate``, and the worker when
it starts): only the rows the store lacks or holds otherwise, so a store already in step
costs one query.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from clickhouse_connect.driver.client import Client

from tablewatch.rules.game_rules import GameRules

HOLD_LINES = "hold_lines"
COLUMNS = ("game", "bet", "wager", "is_unit", "kept", "updated_at")
HoldLine = tuple[str, str, str, bool, bool]  # game, bet, wager, is_unit, kept


def hold_line_rows(games: Iterable[GameRules]) -> list[HoldLine]:
    """One row per bet of each game's priced wagers, in the games' and wagers' order."""
    rows: list[HoldLine] = []
    for rules in games:
        for wager in rules.hold:
            for bet in wager.bets:
                rows.append((rules.name, bet, wager.wager, bet == wager.unit, bet in wager.kept))
    return rows


def stored_hold_lines(client: Client) -> set[HoldLine]:
    rows = client.query(
        "SELECT game, bet, argMax(wager, updated_at), argMax(is_unit, updated_at), "
        f"argMax(kept, updated_at) FROM {HOLD_LINES} GROUP BY game, bet"
    ).result_rows
    return {(str(g), str(b), str(w), bool(u), bool(k)) for g, b, w, u, k in rows}


def sync_hold_lines(client: Client, games: Iterable[GameRules] | None = None) -> int:
    """Write the rows of ``games`` (every registered game by default) that the store lacks
    or holds otherwise; how many were written."""
    if games is None:
        from tablewatch.rules.games import all_rules

        games = all_rules()
    have = stored_hold_lines(client)
    missing = [row for row in hold_line_rows(games) if row not in have]
    if missing:
        now_ms = int(time.time() * 1000)
        client.insert(HOLD_LINES, [[*row, now_ms] for row in missing], column_names=list(COLUMNS))
    return len(missing)
