"""``table_paytables``: each configured table's pay table letter per wager.

Written by the worker when it starts, beside the table directory: the hold panels join
a table's hold with the theoretical edge of its own pay tables (``theoretical``). A priced
wager (its game's ``edges``) that no pay-table slot of the game prices is written with
paytable '', or, when its edge depends on the rows of another slot (an Ante priced with
the Ante bonus the table states), with that slot's rows, or settled with another wager's
table (an Ante with the Blind), with that table's letter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from clickhouse_connect.driver.client import Client

from tablewatch.rules.game_rules import MonteCarloEdge, RowsEdge
from tablewatch.rules.table_config import TableConfig

TABLE_PAYTABLES = "table_paytables"
COLUMNS = ("table_id", "wager", "paytable", "updated_at")
PaytableRow = tuple[str, str, str, int]


def unlettered(config: TableConfig) -> tuple[str, ...]:
    """The priced wagers of the table's game that have no pay-table slot of their own."""
    rules = config.rules
    slots = {
        *rules.configuration.lettered,
        *rules.configuration.rows,
        *rules.configuration.casino_supplied,
    }
    return tuple(wager for wager in rules.edges if wager not in slots)


def priced_by(config: TableConfig, wager: str) -> str:
    """The pay table that prices an unlettered ``wager`` at this table: the rows of the slot
    its edge is computed with, or '' (a wager with no pay table)."""
    spec = config.rules.edges.get(wager)
    if isinstance(spec, RowsEdge) and spec.slot in config.paytables:
        return config.paytables[spec.slot].letter
    if isinstance(spec, MonteCarloEdge) and spec.tables:  # settled with another wager's table
        slot = next(iter(spec.tables.values())).wager
        if slot in config.paytables:
            return config.paytables[slot].letter
    return ""


def paytable_rows(configs: Mapping[str, TableConfig], updated_at_ms: int) -> list[PaytableRow]:
    """One row per table and pay table slot, and one per unlettered priced wager."""
    rows: list[PaytableRow] = []
    for table_id, config in sorted(configs.items()):
        for slot, table in sorted(config.paytables.items()):
            rows.append((table_id, slot, table.letter, updated_at_ms))
        for wager in unlettered(config):
            rows.append((table_id, wager, priced_by(config, wager), updated_at_ms))
    return rows


def write_paytables(client: Client, rows: Sequence[PaytableRow]) -> int:
    """Insert ``rows`` (safe to repeat: the newest row of a table's wager is read)."""
    if rows:
        client.insert(TABLE_PAYTABLES, [list(r) for r in rows], column_names=list(COLUMNS))
    return len(rows)
