"""The store's raw events (``raw_events_v``), table after table, as runs for the fold.

Each table's events come in the order the worker applied them: their position in
the table's hash chain (``chain_pos``, the table's Kafka order, which is its ``seq``
order from a controller that keeps to the protocol), ties and rows stored before
the chain (position 0, first) by ``seq``. They are read in chunks of
:data:`CHUNK` positions (or ``seq`` values), one query each, a chunk read whole as text
(a payload a line, :data:`FRAMED`), decoded in one call and folded a few hundred events
at a time: memory stays flat whatever the store holds (a chunk's payloads and events at
most).
"""

from __future__ import annotations

import contextlib
import functools
import queue
import threading
from collections.abc import Callable, Collection, Generator, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from clickhouse_connect.driver.client import Client

from tablewatch.replay.fold import Run
from tablewatch.rules.decode import decode_lines, decode_whole_lines

CHUNK = 100_000  # positions (or seq values) per query
AHEAD_CHUNK = 50_000  # the same read ahead of the fold: two chunks in memory, as much as one
DECODE_BLOCK = 512  # events decoded and folded at a time (in the CPU cache, as a file's block)
# a read ahead of the fold runs beside it: one engine thread (the fold has the other core),
# which also holds less of the table in memory at once than a read on every core
AHEAD_SETTINGS: dict[str, Any] = {"max_threads": 1}
# A chunk is read as text, a payload a line (decode_whole_lines decodes them in one call); a
# payload holding a line break (valid JSON over several lines) is read as an empty line, as is
# an empty payload: a chunk that does not decode whole and holds one is read again payload by
# payload (Chunk.payloads).
FRAMED = "if(position(payload, '\\n') = 0, payload, '')"


@dataclass(frozen=True, slots=True)
class TableSpan:
    """What the store holds of one table in the range: its events, those outside the chain
    and where each kind's numbering starts (the first seq outside, the first position in
    it): the chunks are counted from there."""

    table_id: str
    events: int
    outside: int
    seq_min: int
    pos_min: int


class StoreSource:
    """``raw_events_v`` of ``tables`` (None: every table), ``since_ms <= ts <= until_ms``;
    read ahead on a client ``connect`` opens, when given."""

    def __init__(
        self,
        client: Client,
        *,
        tables: Collection[str] | None = None,
        since_ms: int | None = None,
        until_ms: int | None = None,
        chunk: int | None = None,
        connect: Callable[[], Client] | None = None,
    ) -> None:
        self.client = client
        self.connect = connect
        self.tables = sorted(tables) if tables is not None else None
        self.since_ms = since_ms
        self.until_ms = until_ms
        self.chunk = chunk or (CHUNK if connect is None else AHEAD_CHUNK)
        self._spans: list[TableSpan] | None = None

    def _where(self) -> tuple[str, dict[str, Any]]:
        clauses: list[str] = []
        parameters: dict[str, Any] = {}
        if self.tables is not None:
            clauses.append("table_id IN {tables:Array(String)}")
            parameters["tables"] = self.tables
        if self.since_ms is not None:
            clauses.append("ts >= fromUnixTimestamp64Milli({since:Int64}, 'UTC')")
            parameters["since"] = self.since_ms
        if self.until_ms is not None:
            clauses.append("ts <= fromUnixTimestamp64Milli({until:Int64}, 'UTC')")
            parameters["until"] = self.until_ms
        return (" AND ".join(clauses) or "1"), parameters

    def spans(self) -> list[TableSpan]:
        """Each table's events in the range, by table id (one query, cached)."""
        if self._spans is None:
            where, parameters = self._where()
            rows = self.client.query(
                "SELECT table_id, count(), countIf(chain_pos = 0), minIf(seq, chain_pos = 0), "
                f"minIf(chain_pos, chain_pos > 0) FROM raw_events_v WHERE {where} "
                "GROUP BY table_id ORDER BY table_id",
                parameters=parameters,
            ).result_rows
            self._spans = [TableSpan(str(r[0]), *(int(v) for v in r[1:])) for r in rows]
        return self._spans

    @property
    def total(self) -> int:
        return sum(span.events for span in self.spans())

    def describe(self) -> str:
        return "raw_events_v"

    def runs(self) -> Iterator[Run]:
        spans = self.spans()  # on the source's client, before a thread reads
        chunks = (
            self._payloads(self.client, spans, {})
            if self.connect is None
            else read_ahead(
                self.connect, lambda client: self._payloads(client, spans, AHEAD_SETTINGS)
            )
        )
        for chunk in chunks:
            whole = decode_whole_lines(chunk.text)
            if whole is not None:  # the usual case: every line an event
                for at in range(0, len(whole), DECODE_BLOCK):
                    yield whole[at : at + DECODE_BLOCK]
                continue
            payloads = chunk.payloads(self.client)
            for at in range(0, len(payloads), DECODE_BLOCK):
                decoded = decode_lines(
                    payloads[at : at + DECODE_BLOCK], chunk.where, chunk.start + at
                )
                for events, rejection in decoded.runs():
                    if events:
                        yield events
                    if rejection is not None:
                        yield rejection

    def _payloads(
        self, client: Client, spans: list[TableSpan], settings: dict[str, Any]
    ) -> Iterator[Chunk]:
        """Each chunk (:class:`Chunk`: its payloads as text), in order, read on ``client`` with
        ``settings``."""
        for span in spans:
            table = span.table_id
            if span.outside:
                yield from self._chunks(client, settings, table, "seq", span.seq_min, True)
            if span.events > span.outside:
                yield from self._chunks(client, settings, table, "chain_pos", span.pos_min, False)

    def _chunks(
        self,
        client: Client,
        settings: dict[str, Any],
        table_id: str,
        column: str,
        low: int,
        outside: bool,
    ) -> Iterator[Chunk]:
        where, parameters = self._where()
        chain = "chain_pos = 0" if outside else "chain_pos > 0"
        order = "seq, event_id" if outside else "chain_pos, seq, event_id"
        # each chunk's ts bounds, from one pass over the table's (position, ts): with them
        # the primary key (table_id, ts, ...) narrows a chunk's query to its own granules
        # rather than the whole table's, whose FINAL would cost time and memory per chunk
        bounds = {
            int(c): (int(lo_ms), int(hi_ms))
            for c, lo_ms, hi_ms in client.query(
                f"SELECT intDiv({column} - {{low:UInt64}}, {{n:UInt64}}) AS c, "
                "toUnixTimestamp64Milli(min(ts)), toUnixTimestamp64Milli(max(ts)) "
                f"FROM raw_events_v WHERE table_id = {{t:String}} AND {where} AND {chain} "
                "GROUP BY c",
                parameters={**parameters, "t": table_id, "low": low, "n": self.chunk},
                settings=settings,
            ).result_rows
        }
        rows = (
            f"FROM raw_events_v WHERE table_id = {{t:String}} AND {where} "
            f"AND {chain} AND {column} >= {{lo:UInt64}} AND {column} < {{hi:UInt64}} "
            "AND ts >= fromUnixTimestamp64Milli({ts_lo:Int64}, 'UTC') "
            "AND ts <= fromUnixTimestamp64Milli({ts_hi:Int64}, 'UTC') "
            f"ORDER BY {order}"
        )
        where_text = f"raw_events_v {table_id} {column}"
        for chunk, (ts_lo, ts_hi) in sorted(bounds.items()):  # the chunks holding events
            start = low + chunk * self.chunk
            values = {
                **parameters, "t": table_id, "lo": start, "hi": start + self.chunk,
                "ts_lo": ts_lo, "ts_hi": ts_hi,
            }  # fmt: skip
            # the chunk is read whole before it is folded: the run's rows may be written on
            # the same client meanwhile, which an embedded engine refuses mid-stream
            text = client.raw_query(
                f"SELECT {FRAMED} {rows}", parameters=values, fmt="TSVRaw", settings=settings
            )
            yield Chunk(where_text, start, text, rows, values)


@dataclass(frozen=True, slots=True)
class Chunk:
    """A chunk of a table's payloads as read: a line each (:data:`FRAMED`), and how to read
    them again one by one."""

    where: str  # where the payloads are, for a rejection: "raw_events_v {table} {column}"
    start: int  # the number (position or seq) of the first
    text: bytes
    rows: str  # the statement's FROM ... ORDER BY
    parameters: dict[str, Any]  # its parameters

    def payloads(self, client: Client) -> list[bytes]:
        """The payloads one by one: the lines of the text, or, when one of them is not a
        line of its own (an empty line: a payload holding a line break, or an empty one),
        the chunk read again on ``client`` a payload at a time."""
        text = self.text
        if not (text.startswith(b"\n") or b"\n\n" in text):
            return text[:-1].split(b"\n") if text else []
        payloads: list[bytes] = []
        with client.query_column_block_stream(
            f"SELECT payload {self.rows}",
            parameters=self.parameters,
            column_formats={"payload": "bytes"},
        ) as stream:
            for columns in stream:
                payloads.extend(columns[0])
        return payloads


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class _End:
    error: BaseException | None


class _Item(Generic[T]):
    __slots__ = ("value",)

    def __init__(self, value: T) -> None:
        self.value = value


def read_ahead(
    connect: Callable[[], Client], produce: Callable[[Client], Iterator[T]]
) -> Generator[T, None, None]:
    """What ``produce`` yields on a client ``connect`` opens, produced by a thread one item
    ahead of the caller: the thread makes the next item while the caller holds one, then
    waits for the caller to take it (two items alive at most). An error in the thread is
    raised here, where its item would have been; when the caller stops early, the thread
    stops after the item it is making."""
    handed: queue.Queue[_Item[T] | _End] = queue.Queue(1)
    taken = threading.Semaphore(0)  # released as the caller takes an item
    stop = threading.Event()

    def wait_for(attempt: Callable[[], bool]) -> bool:
        """Try until ``attempt`` succeeds (True) or the caller stops (False)."""
        while not stop.is_set():
            if attempt():
                return True
        return False

    def put(item: _Item[T] | _End) -> bool:
        try:
            handed.put(item, timeout=0.1)
        except queue.Full:
            return False
        return True

    def hand(item: _Item[T] | _End) -> bool:
        return wait_for(functools.partial(put, item))

    was_taken = functools.partial(taken.acquire, timeout=0.1)

    def work() -> None:
        try:
            with contextlib.closing(connect()) as client:
                for value in produce(client):  # the next is made once this one is taken
                    if not (hand(_Item(value)) and wait_for(was_taken)):
                        return  # the caller stopped
        except BaseException as exc:  # given to the caller's thread
            hand(_End(exc))
        else:
            hand(_End(None))

    thread = threading.Thread(target=work, name="replay-read-ahead", daemon=True)
    thread.start()
    try:
        while True:
            item = handed.get()
            if isinstance(item, _End):
                if item.error is not None:
                    raise item.error
                return
            taken.release()
            yield item.value
    finally:
        stop.set()
        thread.join()
