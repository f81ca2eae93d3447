"""What is not a file of events is refused at once by every command reading event files
(one reader: tablewatch/ingest/files.py): a device, binary data, another format, and a
named pipe fed no line end. Each command runs in a child process with a timeout: before
the refusal, ``/dev/zero`` was read without end (replay holding the store meanwhile),
which fails these tests by the timeout rather than hanging the suite."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.rounds.golden import write_files

TABLEWATCH = [sys.executable, "-m", "tablewatch.cli"]


def run(args: list[str], timeout: float = 30) -> tuple[int, str, float]:
    start = time.monotonic()
    done = subprocess.run(
        [*TABLEWATCH, *args], capture_output=True, text=True, timeout=timeout, check=False
    )
    return done.returncode, done.stderr, time.monotonic() - start


@pytest.fixture
def config(tmp_path: Path) -> Path:
    _, tables = write_files(tmp_path)
    return tables


@pytest.fixture
def binary(tmp_path: Path) -> Path:
    path = tmp_path / "events.jsonl.gz"
    # bytes 0..255 over and over, a line end every 256 bytes: no line a JSON object
    path.write_bytes(bytes(range(256)) * 1024)
    return path


def test_replay_of_a_device_is_refused_at_once_before_the_store(
    tmp_path: Path, config: Path
) -> None:
    store = tmp_path / "store"
    code, err, seconds = run(
        ["replay", "--source", "files", "--config", str(config), "--dsn", f"chdb:///{store}",
         "/dev/zero"]
    )  # fmt: skip
    assert code == 2
    assert err == "tablewatch replay: /dev/zero: a device, not a file of events\n"
    assert seconds < 10
    assert not store.exists()  # no run recorded, the store not even opened


def test_replay_of_binary_data_is_refused_at_once_naming_the_file(
    tmp_path: Path, config: Path, binary: Path
) -> None:
    store = tmp_path / "store"
    code, err, _ = run(
        ["replay", "--source", "files", "--config", str(config), "--dsn", f"chdb:///{store}",
         str(binary)]
    )  # fmt: skip
    assert code == 2
    assert err.startswith(f"tablewatch replay: {binary}: binary data: ")
    assert "lines are not JSON objects (line 1 begins b'\\x00\\x01" in err
    assert err.count("\n") == 1
    assert not store.exists()


@pytest.mark.parametrize("target", ["/dev/zero", "binary", "text"])
def test_audit_and_rounds_show_refuse_what_is_not_events(
    tmp_path: Path, config: Path, binary: Path, target: str
) -> None:
    text = tmp_path / "tables.csv"
    text.write_text("table_id,round_id\nLIR-G,R-77\nLIR-G,R-78\n")
    path = {"/dev/zero": "/dev/zero", "binary": str(binary), "text": str(text)}[target]
    reason = {
        "/dev/zero": "a device, not a file of events",
        "binary": "binary data: ",
        "text": "not JSON Lines: 3 of its first 3 lines are not JSON objects (line 1 begins "
        "b'table_id,round_i')",
    }[target]
    code, err, _ = run(["audit", "--config", str(config), path])
    assert code == 2
    assert f"{path}: {reason}" in " ".join(err.split())  # the terminal may wrap it
    code, err, _ = run(
        ["rounds", "show", "LIR-G", "R-77", "--events", path, "--config", str(config)]
    )
    assert code == 2
    assert err.startswith(f"tablewatch rounds show: {path}: cannot read: {reason}")
    assert err.count("\n") == 1


def test_a_named_pipe_fed_no_line_end_is_refused_after_its_first_mebibyte(
    tmp_path: Path, config: Path
) -> None:
    fifo = tmp_path / "events.fifo"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"cat /dev/zero > {fifo}"], stderr=subprocess.DEVNULL)
    try:
        code, err, seconds = run(["audit", "--config", str(config), str(fifo)])
    finally:
        writer.kill()
        writer.wait()
    assert code == 2
    assert "not JSON Lines: no line end in its first 1,048,576 bytes" in " ".join(err.split())
    assert seconds < 10
