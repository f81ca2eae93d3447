"""``tablewatch verify``: recompute the tables' hash chains and check their signed checkpoints.

Exit 0: every chain and checkpoint intact, proven with a trusted key
(``--public-key``) against the record kept outside the store (``--manifests``,
``--manifests-kafka``); 1: something is broken (each problem printed, the first
broken link of each table named in its summary line); 2: the input cannot be used
(store, topic or record unreadable, no chain in the store, a bad option); 3:
nothing broken was found, but without a trusted key or the external record
nothing is proven: UNVERIFIED, never "intact". See "Tamper evidence" in
``docs/store.md`` and the threat model in ``docs/security.md``.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from tablewatch.commands.options import dsn_option, kafka_security_options
from tablewatch.store.dsn import DsnError
from tablewatch.terminal_text import printable
from tablewatch.topics import CHECKPOINTS as MANIFEST_TOPIC

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from clickhouse_connect.driver.client import Client

    from tablewatch.integrity.manifest import External
    from tablewatch.integrity.verify import ExternalAnchor, TableReport
    from tablewatch.kafka_access import KafkaAccess

EXIT_BROKEN = 1
EXIT_UNUSABLE = 2
EXIT_UNVERIFIED = 3
# how long after the worker's checkpoint interval an event may still be unsigned: the
# worker looks every 10 s, and a batch takes its time to be written
TAIL_MARGIN_MINUTES = 1.0


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
@click.option(
    "--manifests",
    "manifest_files",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The record kept outside the store: a file the worker appends its checkpoints and "
    "signed floor manifests to (its --manifest-file); may be given more than once.",
)
@click.option(
    "--manifests-kafka",
    "manifests_bootstrap",
    default=None,
    metavar="BOOTSTRAP",
    help="The same record from this broker's checkpoints topic (through the --kafka-* options).",
)
@click.option(
    "--manifests-topic",
    default=MANIFEST_TOPIC,
    show_default=True,
    help="With --manifests-kafka.",
)
@click.option(
    "--checkpoint-minutes",
    default=5.0,
    show_default=True,
    type=click.FloatRange(min=0, min_open=True),
    help="The worker's checkpoint interval: with a trusted key, events stored longer ago "
    f"than this and {TAIL_MARGIN_MINUTES:g} minute that no checkpoint covers are a problem.",
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
    manifest_files: tuple[Path, ...],
    manifests_bootstrap: str | None,
    manifests_topic: str,
    checkpoint_minutes: float,
    kafka_access_for: Callable[..., KafkaAccess],
) -> None:
    """Recompute the tables' hash chains and check their signed checkpoints, against the
    record kept outside the store.

    Exit 0: intact (proven with --public-key against --manifests or --manifests-kafka);
    1: something is broken; 2: input it cannot use; 3: nothing broken found but UNVERIFIED
    (no trusted key, or no external record). An embedded store is opened by one process
    at a time: stop the worker first, or use a ClickHouse server.
    """
    from tablewatch.kafka_access import KafkaAccessError

    try:
        try:
            kafka = None if bootstrap is None else kafka_access_for(bootstrap=bootstrap)
            record = None if manifests_bootstrap is None else (
                kafka_access_for(bootstrap=manifests_bootstrap), manifests_topic
            )  # fmt: skip
        except KafkaAccessError as exc:
            raise Unusable(str(exc)) from None
        external = ExternalSources(manifest_files, record)
        verdict = _verify(
            dsn, kafka, topic, config_path, tables, since, public_key, external,
            int(checkpoint_minutes * 60_000 + TAIL_MARGIN_MINUTES * 60_000),
        )  # fmt: skip
    except Unusable as exc:
        click.echo(f"tablewatch verify: {exc}", err=True)
        sys.exit(EXIT_UNUSABLE)
    sys.exit(verdict)


@dataclass(frozen=True, slots=True)
class ExternalSources:
    """Where the record kept outside the store is read: files, and a topic of a broker."""

    files: tuple[Path, ...] = ()
    kafka: tuple[KafkaAccess, str] | None = None

    def given(self) -> bool:
        return bool(self.files) or self.kafka is not None


def _verify(
    dsn: str,
    kafka: KafkaAccess | None,
    topic: str,
    config_path: Path | None,
    tables: str | None,
    since: str | None,
    public_key: Path | None,
    sources: ExternalSources,
    tail_limit_ms: int,
) -> int:
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
        return _run(
            client, kafka, topic, configured, wanted, since_ms, pinned, sources, tail_limit_ms
        )
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
    sources: ExternalSources,
    tail_limit_ms: int,
) -> int:
    from tablewatch.integrity import store_source as store

    if not store.has_chain(client):
        raise Unusable("the store has no chain: its migrations stop before 0006 (db migrate)")
    published, untrusted = store.published_keys(client)
    keys = pinned if pinned is not None else published
    external = _external(sources, keys)
    every = store.store_tables(client)
    known = set(every) | external.tables()
    names = wanted if wanted is not None else sorted(known)
    unknown = sorted(set(names) - known)
    if unknown:
        raise Unusable(f"no events or checkpoints stored for {', '.join(unknown)}")
    why_unverified = []
    if pinned is None:
        why_unverified.append("no trusted key (--public-key): the store's own keys prove nothing")
    if not sources.given():
        why_unverified.append(
            "no record kept outside the store (--manifests, --manifests-kafka): tables, "
            "checkpoints and events deleted together cannot be seen"
        )
    broken = False
    for kid in untrusted:
        broken = True
        click.echo(
            printable(f"signing_keys: the row of key {kid} does not hold the key of that id")
        )
    for problem in external.problems:
        broken = True
        click.echo(printable(f"external record: {problem}"))
    limit = tail_limit_ms if pinned is not None else None
    if kafka is None:
        reports = _from_store(client, names, keys, since_ms, external, limit)
    else:
        reports = _from_kafka(client, kafka, topic, configured, names, keys, since_ms, external)
    intact = 0
    for report in reports:
        report.verified = not why_unverified
        for line in report.lines():
            click.echo(printable(line))  # ids and event ids are the store's text
        broken = broken or report.broken
        intact += not report.broken
    where = "the topic " + topic if kafka else "the store"
    if sources.given():
        where += f", against {external.records:,} record{'s' if external.records != 1 else ''} kept outside it"  # noqa: E501
    ok_word = "intact" if not why_unverified else "consistent"
    click.echo(
        f"verify: {len(names)} table{'s' if len(names) != 1 else ''}, {intact} {ok_word}, "
        f"{len(names) - intact} broken ({where})"
    )
    if broken:
        return EXIT_BROKEN
    if why_unverified:
        click.echo(f"verify: UNVERIFIED: {'; '.join(why_unverified)}")
        return EXIT_UNVERIFIED
    return 0


def _external(sources: ExternalSources, keys: dict[str, bytes]) -> External:
    """The record kept outside the store, read and checked against ``keys``."""
    from itertools import chain

    from tablewatch.integrity.kafka_source import TopicUnusable, messages
    from tablewatch.integrity.manifest import External, file_lines, read_external

    def from_topic() -> Iterator[tuple[str, bytes]]:
        if sources.kafka is None:
            return
        access, topic = sources.kafka
        try:
            for partition, offset, value in messages(access, topic):
                yield f"topic {topic} partition {partition} offset {offset}", value
        except TopicUnusable as exc:
            raise Unusable(str(exc)) from exc

    if not sources.given():
        return External()
    for path in sources.files:
        if not path.is_file():
            raise Unusable(f"--manifests {path}: not a file")
    try:
        return read_external(chain(*(file_lines(p) for p in sources.files), from_topic()), keys)
    except OSError as exc:
        raise Unusable(f"cannot read the record kept outside the store: {exc}") from exc


def external_anchors(external: External, table_id: str) -> list[ExternalAnchor]:
    """The positions of the table's chain that the manifests outside the store sign."""
    from tablewatch.integrity.verify import ExternalAnchor
    from tablewatch.rules.events import ms_to_ts

    return [
        ExternalAnchor(entry[2], entry[3], f"{where}, manifest {manifest.number} of "
                       f"{manifest.writer} signed {ms_to_ts(manifest.signed_at_ms)}")
        for where, manifest, entry in external.entries.get(table_id, [])
        if entry[2] > 0
    ]  # fmt: skip


def _from_store(
    client: Client,
    names: list[str],
    keys: dict[str, bytes],
    since_ms: int | None,
    external: External,
    tail_limit_ms: int | None,
) -> list[TableReport]:
    from tablewatch.integrity import store_source as store
    from tablewatch.integrity.verify import TableReport, verify_table

    began = store.chain_began_ms(client)
    now_ms = int(time.time() * 1000)
    reports = []
    for table_id in names:
        anchors = external_anchors(external, table_id)
        outside_checkpoints = external.checkpoints.get(table_id, [])
        start = store.start_position(client, table_id, since_ms)
        if start == 0 and since_ms is not None:  # nothing since then
            reports.append(TableReport(table_id))
            continue
        reports.append(
            verify_table(
                table_id,
                store.stored_events(client, table_id, max(start, 1)),
                store.stored_checkpoints(client, table_id, max(start, 1)),
                keys,
                outside=store.outside_rows(client, table_id, began),
                now_ms=now_ms,
                partial=since_ms is not None,
                anchors=anchors,
                external=outside_checkpoints,
                tail_limit_ms=tail_limit_ms,
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
    external: External,
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
            anchors=external_anchors(external, table_id),
            external=external.checkpoints.get(table_id, []),
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
