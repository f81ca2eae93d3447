"""`tablewatch live` (what `make demo` runs) serves the auditor pages while it runs and ends
by printing the floor's URL and a round page with a finding, both answering meanwhile; the
floor is stamped in the present; Ctrl-C while it serves them stops it cleanly."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tablewatch.services import free_port

pytestmark = pytest.mark.integration


def test_live_prints_the_floor_and_a_round_with_a_finding_served_meanwhile(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    api_port = free_port()
    args = [
        sys.executable, "-m", "tablewatch.cli", "live", "--tables", "4", "--seconds", "12",
        "--speed", "60", "--error-rate", "0.2", "--linger", "60", "--dir", str(tmp_path),
        "--bootstrap", kafka_bootstrap, "--worker-port", str(free_port()),
        "--ingest-port", str(free_port()), "--api-port", str(api_port),
    ]  # fmt: skip
    env = {**os.environ, "COLUMNS": "250"}
    live = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    assert live.stdout is not None
    seen: list[str] = []
    urls: dict[str, str] = {}
    deadline = time.monotonic() + 300
    try:
        for raw in live.stdout:
            line = raw.decode(errors="replace")
            seen.append(line)
            if match := re.match(r"the floor: (http://\S+)", line):
                urls["floor"] = match.group(1)
            if match := re.match(r"a round with a finding \(.*\): (http://\S+)", line):
                urls["round"] = match.group(1)
                break
            assert time.monotonic() < deadline, "".join(seen[-30:])
        assert set(urls) == {"floor", "round"}, "".join(seen[-40:])
        assert urls["floor"] == f"http://127.0.0.1:{api_port}/"
        # both served while the demo still runs (it lingers)
        with urllib.request.urlopen(urls["floor"], timeout=30) as reply:
            floor = reply.read().decode()
        assert reply.status == 200 and floor.count('<a class="tile') == 4
        # the floor streamed in the present: every table has played rounds today (UTC) and
        # none is stale (an event within 10 minutes)
        tiles = re.findall(
            r'<a class="tile([^"]*)".*?<dt>rounds today</dt><dd[^>]*>(\d+)</dd>', floor, re.S
        )
        assert len(tiles) == 4, floor
        assert all(int(rounds) > 0 for _, rounds in tiles), tiles
        assert not [classes for classes, _ in tiles if "stale" in classes], tiles
        with urllib.request.urlopen(urls["round"], timeout=30) as reply:
            page = reply.read().decode()
        assert reply.status == 200
        assert re.search(r'<tr data-check="[A-Z_]+">', page), page[:2000]
        assert live.poll() is None
    finally:
        live.terminate()
        live.wait(timeout=90)
    # SIGTERM stops its children too: no worker of this run left, the pages no longer served
    assert not [cmd for cmd in _command_lines() if str(tmp_path) in cmd]
    with pytest.raises(OSError):
        urllib.request.urlopen(urls["floor"], timeout=5)


def test_ctrl_c_while_it_serves_the_pages_stops_its_children_then_verifies(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    api_port = free_port()
    args = [
        sys.executable, "-m", "tablewatch.cli", "live", "--tables", "2", "--seconds", "5",
        "--speed", "60", "--linger", "600", "--dir", str(tmp_path),
        "--bootstrap", kafka_bootstrap, "--worker-port", str(free_port()),
        "--ingest-port", str(free_port()), "--api-port", str(api_port),
    ]  # fmt: skip
    # Ctrl-C as at a terminal: SIGINT to the foreground process group, here live's own
    # session; SIGINT at its default (a suite started in the background of a shell without
    # job control inherits it ignored, and Python keeps it ignored)
    live = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        env={**os.environ, "COLUMNS": "250"}, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    assert live.stdout is not None
    seen: list[str] = []
    deadline = time.monotonic() + 300
    try:
        for raw in live.stdout:
            seen.append(raw.decode(errors="replace"))
            if seen[-1].startswith("served for 600 s more"):
                break
            assert time.monotonic() < deadline, "".join(seen[-30:])
        assert seen and seen[-1].startswith("served for 600 s more"), "".join(seen[-40:])
        with urllib.request.urlopen(f"http://127.0.0.1:{api_port}/", timeout=30) as reply:
            assert reply.status == 200
        os.killpg(live.pid, signal.SIGINT)
        rest, _ = live.communicate(timeout=240)
    finally:
        if live.poll() is None:
            live.kill()
            live.wait()
    out = "".join(seen) + rest.decode(errors="replace")
    assert live.returncode == 0, out[-4000:]
    assert "Traceback" not in out, out[-4000:]
    # its children stopped first: none left, the pages no longer served
    assert not [cmd for cmd in _command_lines() if str(tmp_path) in cmd]
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{api_port}/", timeout=5)
    # then tablewatch verify of the run's store, with the key and the record beside the run
    assert "stopped cleanly; data in" in out, out[-4000:]
    assert re.search(r"^tablewatch verify --dsn chdb:///", out, re.M), out[-4000:]
    assert re.search(r"^verify: 2 tables, 2 intact, 0 broken", out, re.M), out[-4000:]


def _command_lines() -> list[str]:
    lines = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            lines.append((proc / "cmdline").read_bytes().replace(b"\0", b" ").decode())
        except OSError:
            continue
    return lines
