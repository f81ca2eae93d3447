"""Where the auditor API reads its rows: row sources (``run(sql) -> Answer``).

Two of them, chosen by ``tablewatch serve-api``:

- :class:`WorkerSource`: the worker's ``GET /query?sql=`` (an embedded store belongs to
  the process that opened it, the worker, while it runs). Every statement goes through
  the worker's read-only checks and its access control (a bearer token whose role holds
  the ``query`` permission) and is a row of its access log.
- :class:`ReaderPool`: readers of the API's own (:func:`tablewatch.store.read_only.open_reader`),
  on a ClickHouse server (as a read-only user: ``docs/api.md``) or on an embedded store
  this process owns (``readonly`` sessions).

Both raise the same errors, which the app answers: :class:`SourceBusy` (503 with
``Retry-After``), :class:`SourceUnavailable` (503), :class:`SourceTimeout` (504),
:class:`SourceTooLarge` (413: past the result or memory limits) and :class:`SourceFailed`
(500: a statement of the API's own was refused, a bug).
"""

from __future__ import annotations

import contextlib
import queue
import re
import threading
from collections.abc import Callable
from typing import Any, Protocol

import httpx

from tablewatch.store.query_limits import QueryLimits
from tablewatch.store.read_only import (
    MAX_SQL_LENGTH,
    Answer,
    QueryFailed,
    QueryRefused,
    ReadOnlyReader,
)
from tablewatch.store.sql_text import read_only_refusal

# a single-quoted literal as ClickHouse reads one (backslash escapes, '' doubled), or a
# run of digits standing alone (not part of a name such as toUnixTimestamp64Milli)
_LITERAL = re.compile(r"'(?:[^'\\]|\\.|'')*'|(?<![\w.])\d+(?![\w.])")
MAX_SHAPES = 1024


class RowSource(Protocol):
    """What the reads run their statements on."""

    def run(self, sql: str) -> Answer: ...


class SourceError(Exception):
    """The rows could not be read; ``reason`` says why, in words for the caller."""

    status = 500

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class SourceBusy(SourceError):
    """Every reader (or the worker's every query thread) is busy: try again soon."""

    status = 503

    def __init__(self, reason: str, retry_after_s: int) -> None:
        super().__init__(reason)
        self.retry_after_s = retry_after_s


class SourceUnavailable(SourceError):
    """The store (or the worker in front of it) cannot be reached or refuses the API."""

    status = 503
    retry_after_s = 5


class SourceTimeout(SourceError):
    """The engine stopped the statement at its time limit."""

    status = 504


class SourceTooLarge(SourceError):
    """The engine stopped the statement at its result limits (rows, bytes, memory)."""

    status = 413


class SourceFailed(SourceError):
    """The statement was refused or failed: the API's own SQL, so a bug."""

    status = 500


def statement_shape(sql: str) -> str:
    """``sql`` with every string and integer literal replaced by ``?``: two statements of
    one shape have the same syntax tree but for the literals' values."""
    return _LITERAL.sub("?", sql)


class ProductReader(ReadOnlyReader):
    """A :class:`ReadOnlyReader` for the product's own statements (the API's), whose
    values are quoted literals: once a statement passed the engine's checks, another of
    the same shape (:func:`statement_shape`) differs from it only in literal values, which
    name no table and no function, and skips the two engine round trips of the check (the
    text check and the ``readonly`` session still apply to it). Never for callers' SQL:
    there the checks see every statement but one sent again with the same text (the
    worker's ``/query``: :class:`ReadOnlyReader`)."""

    def __init__(self, client: Any, limits: QueryLimits, *, embedded: bool) -> None:
        super().__init__(client, limits, embedded=embedded)
        self._shapes: set[str] = set()
        self.checks_skipped = 0

    def checked(self, sql: str, *, also: frozenset[str] = frozenset()) -> str:
        shape = statement_shape(sql)
        if (
            not also
            and shape in self._shapes
            and len(sql) <= MAX_SQL_LENGTH
            and "\x00" not in sql
            and read_only_refusal(sql) is None
        ):
            self.checks_skipped += 1
            return sql
        canonical = super().checked(sql, also=also)
        if not also and len(self._shapes) < MAX_SHAPES:
            self._shapes.add(shape)
        return canonical

    def _collect(self, statement: str) -> Answer:
        """The rows in one piece: the product's statements read a page or a round, and the
        engine holds them to the session's result limits (``max_result_rows``,
        ``max_result_bytes``, thrown past them); the block stream's per-block step and the
        count of every value kept for callers' SQL cost the reconstruction several
        percent."""
        result = self.client.query(statement, settings=self._settings)
        return Answer(list(result.column_names), result.result_rows)


def open_product_reader(dsn: str, limits: QueryLimits | None = None) -> ProductReader:
    """A :class:`ProductReader` on the store at ``dsn`` (a client of its own)."""
    from tablewatch.store.client import connect
    from tablewatch.store.dsn import ServerDsn, parse_dsn

    embedded = not isinstance(parse_dsn(dsn), ServerDsn)
    client = connect(dsn)
    try:
        return ProductReader(client, limits or QueryLimits(), embedded=embedded)
    except BaseException:
        client.close()
        raise


class ReaderPool:
    """A few :class:`ReadOnlyReader` s, one statement each at a time.

    A caller waits at most ``wait_s`` for a free reader, then gets :class:`SourceBusy`
    (the worker's pool answers the same way). Readers are opened on first use.
    """

    concurrent = True  # statements from several threads run at once, each on its reader

    def __init__(
        self, open_reader: Callable[[], ReadOnlyReader], *, size: int = 4, wait_s: float = 2.0
    ) -> None:
        self._open = open_reader
        self._wait_s = wait_s
        self._free: queue.LifoQueue[ReadOnlyReader | None] = queue.LifoQueue()
        for _ in range(size):
            self._free.put(None)  # a slot whose reader is not opened yet
        self._all: list[ReadOnlyReader] = []
        self._lock = threading.Lock()
        self._closed = False

    def run(self, sql: str) -> Answer:
        try:
            reader = self._free.get(timeout=self._wait_s)
        except queue.Empty:
            raise SourceBusy(
                f"every reader of the store is busy (waited {self._wait_s:g} s)",
                retry_after_s=1,
            ) from None
        try:
            if reader is None:
                reader = self._opened()
            return reader.run(sql)
        except QueryRefused as refused:
            self._discard(reader)
            reader = None
            raise SourceFailed(f"the store refused the API's statement: {refused.reason}") from None
        except QueryFailed as failed:
            self._discard(reader)
            reader = None
            raise _failed(failed.kind, failed.reason) from None
        finally:
            self._free.put(reader)

    def _discard(self, reader: ReadOnlyReader | None) -> None:
        """Close a reader whose statement the engine stopped: its slot opens a new one when
        next used. The embedded engine's connection keeps what it had not sent of a result
        stopped at its limits and hands it to its next statement (seen with chDB 4.4: that
        statement failed, on the rows of the one before), so a request on another route
        would fail."""
        if reader is not None:
            with self._lock:
                if reader in self._all:
                    self._all.remove(reader)
            with contextlib.suppress(Exception):  # a spoilt connection: nothing more to do
                reader.close()

    def _opened(self) -> ReadOnlyReader:
        from tablewatch.store.client import StoreError

        try:
            reader = self._open()
        except StoreError as exc:
            raise SourceUnavailable(f"the store cannot be opened: {exc}") from exc
        with self._lock:
            self._all.append(reader)
        return reader

    def close(self) -> None:
        with self._lock:
            readers, self._all = self._all, []
        for reader in readers:
            reader.close()


class WorkerSource:
    """The worker's ``GET /query?sql=`` (``base_url`` like ``http://127.0.0.1:6066``).

    ``token``: a bearer token whose role holds ``query`` (auditor or admin), or None
    for a worker without access control. One HTTP client with keep-alive connections,
    shared by the API's threads.
    """

    def __init__(self, base_url: str, token: str | None = None, *, timeout_s: float = 30.0) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.base_url = base_url.rstrip("/")
        self._client = httpx.Client(
            base_url=self.base_url,
            headers=headers,
            timeout=timeout_s,
            limits=httpx.Limits(max_connections=8, max_keepalive_connections=8),
        )

    def run(self, sql: str) -> Answer:
        try:
            reply = self._client.get("/query", params={"sql": sql})
        except httpx.TimeoutException:
            raise SourceTimeout(f"the worker at {self.base_url} did not answer in time") from None
        except httpx.HTTPError as exc:
            raise SourceUnavailable(
                f"the worker at {self.base_url} cannot be reached: {exc}"
            ) from None
        body = _json(reply)
        if reply.status_code == 200 and isinstance(body.get("rows"), list):
            return Answer(list(body.get("columns", [])), body["rows"])
        error = str(body.get("error", reply.text[:200]))
        status = reply.status_code
        if status == 503 and "Retry-After" in reply.headers:
            raise SourceBusy(f"the worker is busy: {error}", _retry_after(reply))
        if status in (401, 403):
            raise SourceUnavailable(
                f"the worker refused the API's token ({status}): {error}; the API needs a "
                "token whose role holds the query permission (auditor or admin)"
            )
        if status == 504:
            raise SourceTimeout(f"the worker stopped the statement: {error}")
        if status == 413:
            raise _failed("too_large", error)
        if status >= 500:
            raise SourceUnavailable(f"the worker answered {status}: {error}")
        raise SourceFailed(f"the worker refused the API's statement ({status}): {error}")

    def close(self) -> None:
        self._client.close()


def _failed(kind: str, reason: str) -> SourceError:
    if kind == "timeout":
        return SourceTimeout(reason)
    if kind in ("too_large", "memory"):
        return SourceTooLarge(reason)
    return SourceFailed(f"{kind}: {reason}")


def _json(reply: httpx.Response) -> dict[str, Any]:
    try:
        body = reply.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _retry_after(reply: httpx.Response) -> int:
    try:
        return max(1, int(reply.headers["Retry-After"]))
    except ValueError:
        return 1
