"""ClickHouse cluster mode: the single-node schema as ``ON CLUSTER`` DDL.

The cluster's schema is derived, never written by hand: :func:`single_node_schema`
applies every migration to a scratch embedded store (a temporary directory) and reads
back each table and view as the engine shows it (``system.tables``); :func:`cluster_ddl`
rewrites that into statements for a cluster, so a table added by a later migration gets
its cluster counterpart with nothing else to change. For a cluster named C and the
DSN's database D:

- a MergeTree table with a ``table_id`` column is **sharded by table**: ``D.T_local``
  on every node, ``Replicated<engine>`` with the same arguments (a ReplacingMergeTree
  keeps its version column), and ``D.T``, ``Distributed(C, D, T_local,
  cityHash64(table_id))`` over them: every row of one table (events, rounds, lines,
  findings, checkpoints, ...) lives on one shard, so each key's versions meet there
  (FINAL) and a round's rows join with each other locally;
- a MergeTree table with no ``table_id`` (``schema_migrations``, ``signing_keys``,
  ``access_log``, ...) is **replicated to every node** under its own name (one
  replication path for the whole cluster): small, read whole, joined on anything;
- a view that reads a sharded table (or such a view) becomes ``D.V_local`` on every
  node, reading the ``_local`` tables, and ``D.V``, ``Distributed(C, D, V_local)``:
  every query of the product names ``V`` and runs unchanged, each shard answering for
  its tables; a view over replicated tables only stays a view of its own name;
- a materialized view stays a trigger of its name on every node, reading and writing
  the local tables (a materialized view without a ``TO`` table is refused).

docs/cluster.md says why, and what the users' profile must set.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from clickhouse_connect.driver.client import Client

SHARDING_KEY = "cityHash64(table_id)"
LOCAL_SUFFIX = "_local"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_REFERENCE = re.compile(r"\bdefault\.(`?)([A-Za-z_][A-Za-z0-9_]*)\1")


class ClusterSchemaError(ValueError):
    """A schema object the cluster mode cannot carry over, or a bad name."""


@dataclass(frozen=True, slots=True)
class SchemaObject:
    """A table or view of the single-node schema, as ``system.tables`` shows it."""

    name: str
    engine: str  # ReplacingMergeTree, View, MaterializedView ...
    create: str  # create_table_query (names qualified with ``default.``)
    columns: tuple[tuple[str, str], ...]  # (name, type)
    column_ddl: tuple[tuple[str, str], ...]  # (name, its definition in an ADD COLUMN)

    @property
    def is_table(self) -> bool:
        return self.engine.endswith("MergeTree")

    @property
    def is_view(self) -> bool:
        return self.engine == "View"

    @property
    def is_materialized(self) -> bool:
        return self.engine == "MaterializedView"

    def references(self) -> list[str]:
        """The tables and views its statement names (other than itself)."""
        names = [m.group(2) for m in _REFERENCE.finditer(self.create)]
        return [n for n in dict.fromkeys(names) if n != self.name]


def single_node_schema() -> list[SchemaObject]:
    """Every table and view the migrations create, read from a scratch embedded store.

    Uses this process's embedded engine: no other embedded store may be open in it."""
    from tablewatch.store.client import open_store
    from tablewatch.store.migrate import migrate

    with (
        tempfile.TemporaryDirectory(prefix="tablewatch-schema-") as scratch,
        open_store(f"chdb:///{scratch}") as client,
    ):
        migrate(client)
        return read_schema(client)


def read_schema(client: Client) -> list[SchemaObject]:
    """The tables and views of the client's current database (inner tables left out)."""
    tables = client.query(
        "SELECT name, engine, create_table_query FROM system.tables "
        "WHERE database = currentDatabase() AND NOT startsWith(name, '.inner') ORDER BY name"
    ).result_rows
    columns = client.query(
        "SELECT table, name, type, default_kind, default_expression, compression_codec "
        "FROM system.columns WHERE database = currentDatabase() ORDER BY table, position"
    ).result_rows
    by_table: dict[str, list[tuple[str, str, str]]] = {}
    for table, name, type_, kind, expression, codec in columns:
        ddl = f"`{name}` {type_}"
        if kind:
            ddl += f" {kind} {expression}"
        if codec:
            ddl += f" {codec}"
        by_table.setdefault(str(table), []).append((str(name), str(type_), ddl))
    return [
        SchemaObject(
            name=str(name),
            engine=str(engine),
            create=str(create),
            columns=tuple((c, t) for c, t, _ in by_table.get(str(name), [])),
            column_ddl=tuple((c, d) for c, _, d in by_table.get(str(name), [])),
        )
        for name, engine, create in tables
    ]


def _check_name(what: str, name: str) -> str:
    if not _NAME.match(name):
        raise ClusterSchemaError(f"{what} {name!r}: letters, digits and _ only")
    return name


def _engine_span(create: str) -> tuple[int, int, str, str]:
    """Where ``ENGINE = X(args)`` is in ``create``: (start, end, X, args)."""
    match = re.search(r"\bENGINE = (\w+)", create)
    if match is None:
        raise ClusterSchemaError(f"no ENGINE in {create[:80]!r}")
    end, args = match.end(), ""
    if create[end : end + 1] == "(":
        depth, i = 0, end
        while True:
            depth += {"(": 1, ")": -1}.get(create[i], 0)
            if depth == 0:
                break
            i += 1
        args, end = create[end + 1 : i], i + 1
    return match.start(), end, match.group(1), args


@dataclass(frozen=True, slots=True)
class Plan:
    """What each object of the single-node schema becomes on the cluster."""

    sharded: frozenset[str]  # tables sharded by table_id: NAME_local + Distributed NAME
    everywhere: frozenset[str]  # tables replicated to every node, under their own name
    distributed_views: frozenset[str]  # views as NAME_local + Distributed NAME
    views: frozenset[str]  # views of their own name on every node
    materialized: frozenset[str]

    def local_name(self, name: str) -> str:
        """The name a statement on a node reads or writes for ``name``."""
        if name in self.sharded or name in self.distributed_views:
            return name + LOCAL_SUFFIX
        return name


def plan(schema: Sequence[SchemaObject]) -> Plan:
    by_name = {o.name: o for o in schema}
    sharded: set[str] = set()
    everywhere: set[str] = set()
    for o in schema:
        if o.is_table:
            (sharded if "table_id" in dict(o.columns) else everywhere).add(o.name)
        elif not (o.is_view or o.is_materialized):
            raise ClusterSchemaError(
                f"{o.name}: engine {o.engine} has no cluster counterpart (a MergeTree "
                "table, a view or a materialized view with a TO table)"
            )
    distributed: set[str] = set()
    views = [o for o in _in_dependency_order(schema) if o.is_view]
    for view in views:
        if any(r in sharded or r in distributed for r in view.references()):
            distributed.add(view.name)
    for o in schema:
        if o.is_materialized and " TO default." not in o.create.split(" AS SELECT ")[0]:
            raise ClusterSchemaError(f"materialized view {o.name}: give it a TO table")
        for ref in o.references():
            if ref not in by_name:
                raise ClusterSchemaError(f"{o.name} reads {ref}, which the schema lacks")
    return Plan(
        frozenset(sharded),
        frozenset(everywhere),
        frozenset(distributed),
        frozenset(v.name for v in views) - distributed,
        frozenset(o.name for o in schema if o.is_materialized),
    )


def _in_dependency_order(schema: Sequence[SchemaObject]) -> list[SchemaObject]:
    """Tables first, then each view after what it reads (materialized views last)."""
    by_name = {o.name: o for o in schema}
    done: dict[str, SchemaObject] = {}

    def visit(o: SchemaObject, path: tuple[str, ...]) -> None:
        if o.name in done:
            return
        if o.name in path:
            raise ClusterSchemaError(f"views read each other in a cycle: {path}")
        for ref in o.references():
            if ref in by_name:
                visit(by_name[ref], (*path, o.name))
        done[o.name] = o

    for o in sorted(schema, key=lambda o: (not o.is_table, o.is_materialized, o.name)):
        visit(o, ())
    return list(done.values())


def cluster_ddl(
    schema: Sequence[SchemaObject],
    cluster: str,
    database: str,
    existing: Mapping[str, Sequence[str]] | None = None,
) -> list[str]:
    """The statements that give ``database`` on ``cluster`` the single-node schema.

    Every statement is safe to repeat. ``existing``: the tables already on the cluster
    and their columns (``None``: none); a column the schema has and such a table lacks
    is added (``ADD COLUMN IF NOT EXISTS``, on the local and the Distributed table)."""
    c, db = _check_name("cluster", cluster), _check_name("database", database)
    layout = plan(schema)
    have = {name: set(cols) for name, cols in (existing or {}).items()}
    on = f"ON CLUSTER {c}"

    def refs(text: str) -> str:
        return _REFERENCE.sub(lambda m: f"{db}.{layout.local_name(m.group(2))}", text)

    out = [f"CREATE DATABASE IF NOT EXISTS {db} {on}"]
    ordered = _in_dependency_order(schema)
    for o in (o for o in ordered if o.is_table):
        local = layout.local_name(o.name)
        start, end, engine, args = _engine_span(o.create)
        if o.name in layout.sharded:
            path, replica = f"/clickhouse/tables/{{shard}}/{db}/{local}", "{replica}"
        else:
            path, replica = f"/clickhouse/tables/all/{db}/{local}", "{shard}-{replica}"
        replicated = f"ENGINE = Replicated{engine}('{path}', '{replica}'" + (
            f", {args})" if args else ")"
        )
        body = o.create[:start] + replicated + o.create[end:]
        header = f"CREATE TABLE default.{o.name} "
        if not body.startswith(header):
            raise ClusterSchemaError(f"{o.name}: unexpected statement {o.create[:60]!r}")
        out.append(f"CREATE TABLE IF NOT EXISTS {db}.{local} {on} " + body[len(header) :])
        if o.name in layout.sharded:
            out.append(
                f"CREATE TABLE IF NOT EXISTS {db}.{o.name} {on} AS {db}.{local} "
                f"ENGINE = Distributed({c}, {db}, {local}, {SHARDING_KEY})"
            )
        if local in have:
            for column, ddl in o.column_ddl:
                if column not in have[local]:
                    targets = [local] + ([o.name] if o.name in layout.sharded else [])
                    out.extend(
                        f"ALTER TABLE {db}.{t} {on} ADD COLUMN IF NOT EXISTS {ddl}" for t in targets
                    )
    for o in (o for o in ordered if o.is_view):
        header = f"CREATE VIEW default.{o.name} "
        if not o.create.startswith(header):
            raise ClusterSchemaError(f"{o.name}: unexpected statement {o.create[:60]!r}")
        local = layout.local_name(o.name)
        out.append(f"CREATE OR REPLACE VIEW {db}.{local} {on} " + refs(o.create[len(header) :]))
        if o.name in layout.distributed_views:
            columns = ", ".join(f"`{name}` {type_}" for name, type_ in o.columns)
            out.append(
                f"CREATE OR REPLACE TABLE {db}.{o.name} {on} ({columns}) "
                f"ENGINE = Distributed({c}, {db}, {local})"
            )
    for o in (o for o in ordered if o.is_materialized):
        header = f"CREATE MATERIALIZED VIEW default.{o.name} "
        if not o.create.startswith(header):
            raise ClusterSchemaError(f"{o.name}: unexpected statement {o.create[:60]!r}")
        out.append(
            f"CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.{o.name} {on} "
            + refs(o.create[len(header) :])
        )
    return out


def existing_tables(client: Client, database: str) -> dict[str, list[str]]:
    """The tables of ``database`` on the server ``client`` reaches, with their columns."""
    rows = client.query(
        "SELECT table, name FROM system.columns WHERE database = {db:String} "
        "ORDER BY table, position",
        parameters={"db": database},
    ).result_rows
    found: dict[str, list[str]] = {}
    for table, name in rows:
        found.setdefault(str(table), []).append(str(name))
    return found


def migrate_cluster(client: Client, cluster: str, database: str) -> list[str]:
    """Apply :func:`cluster_ddl` on the server, then record every migration as applied
    (so the worker's own ``migrate`` at start finds nothing to do); the statements run."""
    import time

    from tablewatch.store.migrate import available

    schema = single_node_schema()
    statements = cluster_ddl(schema, cluster, database, existing_tables(client, database))
    for statement in statements:
        client.command(statement)
    now = int(time.time() * 1000)
    client.insert(
        f"{database}.schema_migrations",
        [[m.version, m.name, now] for m in available()],
        column_names=["version", "name", "applied_at"],
    )
    return statements
