"""A reader of standard output that went away (``| head -1``) ends a command quietly, 141."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from tablewatch.closed_pipe import EXIT_CLOSED_PIPE
from tablewatch.lazy_commands import LazyGroup

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _with_closed_stdout(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    """``tablewatch ARGS`` writing into a pipe whose reading end is already closed."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [sys.executable, "-m", "tablewatch.cli", *args],
            stdout=write,
            stderr=subprocess.PIPE,
            check=False,
            timeout=120,
        )
    finally:
        os.close(write)


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_audit_into_a_closed_pipe(fmt: str) -> None:
    events, config = EXAMPLES / "shift.jsonl", EXAMPLES / "tables.yaml"
    done = _with_closed_stdout(["audit", str(events), "--config", str(config), "--format", fmt])
    assert (done.returncode, done.stderr) == (EXIT_CLOSED_PIPE, b"")


def test_audit_jobs_into_a_closed_pipe() -> None:
    events, config = EXAMPLES / "shift.jsonl", EXAMPLES / "tables.yaml"
    done = _with_closed_stdout(["audit", str(events), "--config", str(config), "--jobs", "2"])
    assert (done.returncode, done.stderr) == (EXIT_CLOSED_PIPE, b"")


def test_simulate_follow_into_a_closed_pipe() -> None:
    done = _with_closed_stdout(["simulate", "--follow", "--rounds", "20", "--speed", "1e9"])
    assert (done.returncode, done.stderr) == (EXIT_CLOSED_PIPE, b"")


def test_a_broken_pipe_elsewhere_is_an_error() -> None:
    """A socket's broken pipe (a server that hung up) is not a closed stdout."""

    @click.command()
    def hung_up() -> None:
        raise BrokenPipeError(32, "Broken pipe")

    group = LazyGroup("tablewatch", lazy={})
    group.add_command(hung_up, "hung-up")
    result = CliRunner().invoke(group, ["hung-up"])
    assert result.exit_code == 2
    assert result.output == (
        "Error: the other end closed a connection this was writing to ([Errno 32] Broken pipe)\n"
    )
