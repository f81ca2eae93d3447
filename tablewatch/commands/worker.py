"""``tablewatch worker``: the Faust stream processor of the live pipeline."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from tablewatch.access.access_file import ENV_VAR as ACCESS_FILE_ENV
from tablewatch.access.access_file import AccessError
from tablewatch.commands.options import (
    dsn_option,
    kafka_access_options,
    kafka_wait_option,
    rules_or_exit,
    topics_prefix_option,
    wait_for_kafka_or_exit,
)
from tablewatch.integrity.keys import ENV_VAR as CHECKPOINT_KEY_ENV
from tablewatch.integrity.keys import KeyFileError
from tablewatch.integrity.manifest import ManifestFileError
from tablewatch.kafka_access import KafkaAccess
from tablewatch.processors.settings import WorkerSettings
from tablewatch.rules.config import ConfigError
from tablewatch.store.query_limits import QueryLimits
from tablewatch.topics import CHECKPOINTS, PARTITIONS, Topics


@click.command()
@click.option(
    "--config",
    "config_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Table configuration YAML.",
)
@kafka_access_options
@kafka_wait_option
@dsn_option
@click.option("--web-port", default=6066, show_default=True, help="Health, metrics, queries.")
@click.option(
    "--web-host",
    envvar="TABLEWATCH_WEB_HOST",
    show_envvar=True,
    default="127.0.0.1",
    show_default=True,
    help="Address the web views are served on; any but a loopback one needs --access-file.",
)
@click.option(
    "--access-file",
    envvar=ACCESS_FILE_ENV,
    show_envvar=True,
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Tokens and roles of /query and /metrics (tablewatch access add); without one, "
    "access control is off and only 127.0.0.1 is served.",
)
@click.option(
    "--rules",
    "rules_path",
    envvar="TABLEWATCH_ALERT_RULES",
    show_envvar=True,
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The alert rules YAML: its casework.dispositions is the list a case is closed with "
    "(POST /cases/...; the default list without it).",
)
@click.option(
    "--silence-minutes",
    default=15.0,
    show_default=True,
    help="A round with no event for this long is judged incomplete.",
)
@click.option(
    "--flush-ms", default=250, show_default=True, help="Sink batches at least this often."
)
@click.option(
    "--data-dir",
    envvar="TABLEWATCH_WORKER_DIR",
    show_envvar=True,
    default=".data/worker",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Faust's local state.",
)
@click.option(
    "--app-id",
    default="tablewatch-worker",
    show_default=True,
    help="Kafka consumer group and Faust app id.",
)
@topics_prefix_option
@click.option(
    "--partitions",
    envvar="TABLEWATCH_PARTITIONS",
    show_envvar=True,
    default=PARTITIONS,
    show_default=True,
    type=click.IntRange(min=1),
    help="Partitions of the events topic; the tables' saved state (its changelog topic) "
    "gets as many.",
)
@click.option(
    "--session-timeout",
    default=30.0,
    show_default=True,
    help="Seconds before a dead worker's partitions are reassigned.",
)
@click.option(
    "--loop",
    "event_loop",
    type=click.Choice(["uvloop", "asyncio"]),
    default="uvloop",
    show_default=True,
    help="Event loop (uvloop: faster; asyncio: the standard library's).",
)
@click.option(
    "--query-seconds",
    default=10.0,
    show_default=True,
    type=click.FloatRange(min=0.1),
    help="A /query statement running longer is cancelled by the engine.",
)
@click.option(
    "--query-threads",
    default=2,
    show_default=True,
    type=click.IntRange(min=1, max=16),
    help="/query statements at once; another caller is answered 503 meanwhile.",
)
@click.option(
    "--checkpoint-key",
    envvar=CHECKPOINT_KEY_ENV,
    show_envvar=True,
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Ed25519 key file (tablewatch keys generate) signing the chains' checkpoints; "
    "without one the chains are written, no checkpoint is signed.",
)
@click.option(
    "--checkpoint-events",
    default=1_000,
    show_default=True,
    type=click.IntRange(min=1),
    help="A signed checkpoint of a table's chain every this many of its events.",
)
@click.option(
    "--checkpoint-minutes",
    default=5.0,
    show_default=True,
    type=click.FloatRange(min=0.01),
    help="...and of its events not yet covered, this long after its last checkpoint.",
)
@click.option(
    "--manifest-file",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="With --checkpoint-key: also append every checkpoint and the signed floor manifest of "
    "each checkpoint round to this file (keep it on write-once storage; verify --manifests "
    "reads it). The same records always go to the chain-checkpoints topic.",
)
@click.option(
    "--rollup-seconds",
    default=2.0,
    show_default=True,
    type=click.FloatRange(min=0.1),
    help="The dashboards' rollups are brought up to date this often, on the store thread "
    "(never inside an insert of events).",
)
@click.option(
    "--patterns/--no-patterns",
    default=False,
    show_default=True,
    help="Compute the patterns across rounds (advantage play, a dealer's errors, hold, the "
    "progressive meter) in a child process reading the events topic again; their findings "
    "are stored and sent like the others. One worker per events topic runs it.",
)
@click.option(
    "--patterns-horizon",
    "patterns_horizon_s",
    default=60.0,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Seconds: a round is read by the patterns once the topic is read this far past its "
    "end (rounds arriving later than this are read out of order, and counted).",
)
@click.option(
    "--log-level",
    envvar="TABLEWATCH_LOG_LEVEL",
    show_envvar=True,
    type=click.Choice(["DEBUG", "INFO", "WARN", "ERROR"], case_sensitive=False),
    default="WARN",
    show_default=True,
    help="INFO adds rebalances, table restores and Faust's recovery.",
)
def worker(
    config_path: Path,
    app_id: str,
    topics_prefix: str,
    partitions: int,
    session_timeout: float,
    kafka: KafkaAccess,
    kafka_wait: float,
    dsn: str,
    web_port: int,
    web_host: str,
    access_file: Path | None,
    rules_path: Path | None,
    silence_minutes: float,
    flush_ms: int,
    data_dir: Path,
    event_loop: str,
    query_seconds: float,
    query_threads: int,
    checkpoint_key: Path | None,
    checkpoint_events: int,
    checkpoint_minutes: float,
    manifest_file: Path | None,
    rollup_seconds: float,
    patterns: bool,
    patterns_horizon_s: float,
    log_level: str,
) -> None:
    """Consume table-events, judge every round, write ClickHouse, rounds and findings."""
    from tablewatch.processors.app import Worker

    settings = WorkerSettings(
        config_path=config_path,
        kafka=kafka,
        dsn=dsn,
        web_port=web_port,
        web_host=web_host,
        access_file=access_file,
        silence_minutes=silence_minutes,
        flush_every_ms=flush_ms,
        rollup_seconds=rollup_seconds,
        data_dir=data_dir,
        app_id=app_id,
        session_timeout_s=session_timeout,
        topics=Topics.prefixed(topics_prefix),
        partitions=partitions,
        event_loop=event_loop,
        log_level=log_level.upper(),
        query_limits=QueryLimits(seconds=query_seconds),
        query_threads=query_threads,
        checkpoint_key=checkpoint_key,
        checkpoint_events=checkpoint_events,
        checkpoint_minutes=checkpoint_minutes,
        checkpoints_topic=f"{topics_prefix}{CHECKPOINTS}",
        manifest_file=manifest_file,
        dispositions=_dispositions(rules_path),
        patterns=patterns,
        patterns_horizon_s=patterns_horizon_s,
    )
    if manifest_file is not None and checkpoint_key is None:
        click.echo("tablewatch worker: --manifest-file needs --checkpoint-key", err=True)
        sys.exit(2)
    try:
        app = Worker(settings)
    except (ConfigError, KeyFileError, AccessError, ManifestFileError) as exc:
        click.echo(f"tablewatch worker: {exc}", err=True)
        sys.exit(2)
    wait_for_kafka_or_exit(kafka, kafka_wait)
    sys.argv = [sys.argv[0], "worker"]  # faust's own command line: just "worker"
    app.run()


def _dispositions(rules_path: Path | None) -> tuple[str, ...]:
    """The dispositions of the alert rules at ``rules_path`` (the default list: None)."""
    from tablewatch.casework.dispositions import DEFAULT_DISPOSITIONS

    rules = rules_or_exit("worker", rules_path)
    return DEFAULT_DISPOSITIONS if rules is None else rules.dispositions
