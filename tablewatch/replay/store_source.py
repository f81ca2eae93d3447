"""The store's raw events (``raw_events_v``), table after table, as runs for the fold.

Each table's events come in the order the worker applied them: their position in
the table's hash chain (``chain_pos``, the table's Kafka order, which is its ``seq``
order from a controller that keeps to the protocol), ties and rows stored before
the chain (position 0, first) by ``seq``. They are read in chunks of
:data:`CHUNK` positions (or ``seq`` values), one query each, a chunk read whole and
then decoded and folded a few hundred events at a time: memory stays flat whatever
the store holds (two chunks' payloads at most).

The next chunk is read while this one is folded (:func:`read_ahead`: one reading
thread; the engine runs a query without holding the interpreter's lock). A chunk
comes as the payloads one a line and their count (:data:`_LINES`), which is split
in one step instead of a value at a time; a payload holding a newline (a controller
may send a JSON object over several lines) makes the count disagree, and that chunk
is read again as values. Either way the fold sees the same payloads.
"""

from __future__ import annotations

from collections.abc import Collection, Generator, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from clickhouse_connect.driver.client import Client

from tablewatch.replay.fold import Run
from tablewatch.rules.decode import decode_lines, is_plain

CHUNK = 100_000  # positions (or seq values) per query
DECODE_BLOCK = 512  # events decoded and folded at a time (in the CPU cache, as a file's block)
# a chunk's payloads as they are, each ended by a newline, then how many rows there were;
# read by one engine thread, the fold having the other core
_LINES = {
    "format_template_resultset_format": "${data}${rows:Raw}",
    "format_template_row_format": "${payload:Raw}\n",
    "format_template_rows_between_delimiter": "",
    "max_threads": 1,
}
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Chunk:
    """One query of a table's events: ``column`` (``seq`` outside the chain, ``chain_pos``
    in it) from ``start``, :data:`CHUNK` values, whose events lie between ``ts_lo_ms``
    and ``ts_hi_ms``."""

    table_id: str
    column: str
    start: int
    ts_lo_ms: int
    ts_hi_ms: int


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
    """``raw_events_v`` of ``tables`` (None: every table), ``since_ms <= ts <= until_ms``."""

    def __init__(
        self,
        client: Client,
        *,
        tables: Collection[str] | None = None,
        since_ms: int | None = None,
        until_ms: int | None = None,
        chunk: int = CHUNK,
    ) -> None:
        self.client = client
        self.tables = sorted(tables) if tables is not None else None
        self.since_ms = since_ms
        self.until_ms = until_ms
        self.chunk = chunk
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
        for chunk, payloads, plain in read_ahead(self._read()):
            where = f"raw_events_v {chunk.table_id} {chunk.column}"
            for at in range(0, len(payloads), DECODE_BLOCK):
                block = payloads[at : at + DECODE_BLOCK]
                decoded = decode_lines(block, where, chunk.start + at, plain=plain)
                for events, rejection in decoded.runs():
                    if events:
                        yield events
                    if rejection is not None:
                        yield rejection

    def _read(self) -> Generator[tuple[Chunk, list[bytes], bool], None, None]:
        """Every chunk of the range, in order, with its payloads in its order and whether
        they are plain (:func:`~tablewatch.rules.decode.is_plain`)."""
        for span in self.spans():
            if span.outside:
                for chunk in self._chunks(span.table_id, "seq", span.seq_min):
                    yield chunk, *self._payloads(chunk)
            if span.events > span.outside:
                for chunk in self._chunks(span.table_id, "chain_pos", span.pos_min):
                    yield chunk, *self._payloads(chunk)

    def _chunks(self, table_id: str, column: str, low: int) -> list[Chunk]:
        """The table's chunks holding events, numbered by ``column`` from ``low``, with each
        one's ts bounds, from one pass over the table's (position, ts): with them the
        primary key (table_id, ts, ...) narrows a chunk's query to its own granules rather
        than the whole table's, whose FINAL would cost time and memory per chunk."""
        where, parameters = self._where()
        rows = self.client.query(
            f"SELECT intDiv({column} - {{low:UInt64}}, {{n:UInt64}}) AS c, "
            "toUnixTimestamp64Milli(min(ts)), toUnixTimestamp64Milli(max(ts)) "
            f"FROM raw_events_v WHERE table_id = {{t:String}} AND {where} AND {_CHAIN[column]} "
            "GROUP BY c ORDER BY c",
            parameters={**parameters, "t": table_id, "low": low, "n": self.chunk},
        ).result_rows
        return [
            Chunk(table_id, column, low + int(c) * self.chunk, int(lo_ms), int(hi_ms))
            for c, lo_ms, hi_ms in rows
        ]

    def _payloads(self, chunk: Chunk) -> tuple[list[bytes], bool]:
        """The chunk's payloads in the table's order, read whole (the run's rows are written
        on the same client while a chunk is folded, which an embedded engine refuses
        mid-stream), and whether they are plain."""
        where, parameters = self._where()
        order = "seq, event_id" if chunk.column == "seq" else "chain_pos, seq, event_id"
        sql = (
            f"SELECT payload FROM raw_events_v WHERE table_id = {{t:String}} AND {where} "
            f"AND {_CHAIN[chunk.column]} AND {chunk.column} >= {{lo:UInt64}} "
            f"AND {chunk.column} < {{hi:UInt64}} "
            "AND ts >= fromUnixTimestamp64Milli({ts_lo:Int64}, 'UTC') "
            "AND ts <= fromUnixTimestamp64Milli({ts_hi:Int64}, 'UTC') "
            f"ORDER BY {order}"
        )
        values = {
            **parameters, "t": chunk.table_id, "lo": chunk.start, "hi": chunk.start + self.chunk,
            "ts_lo": chunk.ts_lo_ms, "ts_hi": chunk.ts_hi_ms,
        }  # fmt: skip
        text = self.client.raw_query(sql, parameters=values, settings=_LINES, fmt="Template")
        body, _, count = text.rpartition(b"\n")
        rows = int(count)
        payloads = body.split(b"\n") if rows else []
        if len(payloads) == rows:
            return payloads, is_plain(body)
        # a payload holds a newline: the chunk's values one by one
        payloads = []
        with self.client.query_column_block_stream(
            sql, parameters=values, column_formats={"payload": "bytes"}
        ) as stream:
            for columns in stream:
                payloads.extend(columns[0])
        return payloads, False


_CHAIN = {"seq": "chain_pos = 0", "chain_pos": "chain_pos > 0"}


def read_ahead(items: Generator[T, None, None]) -> Generator[T, None, None]:
    """``items``, each next one made in a thread while the caller works on this one.

    ``items`` is advanced in that thread only, one step at a time; what it raises is
    raised here, in its place. Closing this iterator waits for the step under way, then
    closes ``items``."""
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="read-ahead")
    try:
        pending = pool.submit(_step, items)
        while (step := pending.result()) is not None:
            pending = pool.submit(_step, items)
            yield step[0]
    finally:
        pool.shutdown(wait=True)
        items.close()


def _step(items: Iterator[T]) -> tuple[T] | None:
    """``items``' next one (in a 1-tuple), or None at their end."""
    for item in items:
        return (item,)
    return None
