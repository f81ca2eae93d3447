"""A replay's rows written to the store as JSON, in the replay's own thread or behind it.

A batch of rows is encoded by msgspec as ``JSONCompactEachRow`` (one JSON array a row,
in C) and parsed by the engine, which does that outside Python's lock: the replay's
thread spends about a third of the CPU time that clickhouse-connect's typed insert
does (it builds the columns in Python). With a ``connect`` factory, the batches are
inserted by a thread of their own, on a client of their own, while the fold goes on
(:class:`RowsBehind`): the fold then waits only for the encoding.

Time columns (``DateTime64(3)``) are given as seconds, a JSON number with at most three
decimals: ``ms / 1000`` is the double nearest that decimal, and its shortest text (what
msgspec writes) is that decimal, since doubles of this size lie far closer together than
a millisecond. The engine parses the text as a decimal, not as a double: the column
holds the millisecond exactly (``tests/replay/test_row_writer.py`` reads it back).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from typing import Any

import msgspec
from clickhouse_connect.driver.client import Client

FORMAT = "JSONCompactEachRow"
QUEUED = 2  # batches waiting for the thread behind: the fold waits beyond that

_encode = msgspec.json.Encoder().encode


def seconds(ms: int | None) -> float | None:
    """A ``DateTime64(3)`` value for JSON: ``ms`` as seconds (see the module's note)."""
    return None if ms is None else ms / 1000


def encoded(rows: Sequence[Sequence[Any]]) -> bytes:
    """``rows`` as ``JSONCompactEachRow``."""
    return b"\n".join(map(_encode, rows))


class RowWriter:
    """Inserts each batch on ``client`` when it is given."""

    def __init__(self, client: Client) -> None:
        self.client = client

    def insert(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        self.client.raw_insert(table, columns, encoded(rows), fmt=FORMAT)

    def wait(self) -> None:
        """Every batch given so far is in the store (raises what an insert raised)."""

    def close(self) -> None:
        """Stop; what is written stays written (:meth:`wait` first to know it all was)."""


class RowsBehind(RowWriter):
    """Inserts the batches on a thread of their own, on a client ``connect`` opens, in the
    order given. The first insert that fails stops the writing: the batches after it are
    dropped, and :meth:`insert` or :meth:`wait` raises its error in the caller's thread."""

    def __init__(self, connect: Callable[[], Client], queued: int = QUEUED) -> None:
        super().__init__(connect())  # opened here: a store that cannot be opened fails now
        self._batches: queue.Queue[tuple[str, Sequence[str], bytes] | None] = queue.Queue(queued)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._write, name="replay-rows", daemon=True)
        self._thread.start()
        self._closed = False

    def insert(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        self._raise()
        if self._closed:
            raise RuntimeError("rows given to a closed writer")
        self._batches.put((table, columns, encoded(rows)))

    def wait(self) -> None:
        self._batches.join()
        self._raise()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._batches.put(None)
            self._thread.join()
            self.client.close()

    def _write(self) -> None:
        while True:
            batch = self._batches.get()
            try:
                if batch is None:
                    return
                if self._error is None:
                    table, columns, data = batch
                    self.client.raw_insert(table, columns, data, fmt=FORMAT)
            except BaseException as exc:  # given to the caller's thread
                self._error = exc
            finally:
                self._batches.task_done()

    def _raise(self) -> None:
        if self._error is not None:
            raise self._error
