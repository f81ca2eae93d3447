"""``tablewatch db migrate --cluster``: the cluster DDL derived from the single-node schema.

No ClickHouse cluster runs here: every statement is parsed by the embedded engine
(``formatQuery``), and the single-node store the migrations make is enumerated here,
on its own, so that a table or view added by any later migration must have its cluster
counterpart."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any, cast

import pytest
from clickhouse_connect.driver.client import Client

from tablewatch.store.client import open_store
from tablewatch.store.cluster import (
    ClusterSchemaError,
    SchemaObject,
    cluster_ddl,
    plan,
    read_schema,
)
from tablewatch.store.migrate import (
    SCHEMA_MIGRATIONS_DDL,
    ClusterMigrationNeeded,
    migrate,
    on_cluster,
)

CLUSTER, DB = "tw_cluster", "tablewatch"


@pytest.fixture(scope="module")
def statements() -> list[str]:
    """What ``tablewatch db migrate --cluster --print`` prints (its own scratch store, in
    a process of its own), one statement a line."""
    printed = subprocess.run(
        [sys.executable, "-m", "tablewatch.cli", "db", "migrate", "--cluster", CLUSTER,
         "--print", "--dsn", f"http://writer:secret@clickhouse:8123/{DB}"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert printed.returncode == 0, printed.stderr
    assert "secret" not in printed.stdout
    lines = printed.stdout.splitlines()
    assert all(line.endswith(";") for line in lines)
    return [line.removesuffix(";") for line in lines]


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    """A single-node store made here by the migrations, enumerated by the tests."""
    with open_store(f"chdb:///{tmp_path_factory.mktemp('single')}") as client:
        migrate(client)
        yield client


@pytest.fixture(scope="module")
def schema(migrated: Client) -> list[SchemaObject]:
    return read_schema(migrated)


def created(statements: list[str]) -> dict[str, str]:
    """The object each statement creates (``db.name``) -> the statement."""
    out = {}
    for statement in statements:
        match = re.match(
            r"CREATE (?:OR REPLACE )?(?:MATERIALIZED )?(?:TABLE|VIEW)(?: IF NOT EXISTS)? "
            rf"{DB}\.(\w+) ON CLUSTER {CLUSTER} ",
            statement,
        )
        if match:
            assert match.group(1) not in out, f"{match.group(1)} created twice"
            out[match.group(1)] = statement
    return out


def test_every_statement_parses_on_the_engine(statements: list[str], migrated: Client) -> None:
    assert statements[0] == f"CREATE DATABASE IF NOT EXISTS {DB} ON CLUSTER {CLUSTER}"
    for statement in statements:
        formatted = migrated.query(
            "SELECT formatQuerySingleLine({sql:String})", parameters={"sql": statement}
        ).result_rows[0][0]
        assert f"ON CLUSTER {CLUSTER}" in formatted, statement


def test_every_single_node_table_and_view_has_its_counterpart(
    statements: list[str], migrated: Client
) -> None:
    rows = migrated.query(
        "SELECT name, engine, engine_full FROM system.tables "
        "WHERE database = currentDatabase() AND NOT startsWith(name, '.inner')"
    ).result_rows
    assert len(rows) >= 20  # 0001-0007 alone make 17
    made = created(statements)
    columns = {
        (str(t), str(c))
        for t, c in migrated.query(
            "SELECT table, name FROM system.columns WHERE database = currentDatabase()"
        ).result_rows
    }
    for name, engine, engine_full in rows:
        name, engine = str(name), str(engine)
        assert name in made, f"{name} ({engine}) has no cluster counterpart"
        if engine.endswith("MergeTree"):
            args = re.match(rf"{engine}(?:\((.*?)\))?(?: |$)", str(engine_full))
            assert args is not None, engine_full
            kept = f", {args.group(1)})" if args.group(1) else ")"
            if (name, "table_id") in columns:  # sharded: a local table, Distributed over it
                local = made[f"{name}_local"]
                assert (
                    f"ENGINE = Replicated{engine}('/clickhouse/tables/{{shard}}/{DB}/"
                    f"{name}_local', '{{replica}}'{kept}"
                ) in local
                assert made[name].endswith(
                    f"AS {DB}.{name}_local ENGINE = Distributed({CLUSTER}, {DB}, "
                    f"{name}_local, cityHash64(table_id))"
                )
            else:  # replicated to every node under its own name
                assert (
                    f"ENGINE = Replicated{engine}('/clickhouse/tables/all/{DB}/{name}', "
                    f"'{{shard}}-{{replica}}'{kept}"
                ) in made[name]
        elif engine == "View":
            statement = made[name]
            if f"{name}_local" in made:
                assert statement.endswith(f"ENGINE = Distributed({CLUSTER}, {DB}, {name}_local)")
                assert made[f"{name}_local"].startswith("CREATE OR REPLACE VIEW")
            else:
                assert statement.startswith(f"CREATE OR REPLACE VIEW {DB}.{name} ")
        else:
            assert engine == "MaterializedView", (name, engine)
    # nothing reads the single-node database any more
    assert not any("default." in s for s in statements)


def test_the_product_tables_are_sharded_by_table_and_the_small_ones_replicated(
    schema: list[SchemaObject],
) -> None:
    layout = plan(schema)
    assert {
        "raw_events", "rounds", "settlements", "findings", "chain_checkpoints"
    } <= layout.sharded  # fmt: skip
    assert {"schema_migrations", "signing_keys", "access_log"} <= layout.everywhere
    assert {"raw_events_v", "rounds_v", "settlements_v", "findings_v"} <= layout.distributed_views
    assert "access_log_v" in layout.views  # over a replicated table: a plain view


def test_the_versions_of_replacing_tables_are_kept(statements: list[str]) -> None:
    made = created(statements)
    for table, version in [("raw_events", "ingested_at"), ("rounds", "judged_at"),
                           ("settlements", "judged_at"), ("findings", "judged_at")]:  # fmt: skip
        assert (
            f"ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{{shard}}/{DB}/"
            f"{table}_local', '{{replica}}', {version})"
        ) in made[f"{table}_local"]
    assert (
        "ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/tablewatch/"
        "schema_migrations', '{shard}-{replica}', applied_at) ORDER BY version"
    ) in made["schema_migrations"]


def test_views_read_the_local_tables_on_each_shard(statements: list[str]) -> None:
    made = created(statements)
    findings = made["findings_v_local"]
    assert f"FROM {DB}.findings_local AS f FINAL" in findings
    assert f"FROM {DB}.rounds_local GROUP BY" in findings
    assert f"FROM {DB}.access_log FINAL" in made["access_log_v"]


def test_a_later_column_is_added_to_both_tables(schema: list[SchemaObject]) -> None:
    existing = {"rounds_local": ["table_id", "round_id"]}
    ddl = cluster_ddl(schema, CLUSTER, DB, existing)
    added = [s for s in ddl if s.startswith(f"ALTER TABLE {DB}.rounds")]
    assert (
        f"ALTER TABLE {DB}.rounds_local ON CLUSTER {CLUSTER} ADD COLUMN IF NOT EXISTS "
        "`judged_at` DateTime64(3, 'UTC')" in added
    )
    assert (
        f"ALTER TABLE {DB}.rounds ON CLUSTER {CLUSTER} ADD COLUMN IF NOT EXISTS "
        "`judged_at` DateTime64(3, 'UTC')" in added
    )
    assert not any("`table_id`" in s or "`round_id`" in s for s in added)


def test_names_and_engines_it_cannot_carry_are_refused(schema: list[SchemaObject]) -> None:
    with pytest.raises(ClusterSchemaError, match="letters, digits and _ only"):
        cluster_ddl(schema, "tw; DROP", DB)
    memory = SchemaObject("scratch", "Memory", "CREATE TABLE default.scratch (`a` UInt8) "
                          "ENGINE = Memory", (("a", "UInt8"),), (("a", "`a` UInt8"),))  # fmt: skip
    with pytest.raises(ClusterSchemaError, match="scratch: engine Memory"):
        cluster_ddl([*schema, memory], CLUSTER, DB)


def test_the_cli_needs_a_server_dsn() -> None:
    embedded = subprocess.run(
        [sys.executable, "-m", "tablewatch.cli", "db", "migrate", "--cluster", CLUSTER,
         "--dsn", "chdb:///.data/never-made"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert embedded.returncode == 2 and "needs a server's DSN" in embedded.stderr


def test_the_cli_prints_what_the_schema_gives(
    statements: list[str], schema: list[SchemaObject]
) -> None:
    assert statements == cluster_ddl(schema, CLUSTER, DB)


class ReplicatedSchemaMigrations:
    """A store whose schema_migrations is replicated (a cluster's), recording no version:
    what the embedded engine cannot hold (no Keeper), and all ``migrate`` asks of it."""

    def __init__(self) -> None:
        self.commands: list[str] = []

    def command(self, sql: str) -> None:
        self.commands.append(sql)

    def query(self, sql: str) -> Any:
        rows = [("ReplicatedReplacingMergeTree",)] if "system.tables" in sql else []
        return SimpleNamespace(result_rows=rows)


def test_single_node_migrations_refuse_a_clusters_schema(migrated: Client) -> None:
    assert on_cluster(migrated) is False  # a store made by migrate
    store = ReplicatedSchemaMigrations()
    with pytest.raises(ClusterMigrationNeeded, match="db migrate --cluster NAME"):
        migrate(cast(Client, store))
    assert store.commands == [SCHEMA_MIGRATIONS_DDL]  # nothing of any migration ran
