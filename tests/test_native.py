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


def test_importing_tablewatch_loads_and_installs_nothing() -> None:
    code = (
        "import sys\n"
        "finders = len(sys.meta_path)\n"
        "import tablewatch\n"
        "assert len(sys.meta_path) == finders, sys.meta_path\n"
        "assert 'tablewatch.native' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_audit_command_runs_compiled() -> None:
    examples = Path(__file__).resolve().parent.parent / "examples"
    code = (
        "import sys\n"
        "from tablewatch.cli import main\n"
        "from tablewatch import native\n"
        f"args = ['audit', {str(examples / 'shift.jsonl')!r}, '--config', "
        f"{str(examples / 'tables.yaml')!r}]\n"
        "try:\n"
        "    main(args)\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(native.STATUS.active, sys.modules['tablewatch.rules.round'].__file__)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != native.DISABLE_ENV}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, check=True)
    active, file = done.stdout.decode().splitlines()[-1].split(" ", 1)
    assert active == "True"
    assert file.endswith(SUFFIX)


def test_activate_is_once_a_process() -> None:
    finders = list(sys.meta_path)
    assert native.activate() is native.activate() is native.STATUS
    assert sys.meta_path == finders


def _fake_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """rules/ of two sources, and a build of them (no compiled files: nothing to load)."""
    rules = tmp_path / "rules"
    (rules / "games").mkdir(parents=True)
    (rules / "cards.py").write_text("CARDS = 52\n")
    (rules / "games" / "poker.py").write_text("NAME = 'poker'\n")
    build = tmp_path / "build"
    build.mkdir()
    sources = {
        str(path.relative_to(rules)): {
            "size": path.stat().st_size,
            "mtime_ns": path.stat().st_mtime_ns,
            "sha256": "",
        }
        for path in sorted(rules.rglob("*.py"))
    }
    monkeypatch.setattr(native, "RULES", rules)
    monkeypatch.setattr(native, "BUILD_DIR", build)
    monkeypatch.delenv(native.DISABLE_ENV, raising=False)
    for relative, record in sources.items():
        record["sha256"] = native._sha256(relative)
    manifest = {"abi": native.abi(), "mypy": "1.0", "sources": sources, "modules": {}}
    (build / native.MANIFEST).write_text(json.dumps(manifest))
    return rules


def test_a_build_matches_by_size_and_time_then_by_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = _fake_build(tmp_path, monkeypatch)
    assert native.check().active
    cards = rules / "cards.py"
    os.utime(cards, ns=(cards.stat().st_atime_ns, cards.stat().st_mtime_ns + 10**9))
    assert native.check().active, "touched, the same bytes"
    hashed: list[str] = []
    real = native._sha256

    def counted(relative: str) -> str:
        hashed.append(relative)
        return real(relative)

    monkeypatch.setattr(native, "_sha256", counted)
    assert native.check().active
    assert hashed == ["cards.py"], "only the source whose stat differs is hashed"
    cards.write_text("CARDS = 53\n")
    status = native.check()
    assert not status.active
    assert "stale: tablewatch/rules/cards.py changed since" in status.reason
    (rules / "games" / "dice.py").write_text("")
    assert "tablewatch/rules/cards.py changed and 1 more since" in native.check().reason
    cards.unlink()
    (rules / "games" / "dice.py").unlink()
    assert "tablewatch/rules/cards.py removed since" in native.check().reason


def test_a_build_for_another_python_is_not_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_build(tmp_path, monkeypatch)
    manifest = json.loads((native.BUILD_DIR / native.MANIFEST).read_text())
    manifest["abi"] = ".cpython-310-x86_64-linux-gnu.so"
    (native.BUILD_DIR / native.MANIFEST).write_text(json.dumps(manifest))
    reason = native.check().reason
    assert f"is for .cpython-310-x86_64-linux-gnu.so, this Python loads {native.abi()}" in reason


def test_status_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rules = _fake_build(tmp_path, monkeypatch)
    monkeypatch.setattr(native, "mypy_version", lambda: "1.0")
    assert native.describe() == [
        f"in use: 0 compiled rules modules from {native.BUILD_DIR}, built from the sources "
        "as they are",
        "build: mypy 1.0, " + native.abi() + ", 2 sources",
    ]
    (rules / "cards.py").write_text("CARDS = 53\n")
    monkeypatch.setattr(native, "mypy_version", lambda: "2.0")
    assert native.describe() == [
        f"not in use: the build in {native.BUILD_DIR} is stale: tablewatch/rules/cards.py "
        "changed since",
        f"the rules run as Python; {native.BUILD_HINT}",
        "build: mypy 1.0, " + native.abi() + ", 2 sources (mypy 2.0 is installed: a build "
        "would compile them again)",
    ]
    monkeypatch.setenv(native.DISABLE_ENV, "1")
    assert (
        native.describe()[0] == f"not in use: {native.DISABLE_ENV} is set: the rules run as Python"
    )


def test_status_command_exit_code_and_first_line() -> None:
    env = {k: v for k, v in os.environ.items() if k != native.DISABLE_ENV}
    command = [sys.executable, "-m", "tablewatch.cli", "native", "status"]
    used = subprocess.run(command, env=env, capture_output=True, check=False)
    assert used.returncode == 0
    assert used.stdout.decode().startswith("in use: ")
    env[native.DISABLE_ENV] = "1"
    pure = subprocess.run(command, env=env, capture_output=True, check=False)
    assert pure.returncode == 1
    assert pure.stdout.decode().splitlines()[0] == (
        f"not in use: {native.DISABLE_ENV} is set: the rules run as Python"
    )
