"""``tablewatch live``: the whole pipeline on this machine for a minute, findings as they come.

Kafka must be running (``deploy/kafka.sh start``; ``make demo`` does it).
Starts the worker (embedded ClickHouse) and the ingest endpoint as child
processes on topics of their own, streams a simulated floor through
``POST /events`` at table pace times ``--speed``, stamped in the present
(:meth:`~tablewatch.sim.floor.Floor.present`), prints every finding from the
``findings`` topic as it arrives, then a summary read from ClickHouse, serves
the pages a while (on a terminal, until Ctrl-C), shuts everything down and
verifies the run's store.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import click
import yaml
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from tablewatch.commands.options import (
    kafka_access_options,
    kafka_wait_option,
    wait_for_kafka_or_exit,
)
from tablewatch.commands.serve_api import TOKEN_ENV as API_TOKEN_ENV
from tablewatch.finding_money import money_text
from tablewatch.integrity.keys import generate
from tablewatch.kafka_access import KafkaAccess
from tablewatch.report import money
from tablewatch.rules.checks.catalog import CHECKS
from tablewatch.rules.decode import encode_event
from tablewatch.services import child_service, create_topics, get_json, worker_args, worker_query
from tablewatch.sim.floor import Floor
from tablewatch.sim.pacing import paced
from tablewatch.topics import Topics

T = TypeVar("T")
SEVERITY_STYLE = {"critical": "bold red", "high": "red", "medium": "yellow", "low": "cyan"}


@click.command()
@click.option("--tables", default=12, show_default=True)
@click.option("--seconds", default=60.0, show_default=True, help="How long to stream.")
@click.option(
    "--speed",
    default=20.0,
    show_default=True,
    type=click.FloatRange(min=0, min_open=True),
    help="Times faster than table pace.",
)
@click.option("--seed", default=1, show_default=True)
@click.option("--error-rate", default=0.05, show_default=True)
@click.option("--jackpot-rate", default=0.02, show_default=True)
@kafka_access_options
@kafka_wait_option
@click.option(
    "--dir",
    "root",
    default=".data/live",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Run folders go here.",
)
@click.option("--worker-port", default=6066, show_default=True)
@click.option("--ingest-port", default=8077, show_default=True)
@click.option("--api-port", default=8090, show_default=True, help="The auditor pages and API.")
@click.option(
    "--alerts",
    "alerts_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Alert rules: run the alerter, a local Alertmanager and a mail sink; print each mail.",
)
@click.option("--alerter-port", default=8095, show_default=True)
@click.option(
    "--linger",
    type=click.FloatRange(min=0),
    default=None,
    help="Seconds to keep serving the pages after the summary (Ctrl-C stops sooner) "
    "[default: until Ctrl-C on a terminal, else 0].",
)
def live(
    tables: int,
    seconds: float,
    speed: float,
    seed: int,
    error_rate: float,
    jackpot_rate: float,
    kafka: KafkaAccess,
    kafka_wait: float,
    root: Path,
    worker_port: int,
    ingest_port: int,
    api_port: int,
    alerts_path: Path | None,
    alerter_port: int,
    linger: float | None,
) -> None:
    """Run the live pipeline with a simulated floor for a while, then summarise."""
    # SIGTERM (and SIGHUP, the terminal closed) ends the run: the children (worker, ingest,
    # API, alerter) are stopped on the way out, never left running (Python's default would
    # exit at once), and nothing more is done. The children run in sessions of their own: a
    # terminal's Ctrl-C reaches only this process, which stops them in order
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    signal.signal(signal.SIGHUP, _exit_on_sigterm)
    console = Console(highlight=False)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    run = root / stamp
    run.mkdir(parents=True, exist_ok=True)
    prefix = f"live-{stamp}-{uuid.uuid4().hex[:4]}-"
    floor = Floor(tables, rounds=1_000_000, seed=seed, error_rate=error_rate,
                  jackpot_rate=jackpot_rate)  # fmt: skip
    config = run / "tables.yaml"
    config.write_text(yaml.safe_dump(floor.config, sort_keys=False))
    wait_for_kafka_or_exit(kafka, kafka_wait)
    create_topics(kafka, prefix)
    topics = Topics.prefixed(prefix)
    child_env = kafka.child_env()  # a password goes there, never on a command line
    console.print(f"[bold]TableWatch live[/] run {run} (topics {prefix}*)")
    # the chains signed, and the record kept outside the store beside the run
    key = run / "checkpoint.key"
    generate(key)
    signing = [
        "--checkpoint-key", str(key), "--manifest-file", str(run / "manifests.jsonl"),
        "--checkpoint-minutes", f"{CHECKPOINT_MINUTES:g}",
    ]  # fmt: skip
    # who may do what (docs/access.md): the run's access file, each holder's token in
    # RUN/NAME.token; the worker and the API check them, the API reads the worker as "auditor"
    access, reader, site = _run_access(run, alerts_path)
    with ExitStack() as stack:
        args = worker_args(
            config, kafka=kafka, dsn=f"chdb:///{(run / 'chdb').resolve()}",
            web_port=worker_port, prefix=prefix, data_dir=run / "worker",
        ) + signing + site + ["--patterns"]  # fmt: skip
        worker = stack.enter_context(
            child_service(
                args,
                f"http://127.0.0.1:{worker_port}/health",
                run / "worker.log",
                env=child_env,
                new_session=True,
            )
        )
        ingest_args = [
            "serve-ingest", "--port", str(ingest_port), *kafka.child_args(),
            "--topics-prefix", prefix,
        ]  # fmt: skip
        stack.enter_context(
            child_service(
                ingest_args,
                f"http://127.0.0.1:{ingest_port}/health",
                run / "ingest.log",
                env=child_env,
                new_session=True,
            )
        )
        api = f"http://127.0.0.1:{api_port}"
        api_args = [
            "serve-api", "--port", str(api_port), "--worker", f"http://127.0.0.1:{worker_port}",
            *site,
        ]  # fmt: skip
        if alerts_path is not None:  # acknowledgements through the API too
            api_args += ["--alerter", f"http://127.0.0.1:{alerter_port}"]
        stack.enter_context(
            child_service(
                api_args, f"{api}/health", run / "api.log", new_session=True,
                env={API_TOKEN_ENV: reader},
            )
        )  # fmt: skip
        console.print(f"the floor's pages: {api}/ (the auditor API: {api}/docs)")
        console.print(
            f"sign in at {api}/login with a token of {run}: {SURVEILLANCE}.token "
            f"(surveillance: works cases), {FLOOR_MANAGER}.token (floor manager), "
            f"{AUDITOR}.token (auditor)"
        )
        if alerts_path is not None:  # the shifts of the alert rules
            console.print(f"the shift report: {api}/reports")
        if alerts_path is not None:
            from tablewatch.alerts.demo import mail_text, start_alerting

            alerter = start_alerting(
                stack, rules_path=alerts_path, run=run, config=config, kafka=kafka,
                prefix=prefix, port=alerter_port, env=child_env, auditor_url=api,
                on_mail=lambda m: console.print(f"[bold magenta]MAIL[/] {escape(mail_text(m))}"),
                new_session=True, access=access,
            )  # fmt: skip
            console.print(f"alerts by {alerts_path}: the alerter at {alerter}/api/v1/alerts")
        console.print(f"worker pid {worker.pid} and ingest endpoint ready; streaming {tables} "
                      f"tables at {speed:g}x for {seconds:g} s\n")  # fmt: skip
        stop = threading.Event()
        printer = threading.Thread(
            target=_print_findings,
            args=(console, kafka, topics.findings, stop),
            daemon=True,
        )
        printer.start()
        sent = _stream(floor, f"http://127.0.0.1:{ingest_port}/events", speed, seconds)
        _wait_until_caught_up(worker_port, sent, reader)
        time.sleep(1.5)
        stop.set()
        printer.join(timeout=5)
        _summary(console, worker_port, sent, reader)
        _pages(console, api, worker_port, reader, linger)
    console.print(f"\nstopped cleanly; data in {run}")
    _verify(console, run)


# a demo runs a minute or two: its worker signs each table's new events every 30 s
CHECKPOINT_MINUTES = 0.5


def _verify(console: Console, run: Path) -> None:
    """``tablewatch verify`` of the run's store (the worker stopped: it held it), with the key
    kept beside the run and the record the worker kept outside the store."""
    import subprocess

    args = [
        "verify", "--dsn", f"chdb:///{(run / 'chdb').resolve()}",
        "--public-key", str(run / "checkpoint.key.pub"),
        "--manifests", str(run / "manifests.jsonl"),
        "--checkpoint-minutes", f"{CHECKPOINT_MINUTES:g}",
    ]  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "tablewatch.cli", *args],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    lines = done.stdout.splitlines() or done.stderr.splitlines() or ["(no answer)"]
    console.print(f"\n[bold]tablewatch {' '.join(args)}[/]", soft_wrap=True)
    for line in lines:
        console.print(escape(line), soft_wrap=True)


# the run's token holders (RUN/NAME.token)
SURVEILLANCE, FLOOR_MANAGER, AUDITOR = "sam", "floor", "auditor"


def _run_access(run: Path, rules: Path | None) -> tuple[Path, str, list[str]]:
    """The run's access file, the auditor's token (the API reads the worker with it) and
    the options that give the worker and the API the access file and the site's rules (the
    dispositions a case is closed with; the floor manager holds every pit of the rules)."""
    from tablewatch.access.roles import Role
    from tablewatch.alerts.demo import demo_access

    pits: list[str] = []
    if rules is not None:
        from tablewatch.alerts.rules_file import load_rules

        pits = [pit.name for pit in load_rules(rules).pits]
    more = ((SURVEILLANCE, Role.SURVEILLANCE), (AUDITOR, Role.AUDITOR))
    access = demo_access(run, FLOOR_MANAGER, more=more, pits=pits)
    site = ["--access-file", str(access)]
    if rules is not None:
        site += ["--rules", str(rules)]
    return access, (run / f"{AUDITOR}.token").read_text().strip(), site


def _exit_on_sigterm(signum: int, frame: object) -> None:
    sys.exit(128 + signum)


def _stream(floor: Floor, url: str, speed: float, seconds: float) -> int:
    """Post the floor's events at ``speed`` times table pace until ``seconds`` have passed,
    each stamped with the time it is sent."""
    from tablewatch.ingest.client import BatchPoster

    poster = BatchPoster(url, max_events=500, max_delay=0.2)
    sent = 0
    for event in paced(floor.present(speed), 1.0, poster.wait, until_s=seconds):
        poster.add(encode_event(event))
        sent += 1
    poster.close()
    return sent


def _print_findings(
    console: Console, kafka: KafkaAccess, topic: str, stop: threading.Event
) -> None:
    from kafka import KafkaConsumer

    consumer = KafkaConsumer(topic, **kafka.kafka_python(), auto_offset_reset="earliest",
                             enable_auto_commit=False, consumer_timeout_ms=500)  # fmt: skip
    while not stop.is_set():
        for record in consumer:
            console.print(alert_text(json.loads(record.value)))
            if stop.is_set():
                break
    consumer.close()


def alert_text(f: Mapping[str, Any]) -> str:
    """A finding from the findings topic as the floor reads it (rich markup): severity,
    check, where, the money in words (tablewatch.finding_money), the rule, and on a second
    line what happened."""
    style = SEVERITY_STYLE.get(f["severity"], "")
    seat = f"seat {f['seat']}" if f.get("seat") else ""
    parts = (f["table_id"], f["round_id"] or "(table)", seat, f.get("bet") or "")
    where = " ".join(part for part in parts if part)
    shown = money_text(f["check"], f.get("expected"), f.get("actual"))
    amounts = f" {escape(shown)}" if shown else ""
    return (
        f"[{style}]{f['severity'].upper():8}[/] {f['check']:27} {escape(where)}{amounts} "
        f"[dim]{escape(f['regulation'])}[/]\n{'':9}{escape(f['message'])}"
    )


def _pages(console: Console, api: str, worker_port: int, token: str, linger: float | None) -> None:
    """The floor page's URL and a round page's with a finding (a wrong payout when the run
    has one), each answered 200 before it is printed; then serve them a while."""
    import urllib.request

    rows = _while_busy(lambda: worker_query(
        worker_port,
        "SELECT f.table_id, f.round_id FROM findings_v AS f WHERE f.round_id != '' AND "
        "(f.table_id, f.round_id, f.start_event_id) IN (SELECT table_id, round_id, "
        "start_event_id FROM rounds_v) ORDER BY f.check != 'WRONG_PAYOUT', f.ts LIMIT 1",
        token,
    ))  # fmt: skip
    pages = [("the floor", f"{api}/")]
    if rows:
        from tablewatch.links import round_path

        table_id, round_id = (str(v) for v in rows[0])
        pages.append((f"a round with a finding ({table_id} {round_id})",
                      api + round_path(table_id, round_id)))  # fmt: skip
    console.print()
    for what, url in pages:

        def status(url: str = url) -> int:
            with urllib.request.urlopen(url, timeout=30) as reply:
                return int(reply.status)

        console.print(f"[bold]{what}[/]: {url}  [dim]({_while_busy(status)})[/]")
    _linger(console, linger)


def _while_busy(call: Callable[[], T], seconds: float = 60) -> T:
    """``call()``, again while the worker or the API answers 503 (its query threads taken:
    the floor page's feed, a browser, the summary's statements), for ``seconds`` at most."""
    import urllib.error

    deadline = time.monotonic() + seconds
    while True:
        try:
            return call()
        except urllib.error.HTTPError as exc:
            if exc.code != 503 or time.monotonic() > deadline:
                raise
        time.sleep(0.5)


def _linger(console: Console, linger: float | None) -> None:
    """Keep serving: ``linger`` seconds; with none, on a terminal, until Ctrl-C (unless
    SIGINT is ignored: started in the background). Ctrl-C ends the wait: the run goes on
    to stop its children and verify. A second Ctrl-C, while they stop, aborts."""
    if linger is None:
        if not sys.stdin.isatty() or signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
            return
        console.print("[dim]served until Ctrl-C[/]")
    elif linger > 0:
        console.print(f"[dim]served for {linger:g} s more (Ctrl-C stops sooner)[/]")
    else:
        return
    try:
        if linger is None:
            while True:
                time.sleep(3600)
        time.sleep(linger)
    except KeyboardInterrupt:
        console.print("\n[bold]Ctrl-C[/]: stopping (once more to abort)")


def _wait_until_caught_up(port: int, sent: int, token: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        metrics = _while_busy(lambda: get_json(port, "/metrics", token=token))
        if metrics["events"] >= sent and metrics["consumer_lag_total"] == 0:
            return
        time.sleep(0.5)


def _summary(console: Console, port: int, sent: int, token: str) -> None:
    def query(sql: str) -> list[list[Any]]:
        return _while_busy(lambda: worker_query(port, sql, token))

    metrics = _while_busy(lambda: get_json(port, "/metrics", token=token))
    rounds = query("SELECT count(), sum(wagered), sum(paid) FROM rounds_v")[0]
    events = query("SELECT count() FROM raw_events_v")[0][0]
    by_check = query("SELECT check, count() FROM findings_v GROUP BY check")
    top = query("SELECT table_id, count() AS n FROM findings_v GROUP BY table_id "
                "ORDER BY n DESC, table_id LIMIT 5")  # fmt: skip
    console.print()
    wagered, paid = money(int(rounds[1] or 0)), money(int(rounds[2] or 0))
    console.print(
        f"[bold]Summary from ClickHouse[/]: {events:,} events stored of {sent:,} sent, "
        f"{int(rounds[0]):,} rounds judged ({metrics['open_rounds']} still open), "
        f"{wagered} wagered, {paid} paid"
    )
    table = Table(title="Findings by check")
    table.add_column("check")
    table.add_column("severity")
    table.add_column("findings", justify="right")
    for check, count in sorted(by_check, key=lambda r: (-int(r[1]), str(r[0]))):
        table.add_row(str(check), CHECKS[str(check)].severity, f"{int(count):,}")
    console.print(table)
    tops = Table(title="Top tables")
    tops.add_column("table")
    tops.add_column("findings", justify="right")
    for table_id, count in top:
        tops.add_row(str(table_id), f"{int(count):,}")
    console.print(tops)
    patterns = metrics.get("patterns")
    if patterns is not None:
        console.print(
            f"patterns across rounds: {patterns['rounds']:,} rounds read, "
            f"{patterns['findings']:,} findings, {patterns['late_rounds']:,} rounds late"
        )
