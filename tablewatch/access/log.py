"""The record of who read what: one :class:`AccessRecord` per request to a guarded endpoint,
kept in a bounded queue in memory and written to the store's ``access_log`` table by
:class:`AccessLogWriter`, on a timer, with the writer's client.

Nothing is lost silently:
- a request takes its place in the queue before it is served; when the queue is full
  (the store has been down for long) it is refused (503) instead of served unrecorded,
  and that refusal is in the process log;
- rows the store does not take are kept and written again (0.5 s doubling to 30 s),
  for as long as it takes;
- a row the store refuses alone on its data (never expected: the rows are plain) and
  rows still queued when the worker stops and the store does not answer in time are
  written to the process log, in full, at ERROR.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Final

log = logging.getLogger("tablewatch.access")

CAPACITY: Final = 10_000  # records waiting for the store before requests are refused
MAX_REQUEST_CHARS: Final = 100_000  # what a record keeps of the request (the SQL)
MAX_DETAIL_CHARS: Final = 2_000
UINT32_MAX: Final = 2**32 - 1

AccessRow = tuple[int, str, str, str, str, str, str, int, int, int, str, str]
InsertRows = Callable[[list[AccessRow]], Awaitable[None]]


class AccessOutcome(StrEnum):
    OK = "ok"  # answered
    UNAUTHENTICATED = "unauthenticated"  # no token, unknown or expired (401)
    FORBIDDEN = "forbidden"  # a role without the permission (403)
    REFUSED = "refused"  # the request itself refused (a statement not allowed: 400)
    FAILED = "failed"  # stopped while running (time, size, memory limits...)
    BUSY = "busy"  # no capacity now (503)
    UNAVAILABLE = "unavailable"  # access control could not decide (503)
    ERROR = "error"  # the server's own fault (500)


@dataclass(frozen=True, slots=True)
class AccessRecord:
    """One request, in the columns of ``access_log`` (store/access_log.py), in order."""

    ts: int  # epoch ms, UTC: when the request arrived
    request_id: str
    principal: str  # '' when the caller is not known (refused, or access control off)
    role: str  # ''
    endpoint: str  # /query, /metrics
    request: str  # the SQL, or what else the request asked
    outcome: str  # AccessOutcome
    status: int  # the HTTP status answered
    rows_returned: int
    elapsed_ms: int
    client: str  # the peer's address
    detail: str  # the reason of a refusal or failure

    def row(self) -> AccessRow:
        return (
            self.ts,
            self.request_id,
            self.principal,
            self.role,
            self.endpoint,
            self.request,
            self.outcome,
            self.status,
            self.rows_returned,
            self.elapsed_ms,
            self.client,
            self.detail,
        )


def new_request_id() -> str:
    return uuid.uuid4().hex


@dataclass(slots=True)
class Entry:
    """A request being served: filled in as it goes, made a record at the end."""

    endpoint: str
    request: str
    client: str
    started_ms: int
    started: float  # perf_counter
    principal: str = ""
    role: str = ""
    outcome: AccessOutcome = AccessOutcome.ERROR
    status: int = 500
    rows_returned: int = 0
    detail: str = ""

    def set(self, outcome: AccessOutcome, status: int, detail: str = "") -> None:
        self.outcome, self.status, self.detail = outcome, status, detail

    def record(self) -> AccessRecord:
        elapsed = round((time.perf_counter() - self.started) * 1000)
        return AccessRecord(
            self.started_ms,
            new_request_id(),
            self.principal[:256],
            self.role[:64],
            self.endpoint[:256],
            self.request[:MAX_REQUEST_CHARS],
            self.outcome.value,
            max(0, min(self.status, 65_535)),
            max(0, self.rows_returned),
            max(0, min(elapsed, UINT32_MAX)),
            self.client[:256],
            self.detail[:MAX_DETAIL_CHARS],
        )


class AccessLogFull(Exception):
    """Too many records wait for the store: the request is refused, not served unrecorded."""


class AccessLog:
    """The records waiting for the store. Used from one thread (the event loop)."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        self.capacity = capacity
        self._records: deque[AccessRecord] = deque()
        self._reserved = 0
        self.refused_full = 0  # requests refused because the queue was full

    def begin(self, endpoint: str, request: str, client: str) -> Entry:
        """A place for a request's record, taken before it is served; :class:`AccessLogFull`
        when there is none (logged)."""
        if len(self._records) + self._reserved >= self.capacity:
            self.refused_full += 1
            log.error("access log full (%d records wait for the store): %s %r from %s refused",
                      len(self._records), endpoint, request[:200], client)  # fmt: skip
            raise AccessLogFull(f"{len(self._records)} access records wait for the store")
        self._reserved += 1
        return Entry(endpoint, request, client, int(time.time() * 1000), time.perf_counter())

    def end(self, entry: Entry) -> AccessRecord:
        """Queue ``entry``'s record (in the place :meth:`begin` took)."""
        self._reserved = max(0, self._reserved - 1)
        record = entry.record()
        self._records.append(record)
        return record

    def waiting(self) -> int:
        return len(self._records)

    def peek(self, count: int) -> list[AccessRecord]:
        return list(itertools.islice(self._records, count))

    def drop(self, count: int) -> None:
        """Forget the ``count`` oldest records (written)."""
        for _ in range(min(count, len(self._records))):
            self._records.popleft()


class AccessLogWriter:
    """Writes the queued records on a timer; waits out a store that does not take them."""

    def __init__(
        self,
        log: AccessLog,
        insert: InsertRows,
        *,
        every_s: float = 1.0,
        batch: int = 1_000,
        is_data_error: Callable[[BaseException], bool] | None = None,
        retry_first_s: float = 0.5,
        retry_max_s: float = 30.0,
    ) -> None:
        self.log = log
        self.insert = insert
        self.every_s = every_s
        self.batch = batch
        self.is_data_error = is_data_error
        self.retry_first_s = retry_first_s
        self.retry_max_s = retry_max_s
        self.written = 0
        self.retries = 0
        self.set_aside = 0  # rows the store refused on their data (written to the log)
        self._lock = asyncio.Lock()

    async def run(self) -> None:
        """Write what waits every ``every_s``, forever (a failure is logged, never the end)."""
        while True:
            await asyncio.sleep(self.every_s)
            try:
                await self.flush()
            except Exception:
                log.exception("writing the access log failed; again in %g s", self.every_s)

    async def flush(self) -> None:
        """Write every record queued, waiting out the store's failures."""
        async with self._lock:
            attempt = 0
            while self.log.waiting():
                records = self.log.peek(self.batch)
                try:
                    await self.insert([record.row() for record in records])
                except Exception as exc:
                    if self.is_data_error is not None and self.is_data_error(exc):
                        await self._one_by_one(records)
                        continue
                    delay = min(self.retry_max_s, self.retry_first_s * 2**attempt)
                    self.retries += 1
                    attempt += 1
                    log.warning("writing %d access log rows failed (%s); again in %.1f s",
                                len(records), exc, delay)  # fmt: skip
                    await asyncio.sleep(delay)
                    continue
                attempt = 0
                self.log.drop(len(records))
                self.written += len(records)

    async def _one_by_one(self, records: Sequence[AccessRecord]) -> None:
        for record in records:
            try:
                await self.insert([record.row()])
            except Exception as exc:
                if self.is_data_error is None or not self.is_data_error(exc):
                    raise  # the store's trouble: flush waits it out
                self.set_aside += 1
                log.error("access log row refused by the store (%s), kept here: %s",
                          exc, _json(record))  # fmt: skip
            else:
                self.written += 1
            self.log.drop(1)

    async def close(self, timeout_s: float = 5.0) -> None:
        """A last flush at shutdown; what the store did not take in time goes to the log."""
        try:
            await asyncio.wait_for(self.flush(), timeout_s)
        except Exception as exc:  # the time ran out, or the store failed otherwise
            log.error("the access log could not be written at shutdown (%s): %d rows follow",
                      type(exc).__name__, self.log.waiting())  # fmt: skip
            for record in self.log.peek(self.log.waiting()):
                log.error("access log row not written: %s", _json(record))
            self.log.drop(self.log.waiting())


def _json(record: AccessRecord) -> str:
    return json.dumps(asdict(record), ensure_ascii=False)
