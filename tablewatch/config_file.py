"""Loading the table configuration YAML file."""

from __future__ import annotations

from pathlib import Path

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
