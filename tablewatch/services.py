"""Running TableWatch services (worker, ingest endpoint) as child processes, and talking to them.

Used by ``tablewatch live``, the integration tests and the benchmarks.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tablewatch.kafka_access import KafkaAccess
from tablewatch.topics import PARTITIONS, Topics


class ServiceFailed(RuntimeError):
    pass


@contextmanager
def child_service(
    args: Sequence[str],
    health_url: str,
    log_path: Path,
    *,
    ready_timeout: float = 120,
    env: Mapping[str, str] | None = None,
    new_session: bool = False,
) -> Iterator[subprocess.Popen[bytes]]:
    """``tablewatch ARGS`` as a child process, yielded once ``health_url`` answers.

    Stopped with SIGTERM (then SIGKILL after 45 s) when the block ends, unless
    already dead. Output goes to ``log_path``; ``env`` is added to this process's
    (a Kafka password goes there: :meth:`KafkaAccess.child_env`). ``new_session``: in a
    session of its own, so a terminal's Ctrl-C reaches only this process, which stops
    the child itself.
    """
    log = log_path.open("ab")
    process = subprocess.Popen(
        [sys.executable, "-m", "tablewatch.cli", *args],
        stdout=log,
        stderr=log,
        env={**os.environ, **env} if env else None,
        start_new_session=new_session,
    )
    try:
        deadline = time.monotonic() + ready_timeout
        while True:
            if process.poll() is not None:
                raise ServiceFailed(f"{args[0]} exited {process.returncode}: see {log_path}")
            try:
                urllib.request.urlopen(health_url, timeout=2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise ServiceFailed(
                        f"{args[0]} not ready in {ready_timeout:g} s: {log_path}"
                    ) from None
                time.sleep(0.3)
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=45)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        log.close()


def worker_args(
    config: Path,
    *,
    kafka: KafkaAccess,
    dsn: str,
    web_port: int,
    prefix: str,
    data_dir: Path,
    session_timeout: float = 30.0,
) -> list[str]:
    """``tablewatch worker``'s arguments; its environment needs ``kafka.child_env()``."""
    return [
        "worker", "--config", str(config), *kafka.child_args(), "--dsn", dsn,
        "--web-port", str(web_port), "--app-id", f"{prefix}worker", "--topics-prefix", prefix,
        "--data-dir", str(data_dir), "--session-timeout", f"{session_timeout:g}",
    ]  # fmt: skip


def create_topics(kafka: KafkaAccess, prefix: str, partitions: int = PARTITIONS) -> None:
    """The four topics with ``prefix`` (:meth:`Topics.prefixed`), one replica each."""
    from kafka.admin import KafkaAdminClient, NewTopic

    admin = KafkaAdminClient(**kafka.kafka_python())
    try:
        names = Topics.prefixed(prefix).names()
        admin.create_topics([NewTopic(name, partitions, 1) for name in names])
    finally:
        admin.close()


def get_json(port: int, path: str, timeout: float = 10, token: str | None = None) -> Any:
    """The JSON of ``GET path`` on 127.0.0.1:``port``, as ``token``'s holder when given."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=timeout) as reply:
        return json.loads(reply.read())


def worker_query(port: int, sql: str, token: str | None = None) -> list[list[Any]]:
    """Rows of a read-only query on the worker's store (its ``/query`` view)."""
    path = "/query?" + urllib.parse.urlencode({"sql": sql})
    rows: list[list[Any]] = get_json(port, path, token=token)["rows"]
    return rows


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
