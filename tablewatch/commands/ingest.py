"""``tablewatch ingest FILE...`` and ``tablewatch serve-ingest``: events into Kafka.

Both go through the same step as HTTP bodies (:class:`tablewatch.ingest.service.Ingestor`):
validate with the rules engine's decoder, drop repeated event_ids, produce the
accepted events to the events topic (``table-events``: key ``table_id``, value the raw
JSON) and the rejected ones to the dead-letter topic (``table-events-dlq``), and wait
for Kafka's confirmation. Both first wait for Kafka to be reachable (``--kafka-wait``).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from tablewatch.commands.options import (
    kafka_access_options,
    kafka_wait_option,
    topics_prefix_option,
    wait_for_kafka_or_exit,
)
from tablewatch.ingest.batch import MAX_BODY_BYTES, MAX_EVENTS, WINDOW_IDS, Item, Limits, SeenWindow
from tablewatch.ingest.files import line_blocks
from tablewatch.ingest.limits import (
    BODY_TIMEOUT_S,
    HEADER_TIMEOUT_S,
    MAX_CONNECTIONS,
    MAX_WAITING,
    WAIT_TIMEOUT_S,
    ServerLimits,
)
from tablewatch.ingest.service import DeliveryFailed, Ingestor
from tablewatch.ingest.signing import SignatureCheck
from tablewatch.kafka_access import KafkaAccess
from tablewatch.rules.decode import OverlongLine
from tablewatch.topics import Topics

if TYPE_CHECKING:
    from tablewatch.ingest.kafka_producer import KafkaSink

EXIT_OK, EXIT_NOT_STORED, EXIT_BAD_INPUT = 0, 1, 2
_JSON_WHITESPACE = b" \t\r\n"
F = TypeVar("F", bound=Callable[..., Any])


def _kafka_options(command: F) -> F:
    """Kafka (servers, security, the wait at start) and the two topics ingest writes."""
    for option in reversed(
        [
            kafka_access_options,
            kafka_wait_option,
            topics_prefix_option,
            click.option(
                "--events-topic",
                envvar="TABLEWATCH_EVENTS_TOPIC",
                show_envvar=True,
                default="",
                help="Accepted events' topic  [default: PREFIXtable-events]",
            ),
            click.option(
                "--dlq-topic",
                envvar="TABLEWATCH_DLQ_TOPIC",
                show_envvar=True,
                default="",
                help="Dead-letter topic  [default: PREFIXtable-events-dlq]",
            ),
        ]
    ):
        command = option(command)
    return command


def _topics(prefix: str, events_topic: str, dlq_topic: str) -> Topics:
    topics = Topics.prefixed(prefix)
    return Topics(events_topic or topics.events, dlq_topic or topics.dead_letters)


def _wait_for_kafka(sink: KafkaSink, wait_s: float) -> None:
    """Until the sink's producer is made (Kafka reachable), else exit 2 with one line."""
    try:
        wait_for_kafka_or_exit(sink.settings.access, wait_s, sink.connect)
    except SystemExit:
        sink.close()
        raise


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--batch",
    "batch_size",
    default=500,
    show_default=True,
    type=click.IntRange(1, MAX_EVENTS),
    help="Lines per Kafka round trip.",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Table configuration: the tables whose events must be signed and the variables "
    "of their keys (needed when a table signs; without it, no signature is checked).",
)
@_kafka_options
def ingest(
    files: tuple[Path, ...],
    batch_size: int,
    config_path: Path | None,
    kafka: KafkaAccess,
    kafka_wait: float,
    topics_prefix: str,
    events_topic: str,
    dlq_topic: str,
) -> None:
    """Validate JSON Lines FILES and produce their events to Kafka.

    With --config, events of a table that requires signing are accepted only with a
    signature that verifies with one of its keys (docs/ingest.md, "Signed events").
    Rejected lines go to the dead-letter topic and are reported on stderr
    (file:line, event_id, field, reason). Exit 0: every line stored or a
    duplicate; 1: Kafka did not confirm (nothing after that batch was sent);
    2: rejected lines, an unreadable file, or Kafka not reachable at start.
    """
    signatures = _signatures(config_path, "tablewatch ingest")
    from tablewatch.ingest.kafka_producer import KafkaSettings, KafkaSink  # kafka: 0.1 s import

    sink = KafkaSink(KafkaSettings(kafka, _topics(topics_prefix, events_topic, dlq_topic)))
    settings = sink.settings
    ingestor = Ingestor(sink, limits=Limits(max_events=batch_size), signatures=signatures)
    rejected = 0
    code = EXIT_OK
    waited = False
    try:
        for items in _batches(files, batch_size):
            if not waited:  # before the first batch: nothing is read from Kafka before
                _wait_for_kafka(sink, kafka_wait)
                waited = True
            batch = ingestor.ingest_items(items, "tablewatch ingest")
            for outcome in batch.rejected:
                rejected += 1
                click.echo(f"rejected: {outcome.rejection}", err=True)
    except OSError as exc:
        click.echo(f"tablewatch ingest: {exc.filename}: {exc.strerror}", err=True)
        code = EXIT_BAD_INPUT
    except DeliveryFailed as failed:
        for outcome in failed.batch.rejected:  # their dead letters may be lost with the batch
            rejected += 1
            click.echo(f"rejected: {outcome.rejection}", err=True)
        click.echo(f"tablewatch ingest: not stored: {failed.reason}", err=True)
        code = EXIT_NOT_STORED
    finally:
        sink.close()
    counts = ingestor.counters
    click.echo(
        f"{counts.accepted:,} accepted, {counts.duplicates:,} duplicates, {rejected:,} rejected"
        f" -> {settings.topics.events} (dead letters: {settings.topics.dead_letters})"
        f" at {settings.bootstrap}"
    )
    if code == EXIT_OK and rejected:
        code = EXIT_BAD_INPUT
    sys.exit(code)


def _batches(files: tuple[Path, ...], size: int) -> Iterator[list[Item]]:
    """Non-blank lines of every file as items named ``file:line``, ``size`` at a time.

    Files are read in blocks (:func:`~tablewatch.ingest.files.line_blocks`): a line
    over :data:`~tablewatch.ingest.files.MAX_LINE_BYTES` is not kept, only its size,
    and is rejected as larger than an event may be.
    """
    items: list[Item] = []
    for path in files:
        for first, lines in line_blocks(path):
            for number, line in enumerate(lines, first):
                if isinstance(line, OverlongLine):
                    items.append(Item(f"{path}:{number}", b"", line.size))
                else:
                    raw = line.strip(_JSON_WHITESPACE)
                    if not raw:
                        continue
                    items.append(Item(f"{path}:{number}", raw))
                if len(items) >= size:
                    yield items
                    items = []
    if items:
        yield items


@click.command("serve-ingest")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8077, show_default=True, type=click.IntRange(0, 65535))
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Table configuration: the tables whose events must be signed and the variables "
    "of their keys (needed when a table signs; without it, no signature is checked).",
)
@_kafka_options
@click.option(
    "--window",
    default=WINDOW_IDS,
    show_default=True,
    type=click.IntRange(1),
    help="Accepted event_ids remembered to answer re-sent events 'duplicate'.",
)
@click.option(
    "--max-body-bytes",
    default=MAX_BODY_BYTES,
    show_default=True,
    type=click.IntRange(1),
    help="Bytes per POST body, as sent and once decompressed (gzip, deflate).",
)
@click.option(
    "--max-events",
    default=MAX_EVENTS,
    show_default=True,
    type=click.IntRange(1),
    help="Events per POST.",
)
@click.option(
    "--max-connections",
    default=MAX_CONNECTIONS,
    show_default=True,
    type=click.IntRange(1),
    help="Connections open at once; one more is answered 503 and closed.",
)
@click.option(
    "--header-timeout",
    default=HEADER_TIMEOUT_S,
    show_default=True,
    type=click.FloatRange(0, min_open=True),
    help="Seconds a connection may stay idle or take to send a request's headers.",
)
@click.option(
    "--body-timeout",
    default=BODY_TIMEOUT_S,
    show_default=True,
    type=click.FloatRange(0, min_open=True),
    help="Seconds to receive a body; then 408 and the connection is closed.",
)
@click.option(
    "--max-waiting",
    default=MAX_WAITING,
    show_default=True,
    type=click.IntRange(1),
    help="Batches waiting for their turn; one more is answered 503 (Retry-After).",
)
@click.option(
    "--wait-timeout",
    default=WAIT_TIMEOUT_S,
    show_default=True,
    type=click.FloatRange(0, min_open=True),
    help="Seconds a batch may wait for its turn; then 503 (Retry-After).",
)
def serve_ingest(
    host: str,
    port: int,
    config_path: Path | None,
    kafka: KafkaAccess,
    kafka_wait: float,
    topics_prefix: str,
    events_topic: str,
    dlq_topic: str,
    window: int,
    max_body_bytes: int,
    max_events: int,
    max_connections: int,
    header_timeout: float,
    body_timeout: float,
    max_waiting: int,
    wait_timeout: float,
) -> None:
    """Serve POST /events (a JSON array of events), GET /health and GET /metrics.

    Kafka must be reachable at start within --kafka-wait seconds, else exit 2.
    """
    signatures = _signatures(config_path, "tablewatch serve-ingest")
    from tablewatch.ingest.http_server import serve
    from tablewatch.ingest.kafka_producer import KafkaSettings, KafkaSink

    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("kafka").setLevel(logging.WARNING)  # its INFO is a line per connection
    sink = KafkaSink(KafkaSettings(kafka, _topics(topics_prefix, events_topic, dlq_topic)))
    settings = sink.settings
    _wait_for_kafka(sink, kafka_wait)
    ingestor = Ingestor(
        sink,
        limits=Limits(max_body_bytes=max_body_bytes, max_events=max_events),
        window=SeenWindow(window),
        signatures=signatures,
    )
    limits = ServerLimits(
        max_connections=max_connections,
        header_timeout_s=header_timeout,
        body_timeout_s=body_timeout,
        max_waiting=max_waiting,
        wait_timeout_s=wait_timeout,
    )
    security = "" if kafka.security_protocol == "PLAINTEXT" else f" ({kafka.describe()})"
    click.echo(
        f"tablewatch ingest: http://{host}:{port}/events -> {settings.topics.events}"
        f" (dead letters: {settings.topics.dead_letters}) at {settings.bootstrap}{security}",
        err=True,
    )
    serve(ingestor, host, port, limits)


def _signatures(config_path: Path | None, command: str) -> SignatureCheck | None:
    """``--config``'s signature rule (None without it); imported only with it."""
    if config_path is None:
        return None
    from tablewatch.commands.signatures import signature_check_or_exit

    return signature_check_or_exit(config_path, command)
