"""Alerts in ``tablewatch live``: a local mail sink, a local Alertmanager with the
configuration generated from the rules file (its mails sent to the sink), and the
alerter on the run's topics; each mail printed as it arrives."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

from tablewatch.alerts.am_config import render
from tablewatch.alerts.local_alertmanager import LocalAlertmanager
from tablewatch.alerts.rules_file import load_rules
from tablewatch.alerts.sinks import Mail, MailSink
from tablewatch.kafka_access import KafkaAccess
from tablewatch.services import child_service, free_port


def mail_text(mail: Mail) -> str:
    return f"To: {', '.join(mail.to)}\nSubject: {mail.subject}\n\n{mail.body.rstrip()}\n"


def start_alerting(
    stack: ExitStack,
    *,
    rules_path: Path,
    run: Path,
    config: Path,
    kafka: KafkaAccess,
    prefix: str,
    port: int,
    on_mail: Callable[[Mail], None],
    env: dict[str, str] | None = None,
    auditor_url: str | None = None,
) -> str:
    """Start the three in ``stack`` (stopped when it closes); the alerter's URL."""
    rules = load_rules(rules_path)
    sink = stack.enter_context(MailSink(free_port(), on_mail))
    local = dataclasses.replace(rules.smtp, smarthost=f"127.0.0.1:{sink.port}", require_tls=False)
    alerter_url = f"http://127.0.0.1:{port}"
    am = LocalAlertmanager(free_port(), run / "alertmanager")
    stack.enter_context(am)
    am.start(render(dataclasses.replace(rules, smtp=local), alerter_url))
    args = [
        "alerter", "--rules", str(rules_path), "--config", str(config),
        "--alertmanager", am.url, "--dsn", f"chdb:///{(run / 'alerter').resolve()}",
        *kafka.child_args(), "--topics-prefix", prefix, "--port", str(port),
    ]  # fmt: skip
    if auditor_url:
        args += ["--auditor-url", auditor_url]
    stack.enter_context(child_service(args, f"{alerter_url}/health", run / "alerter.log", env=env))
    return alerter_url
