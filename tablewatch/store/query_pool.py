"""Callers' read-only statements on threads of their own, for an asyncio server.

A few daemon threads, each with its own :class:`~.read_only.ReadOnlyReader`:
- the engine cancels a statement past its time limit, and the caller is answered
  with the reason; the event loop never waits for a statement;
- when every thread is busy, a caller is refused at once (:class:`PoolBusy`,
  answered 503 with ``Retry-After``) instead of queueing behind a slow one;
- the threads are daemons and the pool's :meth:`QueryPool.close` never waits
  for a running statement, so a worker's shutdown does not either.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future

from tablewatch.store.read_only import Answer, QueryFailed, ReadOnlyReader

log = logging.getLogger("tablewatch.queries")
OpenReader = Callable[[], ReadOnlyReader]
_STOP = None


class PoolBusy(Exception):
    """Every query thread is running a statement; ``retry_after_s`` is a hint."""

    def __init__(self, retry_after_s: int) -> None:
        super().__init__(f"every query thread is busy; retry in {retry_after_s} s")
        self.retry_after_s = retry_after_s


class QueryPool:
    def __init__(self, open_reader: OpenReader, *, threads: int = 2, seconds: float = 10.0) -> None:
        self._open = open_reader
        self._seconds = seconds
        self._jobs: queue.SimpleQueue[tuple[str, frozenset[str], Future[Answer]] | None] = (
            queue.SimpleQueue()
        )
        self._idle = threads
        self._lock = threading.Lock()
        self._readers: list[ReadOnlyReader] = []
        self._threads = [
            threading.Thread(target=self._serve, name=f"queries-{i}", daemon=True)
            for i in range(threads)
        ]
        for thread in self._threads:
            thread.start()
        self.refused_busy = 0
        self.timed_out = 0

    async def run(self, sql: str, *, also: frozenset[str] = frozenset()) -> Answer:
        """The answer to ``sql``, which may read the tables ``also`` beyond the product's;
        raises QueryRefused, QueryFailed or :class:`PoolBusy`."""
        with self._lock:
            if self._idle == 0:
                self.refused_busy += 1
                raise PoolBusy(max(1, round(self._seconds / 2)))
            self._idle -= 1
        job: Future[Answer] = Future()
        self._jobs.put((sql, also, job))
        try:
            # The engine stops the statement at its limit; this bound only catches an
            # engine that did not (the thread stays busy until it returns).
            return await asyncio.wait_for(asyncio.wrap_future(job), self._seconds + 5)
        except TimeoutError:
            self.timed_out += 1
            raise QueryFailed(
                "timeout", f"no answer within {self._seconds + 5:g} s; the statement was abandoned"
            ) from None

    def busy(self) -> int:
        with self._lock:
            return len(self._threads) - self._idle

    def _serve(self) -> None:
        reader: ReadOnlyReader | None = None
        while True:
            item = self._jobs.get()
            if item is _STOP:
                return
            sql, also, job = item
            try:
                if reader is None:
                    reader = self._open()
                    with self._lock:
                        self._readers.append(reader)
                if job.set_running_or_notify_cancel():
                    try:
                        job.set_result(reader.run(sql, also=also))
                    except BaseException as exc:
                        job.set_exception(exc)
            except BaseException as exc:  # the reader could not be opened
                log.exception("query thread: cannot open a reader")
                if not job.done():
                    job.set_exception(QueryFailed("error", f"the store cannot be read: {exc}"))
            finally:
                with self._lock:
                    self._idle += 1

    def close(self) -> None:
        """Stop the idle threads; a running statement is left to its daemon thread."""
        for _ in self._threads:
            self._jobs.put(_STOP)
