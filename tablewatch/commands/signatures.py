"""``--config`` of ``serve-ingest`` and ``tablewatch ingest``: the signature rule of its tables."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from tablewatch.ingest.signing import SignatureCheck
from tablewatch.rules.config import ConfigError
from tablewatch.table_keys import load_keys_of_file

EXIT_BAD_INPUT = 2


def signature_check_or_exit(config_path: Path | None, command: str) -> SignatureCheck | None:
    """The signature rule of the tables of ``config_path`` that have keys (read from the
    environment now). None without ``--config``, or when no table has keys: every event is
    then taken as without a configuration. A configuration refused, or a key's variable
    unset or empty: one line on stderr, exit 2. Says on stderr which tables sign (their
    kids and variables, never a key)."""
    if config_path is None:
        return None
    try:
        tables = load_keys_of_file(config_path)
    except ConfigError as exc:
        click.echo(f"{command}: {exc}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    check = SignatureCheck(tables)
    click.echo(f"{command}: {check.describe()}", err=True)
    return check if tables else None
