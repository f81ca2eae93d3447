"""The embedded engine's limits, as :func:`connect` reports them (see docs/store.md)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from clickhouse_connect.driver.client import Client

from tablewatch.store.client import StoreBusy, connect, open_store
from tests.store.conftest import dsn_of

HOLD = """
import sys, time
from tablewatch.store.client import connect
client = connect(sys.argv[1])
client.command("SELECT 1")
print("open", flush=True)
sys.stdin.read()
client.close()
"""


def test_two_clients_on_one_directory_share_it(store: Client, store_dsn: str) -> None:
    with open_store(store_dsn) as other:
        other.command("CREATE TABLE shared (x Int64) ENGINE = MergeTree ORDER BY x")
        other.insert("shared", [[1], [2]], column_names=["x"])
        ((n,),) = store.query("SELECT count() FROM shared").result_rows
        assert n == 2
    # threads may query at once
    errors: list[BaseException] = []

    def count() -> None:
        try:
            with open_store(store_dsn) as mine:
                for _ in range(5):
                    mine.query("SELECT count() FROM shared")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=count) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_another_directory_is_refused_while_a_client_is_open(store: Client, tmp_path: Path) -> None:
    with pytest.raises(StoreBusy, match="one directory per process"):
        connect(dsn_of(tmp_path / "other"))


def test_another_directory_opens_once_every_client_is_closed(tmp_path: Path) -> None:
    for name in ("one", "two", "one"):
        with open_store(dsn_of(tmp_path / name)) as client:
            client.command("CREATE TABLE IF NOT EXISTS t (x Int64) ENGINE = MergeTree ORDER BY x")
            client.insert("t", [[1]], column_names=["x"])
    with open_store(dsn_of(tmp_path / "one")) as client:
        ((n,),) = client.query("SELECT count() FROM t").result_rows
        assert n == 2


def test_a_directory_held_by_another_process_is_refused(tmp_path: Path) -> None:
    dsn = dsn_of(tmp_path / "held")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, dsn],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "open"
        with pytest.raises(StoreBusy, match=f"is held by pid {holder.pid} \\(python -c "):
            connect(dsn)
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)
    # released: this process may open it now
    deadline = time.monotonic() + 10
    while True:
        try:
            with open_store(dsn) as client:
                client.command("SELECT 1")
            break
        except StoreBusy:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
