"""``tablewatch alerter``: findings to Alertmanager, with acknowledgement, escalation and
the audit trail (:mod:`tablewatch.alerts`; design in ``docs/alerts.md``)."""

from __future__ import annotations

import logging
from pathlib import Path

import click

from tablewatch.commands.options import (
    fail,
    kafka_access_options,
    kafka_wait_option,
    topics_prefix_option,
    wait_for_kafka_or_exit,
)
from tablewatch.kafka_access import KafkaAccess

ALERTMANAGER_ENV = "TABLEWATCH_ALERTMANAGER"
ALERTS_DSN_ENV = "TABLEWATCH_ALERTS_DSN"
DEFAULT_ALERTMANAGER = "http://127.0.0.1:9095"
DEFAULT_ALERTS_DSN = "chdb:///.data/alerter"


@click.command()
@click.option(
    "--rules",
    "rules_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The alert rules YAML (contacts, shifts, pits, escalation, rules).",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Table configuration YAML: each table's game and pit (else: the rules' pits).",
)
@click.option(
    "--alertmanager",
    envvar=ALERTMANAGER_ENV,
    show_envvar=True,
    default=DEFAULT_ALERTMANAGER,
    show_default=True,
    help="Alertmanager's URL (API v2).",
)
@click.option(
    "--dsn",
    envvar=ALERTS_DSN_ENV,
    show_envvar=True,
    default=DEFAULT_ALERTS_DSN,
    show_default=True,
    help="The trail's store: an embedded folder of the alerter's own (the worker holds "
    "its folder), or the ClickHouse server everything shares.",
)
@click.option(
    "--auditor-url",
    envvar="TABLEWATCH_AUDITOR_URL",
    show_envvar=True,
    help="The auditor pages' base URL for the round links (else the rules file's).",
)
@kafka_access_options
@kafka_wait_option
@topics_prefix_option
@click.option("--group", default="tablewatch-alerter", show_default=True,
              help="The findings consumer group.")  # fmt: skip
@click.option("--host", default="127.0.0.1", show_default=True, help="The HTTP API's address.")
@click.option("--port", default=8095, show_default=True, help="The HTTP API's port.")
@click.option(
    "--access-file",
    envvar="TABLEWATCH_ACCESS_FILE",
    show_envvar=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The access file (tablewatch access add): who may acknowledge (roles floor_manager, "
    "admin) and Alertmanager's token for the webhook (role alertmanager). Without it nothing "
    "can be acknowledged or recorded as notified, and the API serves on loopback only.",
)
@click.option(
    "--silence-lookback",
    default=60.0,
    show_default=True,
    type=click.FloatRange(min=1),
    help="Minutes of table-events read at start to know which tables are open.",
)
@click.option(
    "--log-level",
    default="WARNING",
    show_default=True,
    type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"], case_sensitive=False),
)
def alerter(
    rules_path: Path,
    config_path: Path | None,
    alertmanager: str,
    dsn: str,
    auditor_url: str | None,
    kafka: KafkaAccess,
    kafka_wait: float,
    topics_prefix: str,
    group: str,
    host: str,
    port: int,
    access_file: Path | None,
    silence_lookback: float,
    log_level: str,
) -> None:
    """Turn findings into Alertmanager alerts by rules; acknowledge, escalate, audit."""
    from tablewatch.alerts.alerter import Alerter, TableInfo
    from tablewatch.alerts.alertmanager import AlertmanagerClient
    from tablewatch.alerts.rules_file import RulesError, load_rules
    from tablewatch.alerts.service import Settings, run
    from tablewatch.alerts.trail import Trail
    from tablewatch.store.client import StoreError, connect
    from tablewatch.store.migrate import migrate
    from tablewatch.topics import Topics

    logging.basicConfig(
        level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        rules = load_rules(rules_path)
    except RulesError as exc:
        fail(f"{rules_path} refused:\n{exc}")
    from tablewatch.access import AccessError, FileTokenAuthenticator, binding_refusal

    refusal = binding_refusal(host, access_file is not None)
    if refusal is not None:
        fail(refusal)
    if access_file is not None:
        try:
            FileTokenAuthenticator(access_file)  # refused now, not at the first request
        except AccessError as exc:
            fail(str(exc))
    else:
        logging.getLogger("tablewatch.alerts").warning(
            "no --access-file: acknowledgements and Alertmanager's notifications are refused"
        )
    if auditor_url:
        import dataclasses

        rules = dataclasses.replace(rules, auditor_url=auditor_url.rstrip("/"))
    tables: dict[str, TableInfo] = {}
    if config_path is not None:
        from tablewatch.config_file import load_config
        from tablewatch.rules.config import ConfigError

        try:
            tables = {t: TableInfo(c.game, c.pit) for t, c in load_config(config_path).items()}
        except ConfigError as exc:
            fail(str(exc))
    wait_for_kafka_or_exit(kafka, kafka_wait)
    try:
        client = connect(dsn)
        migrate(client)
    except StoreError as exc:
        fail(str(exc))
    am = AlertmanagerClient(alertmanager)
    settings = Settings(
        kafka=kafka, topics=Topics.prefixed(topics_prefix), group=group, host=host, port=port,
        silence_lookback_s=silence_lookback * 60, access_file=access_file,
    )  # fmt: skip
    try:
        run(Alerter(rules, am, Trail(client), tables=tables), settings)
    finally:
        client.close()
