"""Silent controllers: a table open, and nothing heard from it for too long. Pure.

*Open* is read from the table's own events on ``table-events``: a table is open from
its ``table_open``, or from any other event but ``table_close`` (a controller dealing
rounds is at an open table, even when its ``table_open`` is older than what was read),
until its ``table_close``. *Heard* is the Kafka timestamp of its last event (when the
ingest endpoint produced it: the wall clock, not the device's ``ts``, which a replay or
a simulator at speed moves at its own pace). A table silent for its limit
(:meth:`AlertRules.silence_for`) is reported once per silence; heard again, its
silence is over (the alerter resolves that alert).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(slots=True)
class _Table:
    open: bool
    heard_ms: int
    reported: bool = False
    game: str = ""


@dataclass(frozen=True, slots=True)
class Silence:
    table_id: str
    last_heard_ms: int
    limit_s: float
    game: str


class SilentWatch:
    """The tables heard from, and which of them went silent."""

    def __init__(self) -> None:
        self._tables: dict[str, _Table] = {}

    def heard(self, table_id: str, event_type: str, at_ms: int, game: str = "") -> Silence | None:
        """One event of ``table_id`` (Kafka timestamp ``at_ms``). Returns the silence it
        ends, if one was reported."""
        table = self._tables.get(table_id)
        ended = None
        if table is not None and table.reported:
            ended = Silence(table_id, table.heard_ms, 0.0, table.game)
        if table is None:
            table = self._tables[table_id] = _Table(open=False, heard_ms=at_ms)
        if at_ms >= table.heard_ms:
            table.heard_ms = at_ms
        table.open = event_type != "table_close"
        table.reported = False
        if game:
            table.game = game
        return ended

    def due(self, now_ms: int, limit_of: Callable[[str], float | None]) -> list[Silence]:
        """The open tables silent for their limit (``limit_of(table_id)``, None: not
        watched), each reported once per silence."""
        out = []
        for table_id, table in self._tables.items():
            if not table.open or table.reported:
                continue
            limit = limit_of(table_id)
            if limit is None or now_ms - table.heard_ms < limit * 1000:
                continue
            table.reported = True
            out.append(Silence(table_id, table.heard_ms, limit, table.game))
        return out

    def game_of(self, table_id: str) -> str:
        table = self._tables.get(table_id)
        return table.game if table is not None else ""

    def is_open(self, table_id: str) -> bool:
        table = self._tables.get(table_id)
        return table is not None and table.open
