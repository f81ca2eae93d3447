"""Alert latency: a finding stored -> its alert mail received, through the whole chain.

    python benchmarks/bench_alerts.py [--rate 1000] [--seconds 120] [--error-rate 0.05]
                                      [--load-cores 1] [--poll-ms 50] [--json]

A simulated floor of 12 tables is produced to Kafka at a steady ``--rate`` events/s
(``--error-rate`` of its rounds carry a dealer or controller error); a worker judges it
and stores the findings (embedded ClickHouse); the alerter (``tablewatch alerter``)
turns the findings of severity high and above into alerts and posts them to a real
Alertmanager, started with the configuration ``tablewatch alerts config`` generates
(group_wait 1s and group_interval 3s, the defaults); Alertmanager mails them to a local
SMTP sink (aiosmtpd). For each finding: the time it was first seen stored (the worker's
``findings`` table polled through its /query endpoint, one statement every ``--poll-ms``
from start to start, for the findings judged in the last 30 s: up to one poll period is
in the figure, and the periods measured are in the output) to the time the first mail
naming its alert arrived. ``--load-cores`` processes each spin one core meanwhile (a
site's other services; 0: a quiet machine).

Findings never mailed are counted: a warning at a table with a critical alert firing is
inhibited by design. The alerter runs without an access file, so its webhook refuses
every notification (503, retried by Alertmanager): the case of a failing trail webhook,
which the generated configuration keeps off the mail's groups. Kafka must be running
(``deploy/kafka.sh start``).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
import uuid
from itertools import pairwise
from pathlib import Path
from typing import Any

import yaml
from latency_probe import cpu_load, quantiles

from tablewatch.alerts.local_alertmanager import LocalAlertmanager
from tablewatch.alerts.model import stable_id
from tablewatch.alerts.sinks import MailSink
from tablewatch.kafka_access import DEFAULT_BOOTSTRAP, KafkaAccess
from tablewatch.rules.decode import encode_event
from tablewatch.services import (
    child_service,
    create_topics,
    free_port,
    get_json,
    worker_args,
    worker_query,
)
from tablewatch.sim.floor import Floor
from tablewatch.sim.games import choose
from tablewatch.topics import Topics, table_key

# the first two games: the floors of the published figures
FIRST_TWO = choose("let_it_ride,four_card_poker")

RULES = """
auditor_url: http://127.0.0.1:8000
smtp: {{smarthost: "127.0.0.1:{smtp}", from: tablewatch@bench.test, require_tls: false}}
timing: {{repeat_interval: 4h, expire: 1h}}
contacts:
  floor: {{email: floor@bench.test}}
  shift: {{email: shift@bench.test}}
shifts: {{all: {{start: "00:00", end: "00:00"}}}}
pits:
  Pit 1: {{tables: ["LIR-*"], on_call: {{all: [floor, shift]}}}}
  Pit 2: {{tables: ["FCP-*"], on_call: {{all: [floor, shift]}}}}
fallback: [shift]
escalation: [30m]
silence: {{default: off}}
rules:
  - name: serious
    min_severity: high
"""


def run(
    root: Path,
    kafka: KafkaAccess,
    rate: float,
    seconds: float,
    error_rate: float,
    *,
    load_cores: int = 1,
    poll_ms: float = 50.0,
) -> dict[str, Any]:
    from kafka import KafkaProducer

    rounds = max(1, int(rate * seconds * 1.2) // 52)
    floor = Floor(12, rounds, 11, error_rate, 0.02, FIRST_TWO)
    stream = [(e.table_id, encode_event(e)) for e in floor.events()]
    prefix = f"balerts{uuid.uuid4().hex[:8]}-"
    create_topics(kafka, prefix)
    config = root / "tables.yaml"
    config.write_text(yaml.safe_dump(floor.config, sort_keys=False))
    worker_port, alerter_port = free_port(), free_port()
    seen: dict[str, float] = {}  # finding_id -> first seen stored (time.time)
    severe: set[str] = set()
    where: dict[str, tuple[str, str]] = {}  # finding_id -> (table_id, severity)
    answers: list[float] = []  # when each poll was answered (time.time)
    with MailSink(free_port()) as mail:
        rules = root / "alerts.yaml"
        rules.write_text(RULES.format(smtp=mail.port))
        import subprocess
        import sys

        am_config = root / "alertmanager.yml"
        subprocess.run(
            [sys.executable, "-m", "tablewatch.cli", "alerts", "config", "--rules", str(rules),
             "--out", str(am_config), "--alerter", f"http://127.0.0.1:{alerter_port}"],
            check=True, capture_output=True,
        )  # fmt: skip
        am = LocalAlertmanager(free_port(), root / "am").start(am_config.read_text())
        args = worker_args(
            config, kafka=kafka, dsn=f"chdb:///{root / 'chdb'}", web_port=worker_port,
            prefix=prefix, data_dir=root / "worker",
        )  # fmt: skip
        alerter = [
            "alerter", "--rules", str(rules), "--config", str(config), "--alertmanager", am.url,
            "--dsn", f"chdb:///{root / 'trail'}", *kafka.child_args(), "--topics-prefix", prefix,
            "--port", str(alerter_port),
        ]  # fmt: skip
        try:
            with (
                child_service(args, f"http://127.0.0.1:{worker_port}/health", root / "w.log"),
                child_service(alerter, f"http://127.0.0.1:{alerter_port}/health", root / "a.log"),
                cpu_load(load_cores),
            ):
                stop = threading.Event()

                def poll() -> None:
                    while not stop.is_set():
                        began = time.monotonic()
                        rows = worker_query(
                            worker_port,
                            "SELECT finding_id, severity, table_id FROM findings "
                            "WHERE judged_at > now64(3) - INTERVAL 30 SECOND",
                        )
                        now = time.time()
                        answers.append(now)
                        for finding_id, severity, table_id in rows:
                            seen.setdefault(str(finding_id), now)
                            where[str(finding_id)] = (str(table_id), str(severity))
                            if severity in ("high", "critical"):
                                severe.add(str(finding_id))
                        time.sleep(max(0.0, began + poll_ms / 1000 - time.monotonic()))

                poller = threading.Thread(target=poll, daemon=True)
                poller.start()
                producer = KafkaProducer(**kafka.kafka_python(), acks="all", linger_ms=0)
                topic = Topics.prefixed(prefix).events
                started = time.monotonic()
                count = 0
                for index, (table_id, value) in enumerate(stream):
                    due = index / rate
                    if due > seconds:
                        break
                    wait = due - (time.monotonic() - started)
                    if wait > 0:
                        time.sleep(wait)
                    producer.send(topic, key=table_key(table_id), value=value)
                    count += 1
                producer.flush()
                elapsed = time.monotonic() - started
                lag_at_end = get_json(worker_port, "/metrics")["consumer_lag_total"]
                deadline = time.monotonic() + 600
                while time.monotonic() < deadline:  # the worker caught up
                    metrics = get_json(worker_port, "/metrics")
                    if metrics["consumer_lag_total"] == 0:
                        break
                    time.sleep(0.5)
                caught_up = time.monotonic() - started - elapsed
                time.sleep(15)  # the last findings' mails
                stop.set()
                poller.join()
        finally:
            am.stop()
        first_mail: dict[str, float] = {}
        for m in mail.mails:
            for alert_id in m.alert_ids():
                first_mail.setdefault(alert_id, m.received)
        mails = len(mail.mails)
    waits = sorted(
        first_mail[stable_id("finding", f)] - seen[f]
        for f in severe
        if stable_id("finding", f) in first_mail
    )
    # a high finding at a table with a critical one seen before it: inhibited by design
    criticals: dict[str, float] = {}
    for f in severe:
        table_id, severity = where[f]
        if severity == "critical":
            criticals[table_id] = min(criticals.get(table_id, seen[f]), seen[f])
    missed = [f for f in severe if stable_id("finding", f) not in first_mail]
    inhibited = [
        f for f in missed
        if where[f][1] != "critical" and criticals.get(where[f][0], float("inf")) <= seen[f]
    ]  # fmt: skip
    latency_ms = quantiles(waits)
    periods = [b - a for a, b in pairwise(answers)]
    return {
        "load_cores": load_cores,
        "events_sent": count,
        "send_rate_events_per_s": round(count / elapsed),
        "worker_lag_at_end_events": lag_at_end,
        "worker_caught_up_after_s": round(caught_up, 1),
        "findings_stored": len(seen),
        "findings_high_or_critical": len(severe),
        "mailed": len(waits),
        "not_mailed_inhibited": len(inhibited),
        "not_mailed_otherwise": len(missed) - len(inhibited),
        "mails": mails,
        **{f"latency_ms_{k}": v for k, v in latency_ms.items()},
        "poll_every_ms": poll_ms,
        **{f"poll_period_ms_{k}": v for k, v in quantiles(periods).items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=1000.0)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--error-rate", type=float, default=0.05)
    parser.add_argument(
        "--load-cores",
        type=int,
        default=1,
        help="processes each spinning one core meanwhile (0: a quiet machine)  [default: 1]",
    )
    parser.add_argument(
        "--poll-ms", type=float, default=50.0, help="/query poll interval  [default: 50]"
    )
    parser.add_argument("--bootstrap", default=DEFAULT_BOOTSTRAP)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tw-bench-alerts-") as tmp:
        figures = run(
            Path(tmp), KafkaAccess(options.bootstrap), options.rate, options.seconds,
            options.error_rate, load_cores=options.load_cores, poll_ms=options.poll_ms,
        )  # fmt: skip
    if options.json:
        print(json.dumps(figures))
        return
    for key, value in figures.items():
        print(f"  {key:28} {value:>12,}" if isinstance(value, int) else f"  {key:28} {value}")


if __name__ == "__main__":
    main()
