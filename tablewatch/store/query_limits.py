"""The limits a caller's read-only statement runs under (see :mod:`.read_only`).

Apart from the reader so that the CLI can show the defaults without importing
clickhouse-connect.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

DEFAULT_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class QueryLimits:
    """What one caller's statement may take."""

    seconds: float = DEFAULT_SECONDS
    rows: int = 100_000
    bytes: int = 64 * 2**20
    memory: int = 1 * 2**30

    def settings(self, *, embedded: bool) -> dict[str, Any]:
        """The engine settings, ``readonly`` last (after it nothing can be changed)."""
        settings: dict[str, Any] = {
            "max_execution_time": self.seconds,
            "timeout_overflow_mode": "throw",
            "max_result_rows": self.rows,
            "max_result_bytes": self.bytes,
            "result_overflow_mode": "throw",
            "max_memory_usage": self.memory,
        }
        if embedded:
            settings["allow_python_table_function"] = 0  # chDB's window on this process
        settings["readonly"] = 1
        return settings
