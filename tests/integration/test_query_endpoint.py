"""The worker's ``/query`` under attack: refused or bounded, responsive meanwhile, never
holding up the worker's shutdown. (The statement classes themselves, with their
variants, are in ``tests/store/test_read_only.py``; here they go through HTTP.)
"""

from __future__ import annotations

import json
import signal
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tablewatch.services import free_port
from tests.integration.pipeline import Deployment, new_deployment, simulated_floor, write_jsonl

pytestmark = pytest.mark.integration

SLOW = (
    "SELECT count() FROM (SELECT arrayJoin(range(100000)) AS a) AS x, "
    "(SELECT arrayJoin(range(100000)) AS b) AS y"
)


def ask(port: int, sql: str, timeout: float = 30) -> tuple[int, dict[str, Any], dict[str, str]]:
    """Status, JSON body and headers of ``GET /query?sql=...``."""
    url = f"http://127.0.0.1:{port}/query?" + urllib.parse.urlencode({"sql": sql})
    try:
        with urllib.request.urlopen(url, timeout=timeout) as reply:
            return reply.status, json.loads(reply.read()), dict(reply.headers)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read()), dict(error.headers)


def assert_answers_select_1_within_a_second(port: int) -> None:
    started = time.monotonic()
    status, body, _ = ask(port, "SELECT 1", timeout=5)
    assert (status, body["rows"]) == (200, [[1]])
    assert time.monotonic() - started < 1.0


HOSTILE = [
    ("SELECT * FROM file('/etc/passwd', 'LineAsString')", "table function file()"),
    ("SELECT file('/etc/passwd')", "function file()"),
    ("SELECT * FROM url('http://127.0.0.1:9/', 'LineAsString')", "table function url()"),
    ("SELECT * FROM remote('127.0.0.1:9', system.one)", "table function remote()"),
    ("SELECT $$;$$; DROP TABLE findings", "one statement"),
    ("SELECT $$x$$ INTO OUTFILE '/tmp/tablewatch-never-written'", "INTO OUTFILE"),
    ("INSERT INTO findings SELECT * FROM findings", "read-only"),
    ("SELECT 1 SETTINGS readonly = 0", "readonly"),
    ("SELECT * FROM system.processes", "not readable"),
    # heavy: stopped by the result bound, or by the time limit first on a loaded machine
    ("SELECT * FROM (SELECT arrayJoin(range(1000000)) AS n)", ("over", "time limit")),
    ("SELECT repeat('x', 100000) FROM raw_events_v", ("over", "time limit")),
]


def test_hostile_statements_over_http(kafka_bootstrap: str, tmp_path: Path) -> None:
    floor = simulated_floor(tmp_path, tables=2, rounds=20, seed=5)
    deployment = new_deployment(kafka_bootstrap, tmp_path, free_port())
    with deployment.worker(floor.config, extra_args=("--query-seconds", "2")):
        deployment.ingest(write_jsonl(tmp_path / "events.jsonl", floor.events))
        deployment.wait_for_rounds(floor.rounds)
        # the result limit is crossed only with every event stored (1,135 x 100 kB > 64 MiB):
        # a round's row can be readable before the last batch of its table's events
        deadline = time.monotonic() + 60
        while deployment.query("SELECT count() FROM raw_events_v") != [[len(floor.events)]]:
            assert time.monotonic() < deadline, "the events were not all stored in 60 s"
            time.sleep(0.5)
        port = deployment.web_port
        for sql, reason in HOSTILE:
            status, body, _ = ask(port, sql)
            assert 400 <= status < 600, (sql, status, str(body)[:300])
            reasons = (reason,) if isinstance(reason, str) else reason
            assert any(r in body["error"] for r in reasons), (sql, body)
            assert_answers_select_1_within_a_second(port)
        assert not Path("/tmp/tablewatch-never-written").exists()
        assert deployment.query("SELECT count() FROM raw_events_v") == [[len(floor.events)]]

        # two slow statements take both query threads: a third caller is answered at once
        answers: list[tuple[int, dict[str, Any], dict[str, str]]] = []
        slow = [threading.Thread(target=lambda: answers.append(ask(port, SLOW))) for _ in (1, 2)]
        for thread in slow:
            thread.start()
        time.sleep(0.5)
        started = time.monotonic()
        status, body, headers = ask(port, "SELECT 1", timeout=5)
        assert status == 503 and headers.get("Retry-After"), (status, body)
        assert time.monotonic() - started < 1.0
        health = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2)
        assert health.status == 200
        for thread in slow:
            thread.join()
        assert [a[0] for a in answers] == [504, 504], answers
        assert all("Timeout exceeded" in a[1]["error"] for a in answers), answers
        assert_answers_select_1_within_a_second(port)


def test_shutdown_does_not_wait_for_a_query(kafka_bootstrap: str, tmp_path: Path) -> None:
    floor = simulated_floor(tmp_path, tables=1, rounds=5, seed=6)
    deployment: Deployment = new_deployment(kafka_bootstrap, tmp_path, free_port())
    with deployment.worker(floor.config, extra_args=("--query-seconds", "120")) as process:
        port = deployment.web_port
        threading.Thread(target=lambda: ask(port, SLOW, timeout=150), daemon=True).start()
        time.sleep(1.0)
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
        stopped_in = time.monotonic() - started
    assert stopped_in < 45, f"the worker took {stopped_in:.1f} s to stop behind a 120 s query"
