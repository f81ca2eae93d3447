"""The patterns across rounds in a replay run (``tablewatch replay --patterns``).

Every round the run judges is taken as the folds read it
(:meth:`~tablewatch.patterns.floor_folds.FloorFolds.round_of`, a
:class:`~tablewatch.patterns.pattern_round.PatternRound` of 3 to 6 KB) and held
in a :class:`~tablewatch.patterns.floor_folds.RoundOrder`; at the end of the input the
rounds are read in that one order (end time, table, round, start event) by one
:class:`~tablewatch.patterns.floor_folds.FloorFolds` of the run's configuration, as the
live companion reads them, and each pattern finding is recorded as the companion stores
it: ``PatternFinding.as_finding()``, a table-level finding (start event ''), under the
id of its ``origin``, so its ``finding_id`` is the live one.

Valuing the decisions is the cost (docs/replay.md, "Patterns"); the rounds held cost
memory in proportion to the rounds judged.
"""

from __future__ import annotations

from collections.abc import Mapping

from tablewatch.patterns.finding import PatternFinding
from tablewatch.patterns.floor_folds import FloorFolds, RoundOrder
from tablewatch.patterns.hold_band import Figures
from tablewatch.rules.judge import RoundResult
from tablewatch.rules.table_config import TableConfig


class ReplayPatterns:
    """The rounds of a run, held in order, and the folds that read them at its end."""

    def __init__(self, configs: Mapping[str, TableConfig], figures: Figures | None = None) -> None:
        self.folds = FloorFolds(configs, figures)
        self.order = RoundOrder()
        self.rounds = 0  # rounds read by the folds

    def add(self, result: RoundResult) -> None:
        """Take the figures the folds read of a judged round, to be read at the end."""
        self.order.add(self.folds.round_of(result))

    def findings(self) -> list[PatternFinding]:
        """Every round held, read in order: the pattern findings (stored as the companion
        stores them: ``as_finding()`` under the id of its ``origin``)."""
        out: list[PatternFinding] = []
        for rnd in self.order.drain():
            self.rounds += 1
            out.extend(self.folds.take(rnd))
        return out
