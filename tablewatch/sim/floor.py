"""A whole floor: tables in parallel, their events merged in time order, and the truth."""

from __future__ import annotations

import heapq
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tablewatch.rules.config import parse_config
from tablewatch.rules.events import AnyEvent, ts_to_ms
from tablewatch.sim.floor_config import floor_config
from tablewatch.sim.table_sim import TableSim, Truth

FLOOR_START = "2026-11-29T18:00:00.000Z"


@dataclass(slots=True)
class Floor:
    tables: int
    rounds: int  # in all, shared among the tables
    seed: int
    error_rate: float = 0.0
    jackpot_rate: float = 0.0
    config: dict[str, Any] = field(init=False)
    sims: list[TableSim] = field(init=False)

    def __post_init__(self) -> None:
        rng = random.Random(self.seed)
        self.config = floor_config(self.tables, rng)
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

    def rounds_of(self, index: int) -> int:
        share, extra = divmod(self.rounds, self.tables)
        return share + (1 if index < extra else 0)

    def events(self) -> Iterator[AnyEvent]:
        """Every table's events, merged by timestamp (ties: table order, then seq order)."""
        streams = [self._table_stream(i, sim) for i, sim in enumerate(self.sims)]
        for _, _, _, event in heapq.merge(*streams):
            yield event

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
