"""The ``access_log`` table (migration 0007): who read what through the worker's endpoints.

Rows are :class:`tablewatch.access.log.AccessRecord` s, in :data:`ACCESS_LOG_COLUMNS`'
order; :class:`AccessLogTable` inserts them through the worker's writing client (the
query endpoints' readers are read-only). Read through ``access_log_v``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from clickhouse_connect.driver.client import Client
    from clickhouse_connect.driver.insert import InsertContext

ACCESS_LOG: Final = "access_log"
ACCESS_LOG_VIEW: Final = "access_log_v"
# readable by the roles that hold read_access_log only (tablewatch.access.roles), never by
# store/read_only.READABLE's everyone
ACCESS_LOG_TABLES: Final = frozenset({ACCESS_LOG, ACCESS_LOG_VIEW})
ACCESS_LOG_COLUMNS: Final = (
    "ts",
    "request_id",
    "principal",
    "role",
    "endpoint",
    "request",
    "outcome",
    "status",
    "rows_returned",
    "elapsed_ms",
    "client",
    "detail",
)
ACCESS_LOG_TYPES: Final = (
    "DateTime64(3, 'UTC')",
    "String",
    "LowCardinality(String)",
    "LowCardinality(String)",
    "LowCardinality(String)",
    "String",
    "LowCardinality(String)",
    "UInt16",
    "UInt64",
    "UInt32",
    "String",
    "String",
)


class AccessLogTable:
    """Inserts into ``access_log`` through one client (its layout read once)."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self._context: InsertContext | None = None

    def insert(self, rows: Sequence[Sequence[object]]) -> int:
        if not rows:
            return 0
        if self._context is None:
            self._context = self.client.create_insert_context(
                ACCESS_LOG, column_names=list(ACCESS_LOG_COLUMNS)
            )
        context = self._context
        context.data = rows
        try:
            self.client.insert(context=context)
        finally:
            context.data = None
        return len(rows)
