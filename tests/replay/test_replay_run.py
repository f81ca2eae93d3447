"""A replay's record of itself: interrupted runs, and the input it refuses."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tablewatch.rules.decode import encode_event
from tablewatch.sim.floor import Floor
from tablewatch.store.client import open_store
from tablewatch.store.migrate import migrate
from tests.replay.helpers import query, replay_cli, write_config, write_events
from tests.replay.test_replay_paytable import config, events


def _open_writer(path: Path, process: subprocess.Popen[bytes], timeout: float = 120) -> int:
    """The write end of the pipe, once the replay opened its read end."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno != errno.ENXIO:
                raise
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the replay never opened its input"
        time.sleep(0.1)


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_an_interrupted_run_is_recorded_as_interrupted(tmp_path: Path, stop: int) -> None:
    floor = Floor(tables=2, rounds=80, seed=7, error_rate=0.3)
    lines = [encode_event(e) + b"\n" for e in floor.events()]
    half = b"".join(lines[: len(lines) // 2])
    assert len(half) > 3 * 65536  # more than a few of the blocks the reader waits for
    tables = write_config(tmp_path / "tables.yaml", floor.config)
    pipe = tmp_path / "events.pipe"
    os.mkfifo(pipe)
    dsn = f"chdb:///{tmp_path / 'store'}"
    # Ctrl-C as at a terminal: a process started in the background by a shell without job
    # control (`cmd &` in a CI script) inherits SIGINT ignored, and Python keeps it ignored,
    # so the replay is started with SIGINT at its default, as from a terminal
    process = subprocess.Popen(
        [sys.executable, "-m", "tablewatch.cli", "replay", "--source", "files", str(pipe),
         "--config", str(tables), "--dsn", dsn],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    writer = _open_writer(pipe, process)
    try:
        os.set_blocking(writer, True)
        os.write(writer, half)  # the rest never comes: the replay waits for it
        time.sleep(3)
        process.send_signal(stop)
        out, err = process.communicate(timeout=120)
    finally:
        os.close(writer)
    assert process.returncode == 130, (out, err)
    assert b"recorded as interrupted" in err
    rows = query(
        dsn,
        "SELECT status, events, findings, finished IS NOT NULL, run_id FROM replay_runs_v",
    )
    assert len(rows) == 1
    status, folded, findings, finished, run_id = rows[0]
    assert (status, finished) == ("interrupted", True)
    assert 0 < folded < len(lines)
    # what it judged before the signal is recorded, and counted
    stored = query(dsn, f"SELECT count() FROM replay_findings_v WHERE run_id = '{run_id}'")
    assert stored[0][0] == findings


def test_bad_input_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    files = write_events(tmp_path / "events.jsonl", events())
    tables = write_config(tmp_path / "tables.yaml", config("A"))
    dsn = f"chdb:///{tmp_path / 'store'}"
    common = ["--config", str(tables), "--dsn", dsn]
    cases = [
        (["--source", "tape", *common],
         "--source 'tape': unknown source (one of files, store, kafka)"),
        (["--source", "files", *common], "--source files needs the PATHS of JSON Lines files"),
        (["--source", "store", str(files), *common], "--source store takes no PATHS"),
        (["--source", "files", str(tmp_path / "none.jsonl"), *common], "none.jsonl: no such file"),
        (["--source", "store", "--since", "last tuesday", *common],
         "--since 'last tuesday': not an ISO 8601 date or time"),
        (["--source", "store", "--since", "2026-12-01T10:00Z", "--until", "2026-12-01T09:00Z",
          *common], "--until 2026-12-01T09:00Z is before --since 2026-12-01T10:00Z"),
        (["--source", "store", "--tables", "LIR-P,LIR-07", *common],
         "--tables: unknown table LIR-07: not in the configuration"),
        (["--source", "store", "--dsn", dsn], "--config TABLES.yaml is needed"),
    ]  # fmt: skip
    for args, reason in cases:
        result = replay_cli(*args)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert result.stderr.startswith("tablewatch replay: "), result.stderr
        assert reason in result.stderr, (reason, result.stderr)
        assert result.stdout == ""
    assert not (tmp_path / "store").exists()  # refused before the store was opened


def test_an_embedded_store_in_use_is_a_clear_error(tmp_path: Path) -> None:
    files = write_events(tmp_path / "events.jsonl", events())
    tables = write_config(tmp_path / "tables.yaml", config("A"))
    dsn = f"chdb:///{tmp_path / 'store'}"
    with open_store(dsn) as client:  # this process holds the folder, as a worker would
        migrate(client)
        result = replay_cli("--source", "files", str(files), "--config", str(tables), "--dsn", dsn)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "the store is in use by another process" in result.stderr
    assert "stop the worker" in result.stderr
    assert "ClickHouse server (--dsn http://...)" in result.stderr
    assert f"pid {os.getpid()}" in result.stderr


def test_the_progress_bar_shows_on_a_terminal_only(tmp_path: Path) -> None:
    import pty

    floor = Floor(tables=2, rounds=80, seed=8, error_rate=0.3)
    lines = [encode_event(e) + b"\n" for e in floor.events()]
    tables = write_config(tmp_path / "tables.yaml", floor.config)
    pipe = tmp_path / "events.pipe"
    os.mkfifo(pipe)
    primary, secondary = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "tablewatch.cli", "replay", "--source", "files", str(pipe),
         "--config", str(tables), "--dsn", f"chdb:///{tmp_path / 'store'}"],
        stdout=secondary, stderr=subprocess.PIPE, env={**os.environ, "COLUMNS": "120"},
    )  # fmt: skip
    os.close(secondary)
    writer = _open_writer(pipe, process)
    os.set_blocking(writer, True)
    os.write(writer, b"".join(lines[: len(lines) // 2]))
    time.sleep(2)  # the bar is drawn while the replay waits for the rest
    os.write(writer, b"".join(lines[len(lines) // 2 :]))
    os.close(writer)
    shown = b""
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # the terminal's other end closed: the replay ended
            break
        if not chunk:
            break
        shown += chunk
    os.close(primary)
    assert process.wait(timeout=120) == 1, process.stderr.read() if process.stderr else ""
    assert b"events/s" in shown and b"ETA" in shown and b"replay (files)" in shown
    assert b"diff against the live findings" in shown  # then the diff, the bar gone


def test_a_file_whose_every_line_is_rejected_is_a_failed_run_and_exit_2(tmp_path: Path) -> None:
    """Nothing accepted, nothing judged: the run is recorded failed, naming why, exit 2; a
    file with some lines rejected and the others good is a complete run as before."""
    tables = write_config(tmp_path / "tables.yaml", config("A"))
    dsn = f"chdb:///{tmp_path / 'store'}"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"v":1}\nnot json\n{"v":1,"event_id":"x","table_id":"LIR-P"}\n')
    result = replay_cli("--source", "files", str(bad), "--config", str(tables), "--dsn", dsn)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stdout == ""
    last = result.stderr.splitlines()[-1]
    assert last.startswith("tablewatch replay: run ")
    assert last.endswith(" failed: no event accepted: each of the 3 events read was rejected")
    mixed = tmp_path / "mixed.jsonl"
    good = write_events(tmp_path / "good.jsonl", events()).read_text()
    mixed.write_text("not json\n" + good)
    result = replay_cli("--source", "files", str(mixed), "--config", str(tables), "--dsn", dsn)
    assert result.returncode in (0, 1), result.stdout + result.stderr
    runs = query(dsn, "SELECT range, status, detail, events, rejected FROM replay_runs_v")
    assert sorted((str(r[0]).split("/")[-1], *r[1:]) for r in runs) == [
        ("bad.jsonl", "failed", "no event accepted: each of the 3 events read was rejected", 0, 3),
        ("mixed.jsonl", "complete", "", len(events()), 1),
    ]
