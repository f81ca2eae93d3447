"""`tablewatch audit --jobs N`: the tables shared among processes, the output unchanged."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from tablewatch.commands.audit import audit
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
    one = run(str(events), "--config", str(config), "--format", fmt)
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
    one = run(str(bad), "--config", str(config), "--format", "json")
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
    one = run(str(events), str(missing), "--config", str(config), "--format", "json")
    two = run(str(events), str(missing), "--config", str(config), "--format", "json", "--jobs", "2")
    assert one[0] == 2
    assert "missing.jsonl" in one[2]
    assert two == one
