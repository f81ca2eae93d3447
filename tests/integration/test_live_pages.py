"""`tablewatch live` (what `make demo` runs) serves the auditor pages while it runs and ends
by printing the floor's URL and a round page with a finding, both answering meanwhile."""

from __future__ import annotations

import os
import re
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


def _command_lines() -> list[str]:
    lines = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            lines.append((proc / "cmdline").read_bytes().replace(b"\0", b" ").decode())
        except OSError:
            continue
    return lines
