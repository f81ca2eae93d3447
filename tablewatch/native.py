"""The rules engine compiled with mypyc: the same sources, about a quarter less time an audit.

``tablewatch native build`` compiles the modules of
:mod:`tablewatch.rules` (all but :data:`KEPT_PURE`) into ``.native/`` beside
the package, with a manifest keyed by a hash of every ``rules`` source, the
Python ABI and the mypy version. On import, :mod:`tablewatch` calls
:func:`activate`: when the manifest matches the sources as they are now, a
finder loads the compiled modules in place of the ``.py`` files. Any edit to
``rules/`` makes the build stale, and the pure-Python modules are used until
it is built again (``scripts/setup.sh`` rebuilds it; ``make test`` and
``make demo`` run setup first). ``TABLEWATCH_PURE_PYTHON=1`` turns it off.

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
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
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


STATUS = Status(False, "not looked for yet")


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


def build_key() -> str:
    """What a build was made from: every rules source, the Python ABI, the mypy version."""
    digest = hashlib.sha256()
    digest.update(importlib.machinery.EXTENSION_SUFFIXES[0].encode())
    digest.update(_mypy_version().encode())
    for path in sorted(RULES.rglob("*.py")):
        digest.update(str(path.relative_to(RULES)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def _mypy_version() -> str:
    try:
        from importlib.metadata import version

        return version("mypy")
    except Exception:  # no mypy here: no build can match
        return "none"


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
    """The manifest of the build in ``directory``, or None if there is none."""
    manifest = directory / MANIFEST
    if not manifest.exists():
        return None
    built: dict[str, Any] = json.loads(manifest.read_text())
    return built


def activate() -> Status:
    """Load the compiled modules from now on, if a build matches the sources."""
    global STATUS
    STATUS = _activate()
    return STATUS


def _activate() -> Status:
    if os.environ.get(DISABLE_ENV):
        return Status(False, f"{DISABLE_ENV} is set")
    built = _manifest(BUILD_DIR)
    if built is None:
        return Status(False, f"no build in {BUILD_DIR} (tablewatch native build)")
    if built.get("key") != build_key():
        return Status(False, f"the build in {BUILD_DIR} is stale: rules/ changed since")
    if any(name in sys.modules for name in built["modules"]):
        return Status(False, "rules modules were imported before tablewatch")
    files = {name: BUILD_DIR / file for name, file in built["modules"].items()}
    sys.meta_path.insert(0, _NativeFinder(files))
    return Status(True, f"compiled modules from {BUILD_DIR}")


def build(out: Path = BUILD_DIR) -> None:
    """Compile the rules with mypyc into ``out`` (about a minute); nothing if up to date."""
    key = build_key()
    built = _manifest(out)
    if built is not None and built.get("key") == key:
        print(f"{out}: up to date")
        return
    modules = compiled_modules()
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        shutil.copytree(
            PACKAGE, work / PACKAGE.name, ignore=shutil.ignore_patterns("__pycache__", "*.so")
        )
        sources = [str(Path(*name.split("."))) + ".py" for name in modules]
        mypyc = Path(sys.executable).parent / "mypyc"
        subprocess.run([str(mypyc), *sources], cwd=work, check=True, stdout=subprocess.DEVNULL)
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
        (staged / MANIFEST).write_text(json.dumps({"key": key, "modules": files}, indent=1))
    if out.exists():
        shutil.rmtree(out)
    staged.rename(out)
    print(f"{out}: {len(modules)} rules modules compiled")
