"""Loading the table configuration YAML file."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import yaml

from tablewatch.rules.config import ConfigError, TableConfig, parse_config


def load_config(path: Path) -> dict[str, TableConfig]:
    """Read and validate ``path``; raises :class:`ConfigError` with every problem, each
    prefixed with the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(yaml_problem(path, exc)) from None
    try:
        return parse_config(document)
    except ConfigError as exc:
        raise exc.within(str(path)) from None


def entry_digests(path: Path) -> dict[str, str]:
    """Each table's SHA-256 (hex) of its own entry in the file at ``path``, as JSON with
    sorted keys: the same for the same keys and values however the YAML is written
    (order, comments, quoting), different once any of them changes. Read the file after
    :func:`load_config` accepted it; a table whose entry cannot be found gets none."""
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    tables = document.get("tables") if isinstance(document, dict) else None
    if not isinstance(tables, dict):
        return {}
    return {str(table_id): _digest(entry) for table_id, entry in tables.items()}


def _digest(entry: Any) -> str:
    text = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def yaml_problem(path: Path, exc: yaml.YAMLError) -> str:
    """One line: ``FILE:LINE:COLUMN: not valid YAML: what`` (1-based, where the parser
    stopped), and what it was reading from where, when it says."""
    if not isinstance(exc, yaml.MarkedYAMLError) or exc.problem_mark is None:
        return f"{path}: not valid YAML: {exc}"
    mark = exc.problem_mark
    text = f"{path}:{mark.line + 1}:{mark.column + 1}: not valid YAML: {exc.problem}"
    if exc.context:
        text += f" ({exc.context}"
        if exc.context_mark is not None:
            at = exc.context_mark
            text += f" that begins at line {at.line + 1}, column {at.column + 1}"
        text += ")"
    return text
