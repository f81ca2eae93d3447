"""``tablewatch simulate --sign``: a floor whose controllers sign their events.

Each table gets ``signing: required`` and one key, ``sim-1``, held by the environment
variable ``TABLEWATCH_KEY_<TABLE>`` (``TABLEWATCH_KEY_LIR_01`` for ``LIR-01``). A
variable already set in the environment is used as it is; the others get a new random
key (32 random bytes, base64url), returned to be written to ``keys.env`` beside
``tables.yaml``. The same seed and the same keys give the same bytes.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tablewatch.rules.decode import encode_event
from tablewatch.rules.events import AnyEvent
from tablewatch.rules.signature import signed

KID = "sim-1"
_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9]")


def key_variable(table_id: str) -> str:
    """The environment variable of a simulated table's key."""
    return "TABLEWATCH_KEY_" + _NOT_IN_NAME.sub("_", table_id).upper()


@dataclass(frozen=True, slots=True)
class FloorKeys:
    """The simulated tables' keys: by table (variable, key), and those made here (variable
    -> value, for ``keys.env``)."""

    keys: Mapping[str, tuple[str, bytes]]
    generated: Mapping[str, str]

    def signed_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """``config`` (the floor's ``{"tables": ...}``) with every table signing."""
        tables = {
            table_id: {**table, "signing": "required", "keys": {KID: self.keys[table_id][0]}}
            for table_id, table in config["tables"].items()
        }
        return {**config, "tables": tables}

    def encoder(self) -> Callable[[AnyEvent], bytes]:
        """Encodes an event and signs it with its table's key."""
        secrets_by_table = {table_id: key for table_id, (_, key) in self.keys.items()}

        def encode(event: AnyEvent) -> bytes:
            return signed(encode_event(event), KID, secrets_by_table[event.table_id])

        return encode

    def env_file(self) -> str:
        """``keys.env``: ``VAR=value`` lines of the generated keys (for ``set -a; . keys.env``)."""
        return "".join(f"{variable}={value}\n" for variable, value in self.generated.items())


def floor_keys(
    table_ids: list[str], environ: Mapping[str, str], generate: bool = True
) -> FloorKeys:
    """The tables' keys: from ``environ`` where their variable is set, else made here
    (``generate``) or a ``KeyError`` naming the variables missing."""
    keys: dict[str, tuple[str, bytes]] = {}
    generated: dict[str, str] = {}
    missing = []
    for table_id in table_ids:
        variable = key_variable(table_id)
        value = environ.get(variable) or None
        if value is None:
            if not generate:
                missing.append(variable)
                continue
            value = secrets.token_urlsafe(32)
            generated[variable] = value
        keys[table_id] = (variable, value.encode("utf-8", "surrogateescape"))
    if missing:
        raise KeyError(", ".join(missing))
    return FloorKeys(keys, generated)
