"""``tablewatch verify``: recompute the tables' hash chains and check their signed checkpoints.

Exit 0: every chain and checkpoint intact; 1: something is broken (each
problem printed, the first broken link of each table named in its summary
line); 2: the input cannot be used (store or topic unreadable, no chain in
the store, a bad option). See "Tamper evidence" in ``docs/store.md``.
"""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from tablewatch.commands.options import dsn_option, kafka_security_options
from tablewatch.store.dsn import DsnError

if TYPE_CHECKING:
    from collections.abc import Callable

    from clickhouse_connect.driver.client import Client

    from tablewatch.integrity.verify import TableReport
    from tablewatch.kafka_access import KafkaAccess

EXIT_BROKEN = 1
EXIT_UNUSABLE = 2


class Unusable(Exception):
    """Input verify cannot use (exit 2)."""


def parse_since(text: str) -> int:
    """Epoch milliseconds of an ISO 8601 date or time (UTC unless it says otherwise)."""
    try:
        moment = datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        raise Unusable(f"--since {text!r} is not an ISO 8601 date or time") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


@click.command()
@dsn_option
@click.option(
    "--kafka",
    "bootstrap",
    default=None,
    metavar="BOOTSTRAP",
    help="Recompute the chains from this broker's events topic instead of the stored events, "
    "and compare them with the store's chain and checkpoints (through TLS or SASL with the "
    "--kafka-* options).",
)
@click.option("--topic", default="table-events", show_default=True, help="With --kafka.")
@click.option(
    "--config",
    "config_path",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="With --kafka: the tables' configuration (a table without one ignores no duplicate); "
    "without it every table is taken as configured.",
)
@click.option("--tables", default=None, help="Only these tables (comma-separated ids).")
@click.option(
    "--since",
    default=None,
    metavar="TS",
    help="Only the events from this time on (ISO 8601, UTC), and the checkpoints after them.",
)
@click.option(
    "--public-key",
    "public_key",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Trust only the keys of this file (lines of FILE.pub from tablewatch keys generate), "
    "not the keys published in the store.",
)
@kafka_security_options
def verify(
    dsn: str,
    bootstrap: str | None,
    topic: str,
    config_path: Path | None,
    tables: str | None,
    since: str | None,
    public_key: Path | None,
    kafka_access_for: Callable[..., KafkaAccess],
) -> None:
    """Recompute the tables' hash chains and check their signed checkpoints.

    Exit 0: intact; 1: something is broken; 2: input it cannot use. An embedded store is
    opened by one process at a time: stop the worker first, or use a ClickHouse server.
    """
    from tablewatch.kafka_access import KafkaAccessError

    try:
        try:
            kafka = None if bootstrap is None else kafka_access_for(bootstrap=bootstrap)
        except KafkaAccessError as exc:
            raise Unusable(str(exc)) from None
        broken = _verify(dsn, kafka, topic, config_path, tables, since, public_key)
    except Unusable as exc:
        click.echo(f"tablewatch verify: {exc}", err=True)
        sys.exit(EXIT_UNUSABLE)
    sys.exit(EXIT_BROKEN if broken else 0)


def _verify(
    dsn: str,
    kafka: KafkaAccess | None,
    topic: str,
    config_path: Path | None,
    tables: str | None,
    since: str | None,
    public_key: Path | None,
) -> bool:
    from clickhouse_connect.driver.exceptions import ClickHouseError

    from tablewatch.integrity.keys import KeyFileError, load_public_keys
    from tablewatch.store.client import StoreError, connect

    since_ms = parse_since(since) if since else None
    wanted = [t.strip() for t in tables.split(",") if t.strip()] if tables else None
    configured: frozenset[str] | None = None
    if config_path is not None:
        from tablewatch.config_file import load_config
        from tablewatch.rules.config import ConfigError

        try:
            configured = frozenset(load_config(config_path))
        except (ConfigError, OSError) as exc:
            raise Unusable(str(exc)) from exc
    try:
        pinned = load_public_keys(public_key) if public_key else None
    except KeyFileError as exc:
        raise Unusable(str(exc)) from exc
    try:
        client = connect(dsn)
    except (StoreError, DsnError) as exc:
        raise Unusable(str(exc)) from exc
    try:
        return _run(client, kafka, topic, configured, wanted, since_ms, pinned)
    except ClickHouseError as exc:
        raise Unusable(f"reading the store failed: {exc}") from exc
    finally:
        client.close()


def _run(
    client: Client,
    kafka: KafkaAccess | None,
    topic: str,
    configured: frozenset[str] | None,
    wanted: list[str] | None,
    since_ms: int | None,
    pinned: dict[str, bytes] | None,
) -> bool:
    from tablewatch.integrity import store_source as store

    if not store.has_chain(client):
        raise Unusable("the store has no chain: its migrations stop before 0006 (db migrate)")
    published, untrusted = store.published_keys(client)
    keys = pinned if pinned is not None else published
    every = store.store_tables(client)
    names = wanted if wanted is not None else every
    unknown = sorted(set(names) - set(every))
    if unknown:
        raise Unusable(f"no events or checkpoints stored for {', '.join(unknown)}")
    broken = False
    for kid in untrusted:
        broken = True
        click.echo(f"signing_keys: the row of key {kid} does not hold the key of that id")
    if kafka is None:
        reports = _from_store(client, names, keys, since_ms)
    else:
        reports = _from_kafka(client, kafka, topic, configured, names, keys, since_ms)
    intact = 0
    for report in reports:
        for line in report.lines():
            click.echo(line)
        broken = broken or report.broken
        intact += not report.broken
    click.echo(
        f"verify: {len(names)} table{'s' if len(names) != 1 else ''}, {intact} intact, "
        f"{len(names) - intact} broken ({'the topic ' + topic if kafka else 'the store'})"
    )
    return broken


def _from_store(
    client: Client, names: list[str], keys: dict[str, bytes], since_ms: int | None
) -> list[TableReport]:
    from tablewatch.integrity import store_source as store
    from tablewatch.integrity.verify import TableReport, verify_table

    began = store.chain_began_ms(client)
    now_ms = int(time.time() * 1000)
    reports = []
    for table_id in names:
        start = store.start_position(client, table_id, since_ms)
        if start == 0:  # nothing since then
            reports.append(TableReport(table_id))
            continue
        reports.append(
            verify_table(
                table_id,
                store.stored_events(client, table_id, start),
                store.stored_checkpoints(client, table_id, start),
                keys,
                outside=store.outside_rows(client, table_id, began),
                now_ms=now_ms,
                partial=since_ms is not None,
            )
        )
    return reports


def _from_kafka(
    client: Client,
    kafka: KafkaAccess,
    topic: str,
    configured: frozenset[str] | None,
    names: list[str],
    keys: dict[str, bytes],
    since_ms: int | None,
) -> list[TableReport]:
    from tablewatch.integrity import store_source as store
    from tablewatch.integrity.kafka_source import Anchor, TopicUnusable, messages, recompute
    from tablewatch.integrity.verify import Problem, verify_recomputed

    stored = {t: store.stored_hashes(client, t) for t in names}
    anchors: dict[str, Anchor] = {}
    for table_id in names:
        first = next(store.stored_events(client, table_id, 1), None)
        if first is not None:
            anchors[table_id] = Anchor(
                first.kafka_partition, first.kafka_offset, first.chain_pos, first.chain_prev
            )
    try:
        chains, truncated = recompute(
            messages(kafka, topic), anchors, configured=configured, tables=frozenset(names)
        )
    except TopicUnusable as exc:
        raise Unusable(str(exc)) from exc
    reports = []
    for table_id in names:
        links = chains.get(table_id, [])
        report = verify_recomputed(
            table_id,
            links,
            stored[table_id],
            store.stored_checkpoints(client, table_id),
            keys,
            since_ms=since_ms,
        )
        anchor = anchors.get(table_id)
        if anchor is not None and (not links or links[0].position != anchor.position):
            gone = truncated.get(anchor.partition)
            why = f" (the topic starts at offset {gone})" if gone is not None else ""
            report.problems.append(
                Problem(
                    anchor.position,
                    f"the topic does not hold the chain's first stored event (partition "
                    f"{anchor.partition} offset {anchor.offset}){why}",
                )
            )
        reports.append(report)
    return reports
