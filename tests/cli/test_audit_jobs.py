"""`tablewatch audit --jobs N`: the tables shared among processes, the output unchanged."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from tablewatch.commands import audit as audit_module
from tablewatch.commands.audit import audit, jobs_for
from tablewatch.rules.decode import encode_event
from tablewatch.sim.floor import Floor


@pytest.fixture(scope="module")
def floor(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A small simulated floor with injected errors: (events file, configuration)."""
    out = tmp_path_factory.mktemp("floor")
    floor = Floor(tables=6, rounds=400, seed=3, error_rate=0.2, jackpot_rate=0.05)
    config = out / "tables.yaml"
    config.write_text(yaml.safe_dump(floor.config, sort_keys=False))
    events = out / "events.jsonl"
    events.write_bytes(b"".join(encode_event(event) + b"\n" for event in floor.events()))
    return events, config


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(audit, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("fmt", ["json", "table"])
def test_same_findings_and_exit_code_as_one_process(floor: tuple[Path, Path], fmt: str) -> None:
    events, config = floor
    one = run(str(events), "--config", str(config), "--format", fmt, "--jobs", "1")
    two = run(str(events), "--config", str(config), "--format", fmt, "--jobs", "2")
    three = run(str(events), "--config", str(config), "--format", fmt, "--jobs", "3")
    assert one[0] == 1
    assert one[1].count("\n") > 50  # findings of many checks, from every table
    assert two == one  # the same lines in the same order, the same summary
    assert three == one


def test_bad_lines_are_reported_once(floor: tuple[Path, Path], tmp_path: Path) -> None:
    events, config = floor
    lines = events.read_bytes().splitlines()
    lines[10] = lines[10].replace(b'"seq":', b'"seq":"x","old_seq":')  # a known table
    lines[20] = b"not json at all"  # no table to route it by
    lines[30] = b""  # blank: skipped
    lines[40] = b'{"type":"meter","table_id":"NOWHERE"}'  # not an event
    lines.insert(50, lines[50].replace(b'"table_id":"', b'"table_id":"NEW-'))  # not configured
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"\n".join(lines) + b"\n")
    one = run(str(bad), "--config", str(config), "--format", "json", "--jobs", "1")
    two = run(str(bad), "--config", str(config), "--format", "json", "--jobs", "2")
    assert one[0] == 2
    assert "TABLE_NOT_CONFIGURED" in one[1]
    assert two == one
    stderr = two[2].replace("\n", "")  # unwrapped (the console folds long lines)
    assert stderr.count("rejected:") == 3
    assert re.findall(re.escape(str(bad)) + r":(\d+)", stderr) == ["11", "21", "41"]


def test_unreadable_file_exits_2_after_the_readable_ones(
    floor: tuple[Path, Path], tmp_path: Path
) -> None:
    events, config = floor
    missing = tmp_path / "missing.jsonl"
    one = run(str(events), str(missing), "--config", str(config), "--format", "json", "--jobs", "1")
    two = run(str(events), str(missing), "--config", str(config), "--format", "json", "--jobs", "2")
    assert one[0] == 2
    assert "missing.jsonl" in one[2]
    assert two == one


def test_jobs_auto_shares_only_large_inputs_among_the_cores(
    floor: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events, _ = floor
    missing = tmp_path / "missing.jsonl"
    assert jobs_for([events, missing], None) == 1  # a small input: one process
    assert jobs_for([events], 3) == 3
    monkeypatch.setattr(audit_module, "AUTO_JOBS_BYTES", events.stat().st_size)
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1})
    assert jobs_for([events], None) == 2  # as large as the limit: every core
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(16)))
    assert jobs_for([events], None) == audit_module.AUTO_JOBS_MAX


@pytest.mark.parametrize("jobs", ["0", "-1", "two", ""])
def test_jobs_must_be_a_count_or_auto(floor: tuple[Path, Path], jobs: str) -> None:
    events, config = floor
    code, _, stderr = run(str(events), "--config", str(config), "--jobs", jobs)
    assert code == 2
    assert "Invalid value for '--jobs'" in stderr
    assert "neither a count of 1 or more nor 'auto'" in stderr
