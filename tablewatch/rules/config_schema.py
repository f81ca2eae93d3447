"""One table's entry in the configuration file, as written (before the regulation's checks).

A msgspec Struct, in a module of its own: the rest of the configuration is
compiled by mypyc (tablewatch.native), which compiles classes of its own kind only.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec


class RawTable(msgspec.Struct, forbid_unknown_fields=True):
    """A table as the file gives it; :func:`~tablewatch.rules.config.parse_table` checks it."""

    game: str
    paytables: dict[str, str | dict[str, Any]] = {}  # {rows: [...]} or {hand: odds}
    counting_shuffler: bool = False
    payout_limit: int | None = None
    progressive_reset: int | None = None
    progressive_rate: float | None = None
    dealing: Literal["hand", "manual_shoe", "automated_shoe"] | None = None
    # carrying no rule, the same for every game: checked by rules/config_optional.py
    pit: Any = None
    cameras: Any = None
    signing: Any = "off"
    keys: Any = None
    # the thresholds of the patterns across rounds: checked by rules/config_patterns.py
    patterns: Any = None
