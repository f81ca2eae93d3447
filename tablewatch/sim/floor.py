"""A whole floor: tables in parallel, their events merged in time order, and the truth."""

from __future__ import annotations

import heapq
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec

from tablewatch.rules.config import parse_config
from tablewatch.rules.events import AnyEvent, ms_to_ts, ts_to_ms
from tablewatch.sim.floor_config import floor_config
from tablewatch.sim.games import SimulatedGame, played
from tablewatch.sim.injections import PatternInjection, inject_pattern
from tablewatch.sim.players import HoleCarder
from tablewatch.sim.table_sim import TableSim, Truth

FLOOR_START = "2026-11-29T18:00:00.000Z"


@dataclass(slots=True)
class Floor:
    tables: int
    rounds: int  # in all, shared among the tables
    seed: int
    error_rate: float = 0.0
    jackpot_rate: float = 0.0
    games: tuple[SimulatedGame, ...] = ()  # in the order the tables take them; () every one
    hole_carders: tuple[HoleCarder, ...] = ()  # advantage players injected, at their tables
    patterns: tuple[PatternInjection, ...] = ()  # hold, meter and dealer patterns injected
    config: dict[str, Any] = field(init=False)
    sims: list[TableSim] = field(init=False)

    def __post_init__(self) -> None:
        if not self.games:
            self.games = played()
        rng = random.Random(self.seed)
        self.config = floor_config(self.tables, rng, self.games)
        configs = parse_config(self.config)
        start = ts_to_ms(FLOOR_START)
        self.sims = [
            TableSim(
                configs[table_id],
                rng.getrandbits(64),
                start + rng.randint(0, 120_000),
                error_rate=self.error_rate,
                jackpot_rate=self.jackpot_rate,
            )
            for table_id in self.config["tables"]
        ]
        self.seat_hole_carders()
        for pattern in self.patterns:
            inject_pattern(self.sims, pattern)

    def seat_hole_carders(self) -> None:
        """Seat :attr:`hole_carders` at their tables (``ValueError`` naming one a table cannot
        take)."""
        for carder in self.hole_carders:
            if not 0 <= carder.table < len(self.sims):
                raise ValueError(f"hole-carder: table {carder.table} is not 0 to {self.tables - 1}")
            table = self.sims[carder.table].table
            if not table.game.hole_carding:
                raise ValueError(
                    f"hole-carder: table {carder.table} ({table.config.table_id}) plays "
                    f"{table.rules.title}, where no hole-carder is simulated"
                )
            table.hole_carder = carder

    def rounds_of(self, index: int) -> int:
        share, extra = divmod(self.rounds, self.tables)
        return share + (1 if index < extra else 0)

    def events(self) -> Iterator[AnyEvent]:
        """Every table's events, merged by timestamp (ties: table order, then seq order)."""
        streams = [self._table_stream(i, sim) for i, sim in enumerate(self.sims)]
        for _, _, _, event in heapq.merge(*streams):
            yield event

    def present(self, speed: float, clock: Callable[[], float] = time.time) -> Iterator[AnyEvent]:
        """:meth:`events` stamped in the present, for a floor streamed live (``tablewatch
        live``, ``simulate --follow``): the first at ``clock``'s time (epoch seconds) when it
        is asked for, each later one its floor time after the first divided by ``speed``,
        in milliseconds. Paced at life speed (:func:`~tablewatch.sim.pacing.paced`, speed
        1), each is stamped with the time it is sent. A table's events keep their order:
        one that would share the millisecond of its table's previous one is moved to the
        next, and the stream stays in time order. Faster than life, the floor's hours pass
        in minutes, a deck's hours of use too: a deck the floor keeps past its limit is then
        seldom seen overdue (``DECK_CHANGE_OVERDUE``)."""
        if not speed > 0:
            raise ValueError(f"speed: {speed:g} is not above 0")
        start_ms = first_ms = last_ms = 0
        table_last: dict[str, int] = {}
        for n, event in enumerate(self.events()):
            ms = ts_to_ms(event.ts)
            if n == 0:
                start_ms, first_ms = round(clock() * 1000), ms
            at = start_ms + int((ms - first_ms) / speed)
            previous = table_last.get(event.table_id)
            at = max(at, last_ms, at if previous is None else previous + 1)
            last_ms = table_last[event.table_id] = at
            yield msgspec.structs.replace(event, ts=ms_to_ts(at))

    def _table_stream(self, index: int, sim: TableSim) -> Iterator[tuple[str, int, int, AnyEvent]]:
        n = 0
        chunks = [sim.open()]
        for chunk in self._chunks(sim, index, chunks):
            for event in chunk:
                n += 1
                yield event.ts, index, n, event

    def _chunks(
        self, sim: TableSim, index: int, first: list[list[AnyEvent]]
    ) -> Iterator[list[AnyEvent]]:
        yield from first
        yield from sim.play(self.rounds_of(index))
        yield sim.close()

    def truth(self) -> list[Truth]:
        """The injected errors (complete once :meth:`events` has been consumed)."""
        return [t for sim in self.sims for t in sim.truth]
