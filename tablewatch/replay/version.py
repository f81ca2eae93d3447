"""What a replay run records of the rules and the configuration it judged with."""

from __future__ import annotations

import hashlib
from importlib import metadata
from pathlib import Path

RULES = Path(__file__).resolve().parent.parent / "rules"


def rules_sources_sha256(root: Path = RULES) -> str:
    """SHA-256 over every ``rules/**.py`` (its path from ``rules/`` and its bytes, in path
    order): any change to the engine's sources changes it."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        data = path.read_bytes()
        digest.update(f"{relative}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def package_version() -> str:
    try:
        return metadata.version("tablewatch")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def rules_version() -> str:
    """``<package version>+rules.<first 16 hex digits of rules_sources_sha256()>``."""
    return f"{package_version()}+rules.{rules_sources_sha256()[:16]}"


def config_sha256(path: Path) -> str:
    """SHA-256 of the configuration file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()
