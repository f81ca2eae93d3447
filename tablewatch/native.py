"""The rules engine compiled with mypyc: the same sources, about a quarter less time an audit.

``tablewatch native build`` compiles the modules of :mod:`tablewatch.rules`
(all but :data:`KEPT_PURE`) into ``.native/`` beside the package, with a
manifest of the sources it was built from (each file's size, modification
time and SHA-256), the Python ABI and the mypy version.

Nothing is loaded by ``import tablewatch``. The entry points that run the
rules (the ``tablewatch`` commands that judge, decode or simulate, the
``--jobs`` processes, the test suite) call :func:`activate` once, before any
module of ``tablewatch.rules`` is imported: when every source still has the
size and modification time the manifest recorded (a stat of each, well under
a millisecond), or else the same SHA-256, a finder loads the compiled modules
in place of the ``.py`` files. Any edit to ``rules/`` makes the build stale,
and the pure-Python modules are used until it is built again
(``scripts/setup.sh`` rebuilds it; ``make test`` and ``make demo`` run setup
first). ``TABLEWATCH_PURE_PYTHON=1`` turns it off. ``tablewatch native
status`` says which is in use, and why.

All or nothing: compiled modules call each other directly, so they are only
ever loaded together, from one build. Nothing here changes a result: the test
suite runs on the compiled modules, and ``tests/test_native.py`` compares a
compiled audit with a pure-Python one byte for byte.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import Any

PACKAGE = Path(__file__).resolve().parent
RULES = PACKAGE / "rules"
BUILD_DIR = PACKAGE.parent / ".native"
MANIFEST = "manifest.json"
DISABLE_ENV = "TABLEWATCH_PURE_PYTHON"
BUILD_HINT = "run `tablewatch native build` (about a minute)"

# Modules of rules/ left as Python, and why.
KEPT_PURE = {
    # msgspec Structs: mypyc compiles classes of its own kind only.
    "tablewatch.rules.events": "msgspec Structs (the protocol events)",
    "tablewatch.rules.placed_wager": "a msgspec Struct (a wager on the layout)",
    "tablewatch.rules.settlement.lines": "msgspec Structs (the expected lines)",
    "tablewatch.rules.round_result": "a msgspec Struct (RoundResult)",
    "tablewatch.rules.config_schema": "a msgspec Struct (a table as the file gives it)",
    "tablewatch.rules.decode": "msgspec decoding, already C",
    # Pickled from one --jobs process to another: a compiled frozen dataclass
    # cannot be unpickled.
    "tablewatch.rules.findings": "pickled between --jobs processes",
}


@dataclass(frozen=True, slots=True)
class Status:
    active: bool
    reason: str  # why not, or where from


STATUS = Status(False, "not activated: nothing in this process has run the rules yet")
_activated = False


def rules_modules() -> list[str]:
    """Every module of ``tablewatch.rules`` (packages' ``__init__`` left out), sorted."""
    names = []
    for path in sorted(RULES.rglob("*.py")):
        if path.name != "__init__.py":
            relative = path.relative_to(PACKAGE.parent).with_suffix("")
            names.append(".".join(relative.parts))
    return names


def compiled_modules() -> list[str]:
    return [name for name in rules_modules() if name not in KEPT_PURE]


def abi() -> str:
    """The suffix of this interpreter's extension modules: what a build must be made for."""
    return importlib.machinery.EXTENSION_SUFFIXES[0]


def mypy_version() -> str:
    try:
        from importlib.metadata import version

        return version("mypy")
    except Exception:  # no mypy here: nothing can be built
        return "none"


def _sources() -> dict[str, os.stat_result]:
    """Every source of ``rules/`` (relative path -> its stat)."""
    return {str(path.relative_to(RULES)): path.stat() for path in sorted(RULES.rglob("*.py"))}


def _sha256(relative: str) -> str:
    return hashlib.sha256((RULES / relative).read_bytes()).hexdigest()


def _source_record(relative: str, stat: os.stat_result) -> dict[str, Any]:
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": _sha256(relative)}


def build_key(sources: dict[str, dict[str, Any]], mypy: str, suffix: str) -> str:
    """What a build was made from, in one hash: its sources' hashes, the ABI, the mypy version."""
    digest = hashlib.sha256(f"{suffix}\0{mypy}\0".encode())
    for relative in sorted(sources):
        digest.update(f"{relative}\0{sources[relative]['sha256']}\0".encode())
    return digest.hexdigest()


def changed_sources(recorded: dict[str, dict[str, Any]]) -> list[str]:
    """The sources of ``rules/`` that differ from ``recorded`` (a manifest's), as
    ``tablewatch/rules/<path> changed|added|removed``. A source whose size and modification time
    are those recorded is taken as unchanged; any other is hashed."""
    now = _sources()
    changes = []
    for relative in sorted(now.keys() | recorded.keys()):
        stat, record = now.get(relative), recorded.get(relative)
        if stat is None:
            changes.append(f"tablewatch/rules/{relative} removed")
        elif record is None:
            changes.append(f"tablewatch/rules/{relative} added")
        elif not _unchanged(relative, stat, record):
            changes.append(f"tablewatch/rules/{relative} changed")
    return changes


def _unchanged(relative: str, stat: os.stat_result, record: dict[str, Any]) -> bool:
    """As recorded: the same size and modification time, or else the same SHA-256."""
    if (stat.st_size, stat.st_mtime_ns) == (record.get("size"), record.get("mtime_ns")):
        return True
    return _sha256(relative) == record.get("sha256")


class _NativeFinder(importlib.abc.MetaPathFinder):
    """Finds the compiled modules of one build (the module name -> its extension file)."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        file = self.files.get(fullname)
        if file is None:
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, str(file))
        return importlib.util.spec_from_file_location(fullname, file, loader=loader)


def _manifest(directory: Path) -> dict[str, Any] | None:
    """The manifest of the build in ``directory``, or None if there is none (or unreadable)."""
    try:
        built = json.loads((directory / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    return built if isinstance(built, dict) else None


def activate() -> Status:
    """Load the compiled modules from now on, if a build matches the sources; once a
    process (later calls return the first answer). Call it before any module of
    ``tablewatch.rules`` is imported."""
    global STATUS, _activated
    if not _activated:
        STATUS = _activate()
        _activated = True
    return STATUS


def check() -> Status:
    """What :func:`activate` would find, without loading anything."""
    return _activate(install=False)


def _activate(install: bool = True) -> Status:
    if os.environ.get(DISABLE_ENV):
        return Status(False, f"{DISABLE_ENV} is set")
    built = _manifest(BUILD_DIR)
    if built is None:
        return Status(False, f"no build in {BUILD_DIR}: {BUILD_HINT}")
    sources, modules = built.get("sources"), built.get("modules")
    if not isinstance(sources, dict) or not isinstance(modules, dict):
        return Status(False, f"the build in {BUILD_DIR} is stale (its manifest lists no sources)")
    if built.get("abi") != abi():
        return Status(
            False, f"the build in {BUILD_DIR} is for {built.get('abi')}, this Python loads {abi()}"
        )
    changes = changed_sources(sources)
    if changes:
        more = f" and {len(changes) - 1} more" if len(changes) > 1 else ""
        return Status(False, f"the build in {BUILD_DIR} is stale: {changes[0]}{more} since")
    files = {name: BUILD_DIR / file for name, file in modules.items()}
    missing = sorted(name for name, file in files.items() if not file.exists())
    if missing:
        return Status(False, f"the build in {BUILD_DIR} is incomplete: no file for {missing[0]}")
    imported = sorted(name for name in modules if name in sys.modules)
    if imported:
        return Status(False, f"{imported[0]} was imported before the engine was activated")
    if install:
        sys.meta_path.insert(0, _NativeFinder(files))
    count = sum(1 for name in modules if not name.endswith("__mypyc"))
    return Status(True, f"{count} compiled rules modules from {BUILD_DIR}")


def describe() -> list[str]:
    """What ``tablewatch native status`` prints: whether the compiled engine is used by
    the commands that run the rules, why, and what the build is."""
    status = check()
    if status.active:
        lines = [f"in use: {status.reason}, built from the sources as they are"]
    elif os.environ.get(DISABLE_ENV):
        lines = [f"not in use: {status.reason}: the rules run as Python"]
    else:
        lines = [f"not in use: {status.reason}", f"the rules run as Python; {BUILD_HINT}"]
    built = _manifest(BUILD_DIR)
    if built is not None and isinstance(built.get("sources"), dict):
        mypy = mypy_version()
        made = (
            f"build: mypy {built.get('mypy')}, {built.get('abi')}, {len(built['sources'])} sources"
        )
        if built.get("mypy") != mypy:
            made += f" (mypy {mypy} is installed: a build would compile them again)"
        lines.append(made)
    return lines


Phase = Callable[[str, int, int], None]  # (what is being done, steps done, steps in all)


def build(out: Path = BUILD_DIR, phase: Phase | None = None) -> None:
    """Compile the rules with mypyc into ``out`` (about a minute); nothing if up to date.

    ``phase`` is told what mypyc is doing as it goes: type checking and writing C,
    compiling the shared library, then each module's extension (steps of a whole)."""
    now = _sources()
    sources = {relative: _source_record(relative, stat) for relative, stat in now.items()}
    mypy, suffix = mypy_version(), abi()
    key = build_key(sources, mypy, suffix)
    built = _manifest(out)
    if built is not None and built.get("key") == key:
        print(f"{out}: up to date")
        return
    import shutil  # the build's modules, not imported by activate()
    import tempfile

    modules = compiled_modules()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        shutil.copytree(
            PACKAGE, work / PACKAGE.name, ignore=shutil.ignore_patterns("__pycache__", "*.so")
        )
        mypyc = str(Path(sys.executable).parent / "mypyc")
        command = [mypyc, *(str(Path(*name.split("."))) + ".py" for name in modules)]
        run_mypyc(command, work, len(modules), phase)
        staged = Path(tempfile.mkdtemp(dir=out.parent, prefix=f"{out.name}."))
        files: dict[str, str] = {}
        for name in modules:
            relative = Path(*name.split(".")).with_suffix(suffix)
            (staged / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(work / relative, staged / relative)
            files[name] = str(relative)
        for shared in work.glob(f"*__mypyc{suffix}"):  # the code of all modules, one library
            shutil.copy2(shared, staged / shared.name)
            files[shared.name.removesuffix(suffix)] = shared.name
        manifest = {
            "key": key, "abi": suffix, "mypy": mypy, "sources": sources, "modules": files,
        }  # fmt: skip
        (staged / MANIFEST).write_text(json.dumps(manifest, indent=1))
    if out.exists():
        shutil.rmtree(out)
    staged.rename(out)
    print(f"{out}: {len(modules)} rules modules compiled")


def run_mypyc(command: list[str], work: Path, count: int, phase: Phase | None) -> None:
    """mypyc (``command``: it and its sources) in ``work``, for ``count`` modules; its
    output is shown only if it fails. ``phase`` follows it by the lines it prints."""
    import subprocess

    steps = count + 2  # type check and C, the shared library, then each module
    if phase:
        phase("type checking, writing C", 0, steps)
    output: list[str] = []
    done = 0
    with subprocess.Popen(
        command, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            output.append(line)
            if phase is None or not line.startswith("building '"):
                continue
            done += 1
            name = line.split("'")[1]
            if name.endswith("__mypyc"):  # the code of all modules, from one C file
                phase("compiling the C code (gcc)", done, steps)
            else:
                phase(f"module {name.removeprefix('tablewatch.rules.')}", done, steps)
    if process.returncode != 0:
        sys.stderr.write("".join(output))
        raise subprocess.CalledProcessError(process.returncode, command)
    if phase:
        phase("done", steps, steps)
