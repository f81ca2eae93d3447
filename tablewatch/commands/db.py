"""``tablewatch db``: the ClickHouse store (schema migrations, summary, read-only queries).

clickhouse-connect (~0.2 s to import) is imported only when a ``db`` command runs, so that
registering this group costs the other ``tablewatch`` commands nothing.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any, TypeVar

import click
from rich.console import Console
from rich.table import Table

from tablewatch.commands.options import dsn_option
from tablewatch.report import money
from tablewatch.store.dsn import DsnError, parse_dsn, redact
from tablewatch.store.query_limits import DEFAULT_SECONDS, QueryLimits

if TYPE_CHECKING:
    from clickhouse_connect.driver.client import Client

    from tablewatch.store.records import Summary

EXIT_ERROR = 2

F = TypeVar("F", bound=Callable[..., Any])


def format_option(func: F) -> F:
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(["table", "json"]),
        default="table",
        show_default=True,
    )(func)


@click.group()
def db() -> None:
    """The ClickHouse store of events, judged rounds and findings."""


@contextmanager
def _store(dsn: str, command: str) -> Iterator[Client]:
    from clickhouse_connect.driver.exceptions import ClickHouseError

    from tablewatch.store.client import StoreError, connect

    err = Console(stderr=True, highlight=False)
    try:
        client = connect(dsn)
    except (StoreError, DsnError) as exc:
        err.print(f"tablewatch db {command}: {exc}", markup=False, soft_wrap=True)
        sys.exit(EXIT_ERROR)
    try:
        yield client
    except ClickHouseError as exc:
        err.print(f"tablewatch db {command}: {exc}", markup=False, soft_wrap=True)
        sys.exit(EXIT_ERROR)
    finally:
        client.close()


def _where(dsn: str) -> str:
    try:
        target = parse_dsn(dsn)
    except DsnError:
        return redact(dsn)
    directory = getattr(target, "directory", None)
    return f"{redact(dsn)} ({directory})" if directory else redact(dsn)


@db.command()
@dsn_option
@click.option(
    "--cluster",
    default=None,
    metavar="NAME",
    help="A ClickHouse cluster (remote_servers): every table ON CLUSTER, replicated, "
    "sharded by table_id behind Distributed tables of the same names (docs/cluster.md).",
)
@click.option(
    "--print",
    "print_only",
    is_flag=True,
    help="With --cluster: print the statements, one per line, and apply nothing.",
)
def migrate(dsn: str, cluster: str | None, print_only: bool) -> None:
    """Create or upgrade the schema and fill the theoretical edges; prints what it did."""
    from tablewatch.store import theoretical
    from tablewatch.store.migrate import ClusterMigrationNeeded
    from tablewatch.store.migrate import migrate as run_migrations
    from tablewatch.store.rollups import refresh_rollups as refresh

    if cluster is not None:
        _migrate_cluster(dsn, cluster, print_only)
        return
    if print_only:
        Console(stderr=True).print("tablewatch db migrate: --print goes with --cluster")
        sys.exit(EXIT_ERROR)
    with _store(dsn, "migrate") as client:
        try:
            applied = run_migrations(client)
        except ClusterMigrationNeeded as exc:
            Console(stderr=True).print(f"tablewatch db migrate: {exc}", markup=False)
            sys.exit(EXIT_ERROR)
        figures = theoretical.fill(client)
        refresh(client)  # what a writer left since the last refresh, rolled up
    for label in applied:
        click.echo(f"applied {label}")
    if figures:
        click.echo(
            f"theoretical: {figures} house edge(s) and standard deviation(s) written", err=True
        )
    click.echo(
        f"{_where(dsn)}: {len(applied)} migration(s) applied"
        if applied
        else f"{_where(dsn)}: up to date"
    )


def _migrate_cluster(dsn: str, cluster: str, print_only: bool) -> None:
    from urllib.parse import urlsplit

    from tablewatch.store import cluster as cluster_mode
    from tablewatch.store import theoretical
    from tablewatch.store.dsn import ServerDsn

    err = Console(stderr=True, highlight=False)
    try:
        target = parse_dsn(dsn)
    except DsnError as exc:
        err.print(f"tablewatch db migrate: {exc}", markup=False, soft_wrap=True)
        sys.exit(EXIT_ERROR)
    if not isinstance(target, ServerDsn):
        err.print(
            "tablewatch db migrate: --cluster needs a server's DSN "
            "(http(s)://user:password@host:8123/database)",
            markup=False,
        )
        sys.exit(EXIT_ERROR)
    database = urlsplit(target.url).path.strip("/") or "default"
    try:
        if print_only:
            for statement in cluster_mode.cluster_ddl(
                cluster_mode.single_node_schema(), cluster, database
            ):
                click.echo(statement + ";")
            return
        with _store(dsn, "migrate") as client:
            statements = cluster_mode.migrate_cluster(client, cluster, database)
            figures = theoretical.fill(client)
    except cluster_mode.ClusterSchemaError as exc:
        err.print(f"tablewatch db migrate: {exc}", markup=False, soft_wrap=True)
        sys.exit(EXIT_ERROR)
    click.echo(
        f"{_where(dsn)}: cluster {cluster}: {len(statements)} statements applied, "
        f"every migration recorded; theoretical: {figures} figure(s) written"
    )


@db.command("refresh-rollups")
@dsn_option
def refresh_rollups(dsn: str) -> None:
    """Bring the dashboards' rollups up to date with the facts stored since their last
    refresh (a running worker does it every --rollup-seconds; a store written otherwise
    needs this)."""
    from tablewatch.store.rollups import refresh_rollups as refresh

    with _store(dsn, "refresh-rollups") as client:
        done = refresh(client)
    click.echo(
        f"{_where(dsn)}: {len(done.rollups)} rollup(s) refreshed up to "
        f"{_instant(done.watermark_ms)} in {done.seconds:.3f} s"
    )


def _instant(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")


@db.command()
@dsn_option
@format_option
@click.option("--top", type=click.IntRange(min=1), default=10, show_default=True)
def summary(dsn: str, fmt: str, top: int) -> None:
    """Rounds judged, events stored, findings by check code and the tables with most findings."""
    from tablewatch.store import queries

    with _store(dsn, "summary") as client:
        if not client.command("EXISTS TABLE findings_v"):
            Console(stderr=True).print(
                f"tablewatch db summary: {_where(dsn)} has no schema: run `tablewatch db migrate`",
                markup=False,
            )
            sys.exit(EXIT_ERROR)
        result = queries.summary(client, top=top)
    if fmt == "json":
        click.echo(json.dumps(result.as_dict()))
    else:
        _print_summary(Console(highlight=False), result)


def _print_summary(console: Console, s: Summary) -> None:
    console.print(
        f"{s.events:,} events stored, {s.rounds:,} rounds judged ({s.voided:,} voided, "
        f"{s.incomplete:,} incomplete), wagered {money(s.wagered)}, paid {money(s.paid)}, "
        f"{s.findings:,} findings",
        markup=False,
    )
    checks = Table(title="Findings by check")
    checks.add_column("check")
    checks.add_column("severity")
    checks.add_column("findings", justify="right")
    for c in s.by_check:
        checks.add_row(c.check, c.severity, f"{c.findings:,}")
    checks.add_row("total", "", f"{s.findings:,}")
    console.print(checks)
    if s.top_tables:
        tables = Table(title="Tables with most findings")
        tables.add_column("table")
        tables.add_column("findings", justify="right")
        tables.add_column("rounds", justify="right")
        for t in s.top_tables:
            tables.add_row(t.table_id, f"{t.findings:,}", f"{t.rounds:,}")
        console.print(tables)


@db.command()
@click.argument("sql")
@dsn_option
@format_option
@click.option(
    "--seconds",
    type=click.FloatRange(min=0.1),
    default=DEFAULT_SECONDS,
    show_default=True,
    help="The engine cancels the statement after this long.",
)
def query(sql: str, dsn: str, fmt: str, seconds: float) -> None:
    """Run one read-only statement (SELECT, WITH, DESCRIBE, SHOW TABLES) and print its rows.

    Read the *_v views (raw_events_v, rounds_v, settlements_v, findings_v):
    they are duplicate-free, the tables are not. Only the product's tables and
    views can be read, with no table functions, within limits of time, rows
    and memory (docs/store.md, "Reading the store").
    """
    from tablewatch.store.client import StoreError
    from tablewatch.store.read_only import QueryFailed, QueryRefused, open_reader

    err = Console(stderr=True, highlight=False)
    try:
        reader = open_reader(dsn, QueryLimits(seconds=seconds))
    except (StoreError, DsnError) as exc:
        err.print(f"tablewatch db query: {exc}", markup=False, soft_wrap=True)
        sys.exit(EXIT_ERROR)
    try:
        answer = reader.run(sql)
    except QueryRefused as refused:
        err.print(f"tablewatch db query: refused: {refused.reason}", markup=False, soft_wrap=True)
        sys.exit(EXIT_ERROR)
    except QueryFailed as failed:
        err.print(f"tablewatch db query: {failed.reason}", markup=False, soft_wrap=True)
        sys.exit(EXIT_ERROR)
    finally:
        reader.close()
    names: Sequence[str] = answer.columns
    rows: Sequence[Sequence[Any]] = answer.rows
    if fmt == "json":
        for row in rows:
            click.echo(json.dumps(dict(zip(names, row, strict=True)), default=_json_value))
        return
    table = Table(*names)
    for row in rows:
        table.add_row(*("NULL" if v is None else str(v) for v in row))
    console = Console(highlight=False)
    console.print(table)
    console.print(f"{len(rows):,} row(s)", markup=False)


def _json_value(value: object) -> object:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, tuple | set | frozenset):
        return list(value)
    return str(value)
