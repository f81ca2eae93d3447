"""Loading the table configuration YAML file."""

from __future__ import annotations

from pathlib import Path

import yaml

from tablewatch.rules.config import ConfigError, TableConfig, parse_config


def load_config(path: Path) -> dict[str, TableConfig]:
    """Read and validate ``path``; raises :class:`ConfigError` with the reason."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    try:
        return parse_config(document)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
