"""Alerts in ``tablewatch live``: a local mail sink, a local Alertmanager with the
configuration generated from the rules file (its mails sent to the sink), and the
alerter on the run's topics; each mail printed as it arrives.

The run gets an access file of its own (``RUN/access.yaml``): a floor manager, ``floor``,
whose token (``RUN/floor.token``) acknowledges, and Alertmanager, whose token
(``RUN/alertmanager.token``) it sends to the alerter's webhook. Tokens are files readable
by their owner only, never on a command line.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path

from tablewatch.access.access_file import AccessEntry, AccessFile, save
from tablewatch.access.roles import Role
from tablewatch.access.tokens import hash_token, new_token
from tablewatch.alerts.am_config import render
from tablewatch.alerts.local_alertmanager import LocalAlertmanager
from tablewatch.alerts.rules_file import load_rules
from tablewatch.alerts.sinks import Mail, MailSink
from tablewatch.kafka_access import KafkaAccess
from tablewatch.services import child_service, free_port


def mail_text(mail: Mail) -> str:
    return f"To: {', '.join(mail.to)}\nSubject: {mail.subject}\n\n{mail.body.rstrip()}\n"


def demo_access(
    run: Path,
    floor_manager: str = "floor",
    *,
    more: Sequence[tuple[str, Role]] = (),
    pits: Sequence[str] = (),
) -> Path:
    """``RUN/access.yaml`` with ``floor_manager`` (the role; the cases of ``pits`` are its),
    ``alertmanager`` and the holders of ``more``, their tokens in ``RUN/NAME.token``
    (0600); the access file's path."""
    now = datetime.now(UTC)
    entries = []
    holders = ((floor_manager, Role.FLOOR_MANAGER), ("alertmanager", Role.ALERTMANAGER), *more)
    for name, role in holders:
        token = new_token()
        path = run / f"{name}.token"
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="ascii") as out:
            out.write(token)
        held = tuple(pits) if role is Role.FLOOR_MANAGER else ()
        entries.append(AccessEntry(name, role, hash_token(token), now, pits=held))
    access = run / "access.yaml"
    save(access, AccessFile(tuple(entries)))
    return access


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
    new_session: bool = False,
    access: Path | None = None,
) -> str:
    """Start the three in ``stack`` (stopped when it closes); the alerter's URL.
    ``access``: the run's access file (:func:`demo_access`), made here when not given.
    ``new_session``: Alertmanager and the alerter each in a session of their own (a
    terminal's Ctrl-C reaches only this process, which stops them)."""
    rules = load_rules(rules_path)
    access = access or demo_access(run)
    sink = stack.enter_context(MailSink(free_port(), on_mail))
    local = dataclasses.replace(rules.smtp, smarthost=f"127.0.0.1:{sink.port}", require_tls=False)
    alerter_url = f"http://127.0.0.1:{port}"
    am = LocalAlertmanager(free_port(), run / "alertmanager", new_session=new_session)
    stack.enter_context(am)
    token_file = str((run / "alertmanager.token").resolve())
    am.start(render(dataclasses.replace(rules, smtp=local), alerter_url, token_file))
    args = [
        "alerter", "--rules", str(rules_path), "--config", str(config),
        "--alertmanager", am.url, "--dsn", f"chdb:///{(run / 'alerter').resolve()}",
        *kafka.child_args(), "--topics-prefix", prefix, "--port", str(port),
        "--access-file", str(access),
    ]  # fmt: skip
    if auditor_url:
        args += ["--auditor-url", auditor_url]
    stack.enter_context(
        child_service(
            args, f"{alerter_url}/health", run / "alerter.log", env=env, new_session=new_session
        )
    )
    print(
        f"acknowledge an alert as the floor manager: TABLEWATCH_ALERTS_TOKEN=$(cat "
        f"{run / 'floor.token'}) tablewatch alerts ack ALERT_ID --alerter {alerter_url}",
        flush=True,
    )
    return alerter_url
