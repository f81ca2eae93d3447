"""The table directory (``table_directory``, read through ``tables_v``): each configured
table's game, pit and cameras, for readers that hold no configuration file (the auditor
API, the dashboards' ``pit`` variable).

The worker writes one row per table of its configuration when it starts
(:func:`write_directory`); a later start with a changed file writes newer rows, which win
(ReplacingMergeTree by ``updated_at``). A table no longer configured keeps its last row.
``config`` is the table's own entry in the file as JSON
(:func:`tablewatch.config_file.table_entries`), which the round reconstruction validates
again to price a stored round (:func:`tablewatch.rules.config.parse_table`), and
``config_sha256`` its SHA-256, so a reader can tell which configuration judged a round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from clickhouse_connect.driver.client import Client

from tablewatch.config_file import entry_sha256
from tablewatch.rules.table_config import TableConfig

TABLE_DIRECTORY = "table_directory"
DIRECTORY_COLUMNS = (
    "table_id",
    "game",
    "pit",
    "cameras",
    "config",
    "config_sha256",
    "updated_at",
)
DirectoryRow = tuple[str, str, str, list[str], str, str, int]


def directory_rows(
    configs: Mapping[str, TableConfig], entries: Mapping[str, str], updated_at_ms: int
) -> list[DirectoryRow]:
    """One row per table, in table order: ``pit`` '' when the configuration names none,
    ``config`` and ``config_sha256`` '' when ``entries`` has none for the table."""
    return [
        (
            table_id,
            config.game,
            config.pit or "",
            list(config.cameras),
            entries.get(table_id, ""),
            entry_sha256(entries[table_id]) if table_id in entries else "",
            updated_at_ms,
        )
        for table_id, config in sorted(configs.items())
    ]


def write_directory(client: Client, rows: Sequence[DirectoryRow]) -> int:
    """Insert ``rows`` (safe to repeat: a table's newest row is the one read); the count."""
    if rows:
        client.insert(
            TABLE_DIRECTORY, [list(row) for row in rows], column_names=list(DIRECTORY_COLUMNS)
        )
    return len(rows)
