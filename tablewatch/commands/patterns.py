"""``tablewatch patterns``: the patterns companion run alone, against a ClickHouse server
(:mod:`tablewatch.patterns.companion_loop`; design in ``docs/patterns.md``)."""

from __future__ import annotations

import logging
import signal
import sys
import threading
from pathlib import Path

import click

from tablewatch.commands.options import (
    kafka_access_options,
    kafka_wait_option,
    topics_prefix_option,
    wait_for_kafka_or_exit,
)
from tablewatch.kafka_access import KafkaAccess


@click.command()
@click.option(
    "--config",
    "config_path",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Table configuration YAML (each table's patterns settings).",
)
@click.option(
    "--dsn",
    envvar="TABLEWATCH_DSN",
    show_envvar=True,
    required=True,
    help="The ClickHouse server the workers write (http://...). An embedded store is its "
    "worker's alone: run that worker with --patterns instead.",
)
@kafka_access_options
@kafka_wait_option
@topics_prefix_option
@click.option(
    "--horizon",
    "horizon_s",
    default=60.0,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Seconds: a round is read once the topic is read this far past its end.",
)
@click.option(
    "--log-level",
    default="WARNING",
    show_default=True,
    type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"], case_sensitive=False),
)
def patterns(
    config_path: Path,
    dsn: str,
    kafka: KafkaAccess,
    kafka_wait: float,
    topics_prefix: str,
    horizon_s: float,
    log_level: str,
) -> None:
    """Find the patterns across rounds (advantage play, a dealer's errors, hold, meter)."""
    from kafka import KafkaProducer

    from tablewatch.patterns.companion_loop import CompanionSettings, run_companion
    from tablewatch.patterns.companion_store import StoreSink, load_checkpoint
    from tablewatch.store.client import StoreError, connect
    from tablewatch.store.dsn import EmbeddedDsn, parse_dsn
    from tablewatch.store.migrate import migrate
    from tablewatch.topics import Topics

    logging.basicConfig(
        level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    if isinstance(parse_dsn(dsn), EmbeddedDsn):
        click.echo(
            f"tablewatch patterns: --dsn {dsn}: an embedded store is its worker's alone; "
            "run that worker with --patterns",
            err=True,
        )
        sys.exit(2)
    try:
        client = connect(dsn)
        migrate(client)
    except StoreError as exc:
        click.echo(f"tablewatch patterns: --dsn: {exc}", err=True)
        sys.exit(2)
    wait_for_kafka_or_exit(kafka, kafka_wait)
    topics = Topics.prefixed(topics_prefix)
    settings = CompanionSettings(
        config_path, kafka, topics.events, horizon_ms=int(horizon_s * 1000)
    )
    producer = KafkaProducer(**kafka.kafka_python(), acks="all")

    def send(messages: list[tuple[bytes, bytes]]) -> None:
        for key, value in messages:
            producer.send(topics.findings, value=value, key=key)
        producer.flush()

    saved = load_checkpoint(client, topics.events)
    sink = StoreSink(client, topics.events, saved.revision if saved else 0, send)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    try:
        run_companion(settings, sink, saved.state if saved else None, stop.is_set)
    except KeyboardInterrupt:
        pass
    finally:
        producer.close()
