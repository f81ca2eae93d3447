"""The compiled rules engine (tablewatch.native): in use here, and the same results as Python."""

from __future__ import annotations

import importlib
import importlib.machinery
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tablewatch import native
from tablewatch.rules.decode import encode_event
from tablewatch.sim.floor import Floor

SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def test_the_suite_runs_on_the_compiled_rules() -> None:
    """scripts/setup.sh builds it before the suite: every other test here judges with it."""
    assert native.STATUS.active, native.STATUS.reason
    for name in native.compiled_modules():
        module = importlib.import_module(name)
        assert module.__file__ is not None
        assert module.__file__.endswith(SUFFIX), name
    for name in native.KEPT_PURE:
        module = importlib.import_module(name)
        assert module.__file__ is not None
        assert module.__file__.endswith(".py"), name


def test_modules_kept_in_python_are_rules_modules() -> None:
    assert set(native.KEPT_PURE) <= set(native.rules_modules())
    assert not set(native.KEPT_PURE) & set(native.compiled_modules())


def _audit(events: Path, config: Path, pure: bool) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k != native.DISABLE_ENV}
    if pure:
        env[native.DISABLE_ENV] = "1"
    command = [sys.executable, "-m", "tablewatch.cli", "audit", str(events), "--config"]
    return subprocess.run(
        [*command, str(config), "--format", "json"], capture_output=True, env=env, check=False
    )


def _status(pure: bool) -> int:
    env = {k: v for k, v in os.environ.items() if k != native.DISABLE_ENV}
    if pure:
        env[native.DISABLE_ENV] = "1"
    command = [sys.executable, "-m", "tablewatch.cli", "native", "status"]
    return subprocess.run(command, env=env, capture_output=True, check=False).returncode


def test_compiled_and_pure_python_audits_agree_byte_for_byte(tmp_path: Path) -> None:
    floor = Floor(tables=8, rounds=1500, seed=11, error_rate=0.2, jackpot_rate=0.05)
    config = tmp_path / "tables.yaml"
    config.write_text(yaml.safe_dump(floor.config, sort_keys=False))
    events = tmp_path / "events.jsonl"
    events.write_bytes(b"".join(encode_event(event) + b"\n" for event in floor.events()))
    assert (_status(pure=False), _status(pure=True)) == (0, 1)
    compiled = _audit(events, config, pure=False)
    pure = _audit(events, config, pure=True)
    assert compiled.returncode == pure.returncode == 1  # findings
    findings = [json.loads(line) for line in compiled.stdout.splitlines()]
    assert len({finding["check"] for finding in findings}) >= 15
    assert compiled.stdout == pure.stdout
    assert compiled.stderr == pure.stderr


def test_a_stale_or_missing_build_is_not_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(native.DISABLE_ENV, raising=False)
    monkeypatch.setattr(native, "BUILD_DIR", tmp_path)
    assert "no build" in native._activate().reason
    (tmp_path / native.MANIFEST).write_text(json.dumps({"key": "other", "modules": {}}))
    status = native._activate()
    assert not status.active
    assert "stale" in status.reason
    monkeypatch.setenv(native.DISABLE_ENV, "1")
    assert native._activate() == native.Status(False, f"{native.DISABLE_ENV} is set")
