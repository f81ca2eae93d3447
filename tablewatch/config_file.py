"""Loading the table configuration YAML file."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import yaml
from yaml.reader import ReaderError

from tablewatch import safe_yaml
from tablewatch.rules.config import ConfigError, TableConfig, parse_config


def load_config(path: Path) -> dict[str, TableConfig]:
    """Read and validate ``path``; raises :class:`ConfigError` with every problem, each
    prefixed with the file."""
    try:
        text = safe_yaml.read_text(path)
        document = safe_yaml.safe_load(text)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(not_utf8(path, exc)) from None
    except safe_yaml.YamlRefused as exc:
        where = f"{path}:{exc.line}" if exc.line is not None else str(path)
        raise ConfigError(f"{where}: refused: {exc.reason}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(yaml_problem(path, exc)) from None
    try:
        return parse_config(document)
    except ConfigError as exc:
        raise exc.within(str(path)) from None


def table_entries(path: Path) -> dict[str, str]:
    """Each table's own entry in the file at ``path`` as JSON text with sorted keys, no
    spaces: the same text for the same keys and values however the YAML is written
    (order, comments, quoting), another once any of them changes. Read the file after
    :func:`load_config` accepted it. It holds what the file holds: for a signing table the
    names of the environment variables of its keys, never a key."""
    document = safe_yaml.safe_load(safe_yaml.read_text(path))
    tables = document.get("tables") if isinstance(document, dict) else None
    if not isinstance(tables, dict):
        return {}
    return {str(table_id): entry_json(entry) for table_id, entry in tables.items()}


def entry_json(entry: Any) -> str:
    """A table's entry as the directory keeps it (see :func:`table_entries`)."""
    return json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def entry_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def not_utf8(path: Path, exc: UnicodeDecodeError) -> str:
    """One line: the file is not UTF-8 text, where, and what it looks like instead."""
    start = bytes(exc.object[:4])
    if start[:2] in (b"\xff\xfe", b"\xfe\xff"):
        kind = "UTF-16 text (save it as UTF-8)"
    elif b"\x00" in bytes(exc.object[:4096]):
        kind = "binary data"
    else:
        kind = f"an invalid byte 0x{exc.object[exc.start]:02x}"
    return f"{path}: not UTF-8 text: {kind} at byte {exc.start}"


def yaml_problem(path: Path, exc: yaml.YAMLError) -> str:
    """One line: ``FILE:LINE:COLUMN: not valid YAML: what`` (1-based, where the parser
    stopped), and what it was reading from where, when it says."""
    if isinstance(exc, ReaderError):  # a character YAML refuses (NUL, ...)
        return (
            f"{path}: not valid YAML: {exc.reason} (character #x{exc.character:04x} at "
            f"position {exc.position})"
        )
    if not isinstance(exc, yaml.MarkedYAMLError) or exc.problem_mark is None:
        return f"{path}: not valid YAML: {' '.join(str(exc).split())}"
    mark = exc.problem_mark
    text = f"{path}:{mark.line + 1}:{mark.column + 1}: not valid YAML: {exc.problem}"
    if exc.context:
        text += f" ({exc.context}"
        if exc.context_mark is not None:
            at = exc.context_mark
            text += f" that begins at line {at.line + 1}, column {at.column + 1}"
        text += ")"
    return text
