"""Kafka not reachable at start: tries with backoff, a line each, then one line and exit 2.

The commands are run as processes against a closed port on 127.0.0.1 with a short
``--kafka-wait``: no traceback, the reason, exit code 2.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tablewatch.kafka_access import KafkaAccess, Secret
from tablewatch.kafka_wait import (
    KafkaUnreachable,
    client_logs_kept,
    connection_refused,
    wait_for_kafka,
)
from tablewatch.services import free_port

REPO = Path(__file__).parents[2]
EXAMPLES = REPO / "examples"
GIVE_UP = re.compile(
    r"tablewatch (?P<command>[\w-]+): Kafka at 127\.0\.0\.1:(?P<port>\d+) not reachable: gave up"
    r" after (?:1\.5|4) s \(--kafka-wait\) and (?P<tries>\d+) tries: 127\.0\.0\.1:(?P=port): "
    r"Connection refused"
)
RETRY = re.compile(
    r"^\S+ \S+ WARNING tablewatch\.kafka: Kafka at 127\.0\.0\.1:\d+ not reachable \(127\.0\.0\.1:"
    r"\d+: Connection refused\); trying again in \d\.\d s$"
)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.pauses: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.now += seconds


@pytest.fixture
def listening() -> Iterator[int]:
    """A port that accepts connections (and never answers)."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(16)
        yield int(server.getsockname()[1])


def failing(
    times: int, clock: Clock, cost: float = 0.0
) -> tuple[list[float], Callable[[float], None]]:
    timeouts: list[float] = []

    def attempt(timeout_s: float) -> None:
        timeouts.append(timeout_s)
        clock.now += cost
        if len(timeouts) <= times:
            logging.getLogger("kafka.net.connection").error(
                "<KafkaConnection node_id=bootstrap-0>: SaslAuthenticate failed: bad credentials"
            )
            logging.getLogger("kafka.net.manager").error("Bootstrap failed: KafkaTimeoutError")
            raise TimeoutError("Unable to bootstrap")

    return timeouts, attempt


def test_tries_again_with_backoff_until_it_succeeds(
    listening: int, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    timeouts, attempt = failing(5, clock)
    access = KafkaAccess(f"127.0.0.1:{listening}")
    with caplog.at_level(logging.INFO, "tablewatch.kafka"):
        tries = wait_for_kafka(access, attempt, 60, clock=clock, sleep=clock.sleep)
    assert tries == 6
    assert clock.pauses == [0.5, 1.0, 2.0, 4.0, 8.0]
    assert timeouts[0] == 10.0  # one try's own timeout
    lines = [r.getMessage() for r in caplog.records if r.name == "tablewatch.kafka"]
    assert lines[0] == (
        f"Kafka at 127.0.0.1:{listening} not reachable (SaslAuthenticate failed: bad "
        "credentials); trying again in 0.5 s"
    )
    assert (
        len(lines) == 6 and lines[-1] == f"Kafka at 127.0.0.1:{listening} reachable after 6 tries"
    )
    # the client's own lines were kept back, not shown
    assert not [r for r in caplog.records if r.name.startswith("kafka")]


def test_gives_up_after_the_wait_with_one_line(listening: int) -> None:
    clock = Clock()
    timeouts, attempt = failing(100, clock, cost=1.0)
    access = KafkaAccess(f"127.0.0.1:{listening}")
    with pytest.raises(KafkaUnreachable) as info:
        wait_for_kafka(access, attempt, 10, clock=clock, sleep=clock.sleep)
    assert str(info.value) == (
        f"Kafka at 127.0.0.1:{listening} not reachable: gave up after 10 s (--kafka-wait) and 5 "
        "tries: SaslAuthenticate failed: bad credentials"
    )
    assert clock.pauses == [0.5, 1.0, 2.0, 2.5]  # the last pause ends at the deadline
    assert timeouts[-1] == 1.0  # a try gets what is left, at least 1 s


def test_no_wait_is_one_try() -> None:
    clock = Clock()
    with pytest.raises(KafkaUnreachable) as info:
        wait_for_kafka(KafkaAccess(f"127.0.0.1:{free_port()}"), lambda _: None, 0,
                       clock=clock, sleep=clock.sleep)  # fmt: skip
    assert "gave up after 0 s (--kafka-wait) and 1 try: 127.0.0.1:" in str(info.value)
    assert clock.pauses == []


def test_the_reason_is_the_connection_refused_or_the_client_s_first_error(listening: int) -> None:
    closed = free_port()
    two = KafkaAccess(f"127.0.0.1:{closed},127.0.0.1:{closed}")
    refused = f"127.0.0.1:{closed}: Connection refused"
    assert connection_refused(two, 1) == f"{refused}; {refused}"
    assert connection_refused(KafkaAccess(f"127.0.0.1:{closed},127.0.0.1:{listening}"), 1) is None


def test_a_password_a_library_would_print_is_hidden(listening: int) -> None:
    access = KafkaAccess(f"127.0.0.1:{listening}", "SASL_PLAINTEXT", "PLAIN", "alice",
                         Secret("hunter2-pw"))  # fmt: skip

    def attempt(timeout_s: float) -> None:
        logging.getLogger("kafka").error("login as alice with hunter2-pw refused")
        raise OSError("no")

    with pytest.raises(KafkaUnreachable) as info:
        wait_for_kafka(access, attempt, 0)
    assert str(info.value).endswith("login as alice with *** refused")


def test_the_client_loggers_are_as_before_after_a_try() -> None:
    logger = logging.getLogger("aiokafka")
    before = (logger.propagate, logger.level, list(logger.handlers))
    with client_logs_kept() as kept:
        logger.warning("w")
        logger.error("e")
    assert kept.first_error() == "e"
    assert (logger.propagate, logger.level, list(logger.handlers)) == before


# ---- the commands, as processes -----------------------------------------------------------


def run(
    args: list[str], password: str | None = None, wait_s: float = 1.5
) -> subprocess.CompletedProcess[str]:
    """``tablewatch ARGS --kafka-wait WAIT_S``: tries at 0, 0.5 and 1.5 s (and 3.5 s), so
    at least 2 retries in 1.5 s unless a try is slow; the worker's are (each starts a
    client of its own: on a loaded machine a try took long enough to leave 1 retry)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLEWATCH_")}
    if password is not None:
        env["TABLEWATCH_KAFKA_PASSWORD"] = password
    return subprocess.run(
        [sys.executable, "-m", "tablewatch.cli", *args, "--kafka-wait", f"{wait_s:g}"],
        capture_output=True, text=True, timeout=120, cwd=REPO, env=env,
    )  # fmt: skip


def check_gave_up(result: subprocess.CompletedProcess[str], command: str, port: int) -> None:
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert "Traceback" not in output
    assert "pw-5e1d-hidden" not in output
    lines = result.stderr.splitlines()
    last = GIVE_UP.fullmatch(lines[-1])
    assert last is not None, lines[-1]
    assert (last["command"], int(last["port"])) == (command, port)
    tries = int(last["tries"])
    retries = [line for line in lines if "tablewatch.kafka" in line]
    assert len(retries) == tries - 1 >= 2
    assert all(RETRY.match(line) for line in retries), retries


def test_ingest_gives_up_with_exit_2(tmp_path: Path) -> None:
    port = free_port()
    events = tmp_path / "events.jsonl"
    events.write_bytes((EXAMPLES / "shift.jsonl").read_bytes()[:2000].rsplit(b"\n", 1)[0])
    result = run(["ingest", str(events), "--bootstrap", f"127.0.0.1:{port}"])
    check_gave_up(result, "ingest", port)
    assert result.stdout == ""  # nothing was sent


def test_serve_ingest_gives_up_with_exit_2(tmp_path: Path) -> None:
    port = free_port()
    result = run(["serve-ingest", "--port", str(free_port()), "--bootstrap",
                  f"127.0.0.1:{port}"])  # fmt: skip
    check_gave_up(result, "serve-ingest", port)


def test_worker_gives_up_with_exit_2(tmp_path: Path) -> None:
    """Also with SASL configured and every log line (DEBUG): the password is never shown."""
    port = free_port()
    result = run(
        ["worker", "--config", str(EXAMPLES / "tables.yaml"), "--bootstrap", f"127.0.0.1:{port}",
         "--dsn", f"chdb:///{tmp_path / 'chdb'}", "--data-dir", str(tmp_path / "worker"),
         "--web-port", str(free_port()), "--log-level", "DEBUG",
         "--kafka-security-protocol", "SASL_PLAINTEXT", "--kafka-sasl-mechanism",
         "SCRAM-SHA-512", "--kafka-username", "alice"],
        password="pw-5e1d-hidden",
        wait_s=4,
    )  # fmt: skip
    check_gave_up(result, "worker", port)
