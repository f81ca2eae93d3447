"""A store filled from a simulated floor, for the API tests: the rows the worker writes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablewatch.config_file import entry_json
from tablewatch.rules.config import parse_config
from tablewatch.sim.floor import Floor
from tablewatch.store.client import connect
from tablewatch.store.migrate import migrate
from tablewatch.store.rollups import refresh_rollups
from tablewatch.store.table_directory import directory_rows, write_directory
from tablewatch.store.writer import StoreWriter
from tests.sim.floors import FIRST_TWO
from tests.store.conftest import dsn_of
from tests.store.helpers import JUDGED_AT, Audited, audit_floor

FLOOR = {
    "tables": 4,
    "rounds": 240,
    "seed": 7,
    "error_rate": 0.25,
    "jackpot_rate": 0.1,
    "games": FIRST_TWO,  # the tests' table ids and counts are those of the first two games
}


@dataclass(frozen=True)
class FilledStore:
    dsn: str
    audited: Audited
    config: dict[str, object]


def fill_store(directory: Path, **floor: Any) -> FilledStore:
    """A migrated store at ``directory`` holding a simulated floor's events, rounds, lines,
    findings and table directory (every client closed again)."""
    sim = Floor(**{**FLOOR, **floor})
    audited = audit_floor(sim)
    dsn = dsn_of(directory)
    client = connect(dsn)
    try:
        migrate(client)
        StoreWriter(client).insert_batch(audited.batch())
        configs = parse_config(sim.config)
        entries = {t: entry_json(entry) for t, entry in sim.config["tables"].items()}
        write_directory(client, directory_rows(configs, entries, JUDGED_AT))
        refresh_rollups(client)  # as the worker does after its inserts
    finally:
        client.close()
    return FilledStore(dsn, audited, sim.config)
