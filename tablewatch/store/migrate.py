"""Schema migrations: the numbered SQL files of ``tablewatch/store/migrations``, in order.

Each file ``NNNN_<name>.sql`` holds one or more statements separated by
``;``. :func:`migrate` applies the files whose version (``NNNN``) is not yet
recorded in ``schema_migrations``, in version order, and records each one
after all its statements succeeded. ClickHouse has no transactional DDL: a
file that fails halfway is applied again from its start on the next run, so
every statement must be safe to repeat (``IF NOT EXISTS``, ``IF EXISTS``,
``CREATE OR REPLACE VIEW``). A statement that cannot be repeated as it is
(``EXCHANGE TABLES``, a copy meant to run once) is preceded by a guard line
``-- @when <query>``: it runs only when the query's first value is non-zero.
Then the rows of ``hold_lines`` are brought in step with the registered games
(:mod:`tablewatch.store.hold_lines`).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from importlib import resources

from clickhouse_connect.driver.client import Client

from tablewatch.store.sql_text import split_statements

MIGRATIONS_PACKAGE = "tablewatch.store.migrations"
_FILE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
_GUARD = re.compile(r"^\s*--\s*@when\s+(.+?)\s*$", re.MULTILINE)

SCHEMA_MIGRATIONS_DDL = """
CREATE TABLE IF NOT EXISTS schema_migrations
(
    version    String,
    name       String,
    applied_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(applied_at)
ORDER BY version
"""


@dataclass(frozen=True, slots=True)
class Migration:
    version: str  # "0001"
    name: str  # "raw_events"
    sql: str

    @property
    def label(self) -> str:
        return f"{self.version}_{self.name}"

    def statements(self) -> list[str]:
        return split_statements(self.sql)


def available() -> list[Migration]:
    """Every migration shipped with the package, in version order."""
    found: list[Migration] = []
    for entry in resources.files(MIGRATIONS_PACKAGE).iterdir():
        match = _FILE.match(entry.name)
        if match:
            found.append(Migration(match.group(1), match.group(2), entry.read_text("utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise RuntimeError(f"two migrations share a version: {versions}")
    return found


def applied(client: Client) -> set[str]:
    """The versions recorded in ``schema_migrations`` (creating the table if needed)."""
    client.command(SCHEMA_MIGRATIONS_DDL)
    rows = client.query("SELECT DISTINCT version FROM schema_migrations").result_rows
    return {str(row[0]) for row in rows}


def pending(client: Client) -> list[Migration]:
    done = applied(client)
    return [m for m in available() if m.version not in done]


class ClusterMigrationNeeded(RuntimeError):
    """Migrations are pending on a store whose schema was made ON CLUSTER: applied here,
    one node's single-node DDL would split the schema; ``db migrate --cluster`` applies
    them (:mod:`tablewatch.store.cluster`)."""


def on_cluster(client: Client) -> bool:
    """Whether the store's schema was made by ``tablewatch db migrate --cluster`` (its
    ``schema_migrations`` is replicated)."""
    rows = client.query(
        "SELECT engine FROM system.tables "
        "WHERE database = currentDatabase() AND name = 'schema_migrations'"
    ).result_rows
    return bool(rows) and str(rows[0][0]).startswith("Replicated")


def migrate(client: Client) -> list[str]:
    """Apply the pending migrations in order; the labels applied (``[]`` when up to date).

    On a cluster's schema, pending migrations raise :class:`ClusterMigrationNeeded`."""
    labels: list[str] = []
    todo = pending(client)
    if todo and on_cluster(client):
        raise ClusterMigrationNeeded(
            f"migrations {', '.join(m.label for m in todo)} are pending on a cluster's "
            "schema: run `tablewatch db migrate --cluster NAME` (docs/cluster.md)"
        )
    for migration in todo:
        for statement in migration.statements():
            if should_run(client, statement):
                client.command(statement)
        client.insert(
            "schema_migrations",
            [[migration.version, migration.name, int(time.time() * 1000)]],
            column_names=["version", "name", "applied_at"],
        )
        labels.append(migration.label)
    if "0018" in applied(client):  # the hold rollups' bets, from the game descriptors
        from tablewatch.store.hold_lines import sync_hold_lines

        sync_hold_lines(client)
    return labels


def guard_of(statement: str) -> str | None:
    """The query of the statement's ``-- @when`` line, if it has one."""
    match = _GUARD.search(statement)
    return match.group(1) if match else None


def should_run(client: Client, statement: str) -> bool:
    """Whether ``statement`` runs now: always, or when its guard's query answers non-zero."""
    guard = guard_of(statement)
    if guard is None:
        return True
    rows = client.query(guard).result_rows
    return bool(rows and rows[0] and rows[0][0])
