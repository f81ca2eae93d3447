"""A rig for the alert tests: a real Alertmanager on a free port with the configuration
``tablewatch alerts config`` generates, a real mail sink (aiosmtpd) and webhook sink,
the alerter as a real process on topics of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from tablewatch.alerts.demo import demo_access
from tablewatch.alerts.local_alertmanager import LocalAlertmanager, check_config
from tablewatch.alerts.sinks import MailSink, WebhookSink
from tablewatch.kafka_access import KafkaAccess
from tablewatch.rules.findings import Finding
from tablewatch.services import child_service, create_topics, free_port
from tablewatch.topics import Topics

T = TypeVar("T")

PM, SM, OTHER = "pm@casino.test", "sm@casino.test", "other@casino.test"


def rules_yaml(
    smtp_port: int,
    hook_url: str,
    *,
    escalation: str = "1h",
    group_interval: str = "2s",
    silence: str = "off",
) -> str:
    return f"""
auditor_url: http://auditor.test
smtp: {{smarthost: "127.0.0.1:{smtp_port}", from: tablewatch@casino.test, require_tls: false}}
timing: {{group_wait: 1s, group_interval: {group_interval}, repeat_interval: 1h, resend: 2s,
          expire: 1h}}
contacts:
  pm: {{email: {PM}, webhook: "{hook_url}"}}
  sm: {{email: {SM}}}
  other: {{email: {OTHER}}}
shifts:
  all: {{start: "00:00", end: "00:00"}}
pits:
  Pit 1:
    tables: ["LIR-*", "FCP-*"]
    on_call: {{all: [pm, sm]}}
fallback: [other]
escalation: [{escalation}]
silence: {{default: {silence}}}
rules:
  - name: everything serious
    min_severity: high
"""


def finding(
    table_id: str,
    check: str,
    *,
    round_id: str = "R1",
    expected: int | None = 2500,
    actual: int | None = 7500,
    seat: int | None = 3,
) -> dict[str, Any]:
    """A findings message as the worker produces it, with evidence of its own."""
    f = Finding(
        table_id=table_id,
        round_id=round_id,
        check=check,
        regulation="§ 643a.12(a)",
        message=f"{check} in a test",
        seat=seat,
        bet="main" if seat else None,
        expected=expected,
        actual=actual,
        event_ids=(uuid.uuid4().hex,),
        ts="2026-12-01T10:00:00.000Z",
    )
    return f.as_dict() | {"start_event_id": uuid.uuid4().hex}


def wait_for(what: str, probe: Callable[[], T | None], timeout: float = 30) -> T:
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:g} s: {what}")
        time.sleep(0.1)


@dataclass
class AlertRig:
    bootstrap: str
    root: Path
    mail: MailSink
    hook: WebhookSink
    prefix: str = field(default_factory=lambda: f"a{uuid.uuid4().hex[:10]}-")
    port: int = field(default_factory=free_port)
    am: LocalAlertmanager | None = None

    @property
    def topics(self) -> Topics:
        return Topics.prefixed(self.prefix)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def write_rules(self, text: str) -> Path:
        path = self.root / "alerts.yaml"
        path.write_text(text)
        return path

    def access_file(self) -> Path:
        """The alerter's access file: dana (floor_manager) and alertmanager, their tokens
        in ``ROOT/dana.token`` and ``ROOT/alertmanager.token``."""
        path = self.root / "access.yaml"
        if not path.exists():
            demo_access(self.root, "dana")
        return path

    def start_alertmanager(self, rules: Path) -> LocalAlertmanager:
        config = self.root / "alertmanager.yml"
        self.access_file()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "tablewatch.cli",
                "alerts",
                "config",
                "--rules",
                str(rules),
                "--out",
                str(config),
                "--alerter",
                self.url,
                "--alerter-token-file",
                str((self.root / "alertmanager.token").resolve()),
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
        check_config(config)
        self.am = LocalAlertmanager(free_port(), self.root / "am")
        self.am.start(config.read_text())
        return self.am

    @contextmanager
    def alerter(self, rules: Path, log: str = "alerter.log") -> Iterator[subprocess.Popen[bytes]]:
        assert self.am is not None
        args = [
            "alerter",
            "--rules",
            str(rules),
            "--alertmanager",
            self.am.url,
            "--dsn",
            f"chdb:///{self.root / 'trail'}",
            "--bootstrap",
            self.bootstrap,
            "--topics-prefix",
            self.prefix,
            "--port",
            str(self.port),
            "--group",
            f"{self.prefix}alerter",
            "--log-level",
            "INFO",
            "--access-file",
            str(self.access_file()),
        ]
        with child_service(args, f"{self.url}/health", self.root / log) as process:
            yield process

    def produce(self, topic: str, messages: list[dict[str, Any]]) -> None:
        from kafka import KafkaProducer

        producer = KafkaProducer(bootstrap_servers=[self.bootstrap], acks="all")
        for m in messages:
            producer.send(topic, key=str(m["table_id"]).encode(), value=json.dumps(m).encode())
        producer.flush()
        producer.close()

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=10) as response:
            return json.loads(response.read())

    def post(self, path: str, body: dict[str, Any]) -> Any:
        request = urllib.request.Request(
            self.url + path,
            data=json.dumps(body).encode(),
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def cli(self, *args: str) -> str:
        """``tablewatch ARGS --alerter URL`` with dana's token; its standard output."""
        token = (self.root / "dana.token").read_text()
        done = subprocess.run(
            [sys.executable, "-m", "tablewatch.cli", *args, "--alerter", self.url],
            capture_output=True,
            text=True,
            timeout=60,
            env=os.environ | {"TABLEWATCH_ALERTS_TOKEN": token},
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def trail(self, alert_id: str) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self.get(f"/api/v1/alerts/{alert_id}")["trail"]
        return result

    def alerts(self) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self.get("/api/v1/alerts")
        return result

    def mailed_ids(self, address: str) -> list[str]:
        return [i for m in self.mail.to(address) for i in m.alert_ids()]


@contextmanager
def alert_rig(bootstrap: str, root: Path) -> Iterator[AlertRig]:
    with MailSink(free_port()) as mail, WebhookSink(free_port()) as hook:
        rig = AlertRig(bootstrap, root, mail, hook)
        create_topics(KafkaAccess(bootstrap), rig.prefix)
        try:
            yield rig
        finally:
            if rig.am is not None:
                rig.am.stop()
