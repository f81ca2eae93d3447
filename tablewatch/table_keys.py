"""The tables' HMAC keys, read from the environment variables their configuration names.

A table's ``keys`` (``{KID: ENV_VAR_NAME}``, :mod:`tablewatch.rules.config_optional`)
name variables; the key is the variable's value as UTF-8 bytes, used as it is. Only what
signs or verifies reads them (``serve-ingest`` and ``tablewatch ingest`` with
``--config``, ``tablewatch sign``): the worker and the audit never need a key.

A variable unset or empty is refused with the table, the key and the variable's name.
Neither the refusal nor any ``repr`` shows a key's bytes, so a key never reaches a log.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from tablewatch.config_file import load_config
from tablewatch.rules.config import ConfigError
from tablewatch.rules.table_config import TableConfig


class TableKey:
    """One key of a table: its ``kid``, the variable it was read from, and its bytes
    (:attr:`secret`), which its ``repr`` leaves out."""

    __slots__ = ("_secret", "kid", "variable")

    def __init__(self, kid: str, variable: str, secret: bytes) -> None:
        self.kid = kid
        self.variable = variable
        self._secret = secret

    @property
    def secret(self) -> bytes:
        return self._secret

    def __repr__(self) -> str:
        return f"TableKey(kid={self.kid!r}, variable={self.variable!r})"

    def __reduce__(self) -> NoReturn:  # never pickled (to a --jobs process, a log handler...)
        raise TypeError("a TableKey is not pickled")


@dataclass(frozen=True, slots=True)
class TableKeys:
    """The current keys of one table, in its configuration's order, and whether it requires
    signed events."""

    table_id: str
    required: bool
    keys: Mapping[str, TableKey]  # by kid

    @property
    def first(self) -> TableKey:
        """The key ``tablewatch sign`` signs with: the first in the configuration."""
        return next(iter(self.keys.values()))


def load_keys(
    configs: Mapping[str, TableConfig], environ: Mapping[str, str] | None = None
) -> dict[str, TableKeys]:
    """The keys of every table that has some, from ``environ`` (the process's environment
    by default); :class:`ConfigError` for a variable unset or empty."""
    env = os.environ if environ is None else environ
    tables: dict[str, TableKeys] = {}
    for table_id, config in configs.items():
        if not config.keys:
            continue
        keys: dict[str, TableKey] = {}
        for kid, variable in config.keys.items():
            value = env.get(variable)
            if value is None:
                raise ConfigError(
                    f"table {table_id}: keys.{kid}: environment variable {variable} is not set "
                    "(it holds the key)"
                )
            if not value:
                raise ConfigError(
                    f"table {table_id}: keys.{kid}: environment variable {variable} is empty "
                    "(it holds the key)"
                )
            keys[kid] = TableKey(kid, variable, value.encode("utf-8", "surrogateescape"))
        tables[table_id] = TableKeys(table_id, config.signing_required, keys)
    return tables


def load_keys_of_file(path: Path, environ: Mapping[str, str] | None = None) -> dict[str, TableKeys]:
    """:func:`load_keys` of the configuration file ``path`` (refusals start with it)."""
    configs = load_config(path)
    try:
        return load_keys(configs, environ)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
