"""The HTTP endpoint's limits on what a client may hold and for how long (no aiohttp here:
the command line reads the defaults without importing the server).

A body's size and its count of events are :class:`tablewatch.ingest.batch.Limits`.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_CONNECTIONS = 256  # open at once; one more is answered 503 and closed
HEADER_TIMEOUT_S = 10.0  # a connection idle, or sending a request line and headers
BODY_TIMEOUT_S = 30.0  # receiving one body; then 408 and closed
MAX_WAITING = 8  # batches read and waiting for the ingest thread; one more: 503
WAIT_TIMEOUT_S = 10.0  # a batch's wait for its turn; then 503


@dataclass(frozen=True, slots=True)
class ServerLimits:
    max_connections: int = MAX_CONNECTIONS
    header_timeout_s: float = HEADER_TIMEOUT_S
    body_timeout_s: float = BODY_TIMEOUT_S
    max_waiting: int = MAX_WAITING
    wait_timeout_s: float = WAIT_TIMEOUT_S

    def __post_init__(self) -> None:
        if self.max_connections < 1 or self.max_waiting < 1:
            raise ValueError("max_connections and max_waiting are at least 1")
        if min(self.header_timeout_s, self.body_timeout_s, self.wait_timeout_s) <= 0:
            raise ValueError("timeouts are more than 0 seconds")


DEFAULT_SERVER_LIMITS = ServerLimits()
