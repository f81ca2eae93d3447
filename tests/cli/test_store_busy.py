"""A store held by another process: one line saying which, and where queries go meanwhile."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tablewatch.store.client import Holder, busy_message

# A stand-in for `tablewatch worker`: a script named tablewatch that holds the store.
WORKER = """\
import os, sys
from tablewatch.store.client import connect
client = connect(os.environ["TABLEWATCH_DSN"])
client.command("SELECT 1")
print("open", flush=True)
sys.stdin.read()
client.close()
"""


@pytest.mark.parametrize("command", [["summary"], ["query", "SELECT 1"]])
def test_db_while_a_worker_holds_the_store(tmp_path: Path, command: list[str]) -> None:
    script = tmp_path / "bin" / "tablewatch"
    script.parent.mkdir()
    script.write_text(WORKER)
    store = tmp_path / "store"
    dsn = f"chdb:///{store}"
    args = ["worker", "--config", "tables.yaml", "--web-port", "6070"]
    holder = subprocess.Popen(
        [sys.executable, str(script), *args],
        env={**os.environ, "TABLEWATCH_DSN": dsn},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "open"
        done = subprocess.run(
            [sys.executable, "-m", "tablewatch.cli", "db", *command, "--dsn", dsn],
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)
    assert done.returncode == 2
    assert done.stderr == (
        f"tablewatch db {command[0]}: the embedded store {store} is held by the worker, pid "
        f"{holder.pid} (tablewatch worker --config tables.yaml --web-port 6070): "
        "while it runs, queries go through it: http://127.0.0.1:6070/query?sql=... (one "
        "process at a time opens a chdb directory)\n"
    )


@pytest.mark.parametrize(
    ("argv", "port"),
    [
        (("/venv/bin/python", "/venv/bin/tablewatch", "worker", "--config", "t.yaml"), 6066),
        (("/venv/bin/tablewatch", "worker", "--web-port=7000"), 7000),
        (("python3", "-m", "tablewatch.cli", "worker", "--web-port", "7001"), 7001),
        (("/venv/bin/tablewatch", "db", "summary"), None),
        (("python", "-c", "import time; time.sleep(9)"), None),
        ((), None),
    ],
)
def test_a_holder_is_a_worker_and_on_which_port(argv: tuple[str, ...], port: int | None) -> None:
    assert Holder("1", argv).worker_port() == port


def test_the_holders_command_line_reads_short() -> None:
    worker = Holder("7", ("/venv/bin/python", "/venv/bin/tablewatch", "worker", "--config", "t"))
    assert worker.command() == "tablewatch worker --config t"
    assert Holder("7", ("python3", "-m", "tablewatch.cli", "live")).command() == (
        "python3 -m tablewatch.cli live"
    )
    code = Holder("7", ("/usr/bin/python3", "-c", "import x\nx.run()  " + "y" * 200))
    assert code.command().startswith("python3 -c import x x.run() yyy")
    assert len(code.command()) == 100


def test_a_holder_not_a_worker_still_points_to_the_workers_query() -> None:
    message = busy_message(Path("/data/store"), Holder(None))
    assert message == (
        "the embedded store /data/store is held by another process (pid unknown); one process "
        "at a time opens a chdb directory: stop that one, or use a ClickHouse server "
        "(http://...) for concurrent access (while a worker runs, queries go through it: "
        "http://127.0.0.1:6066/query?sql=...)"
    )
