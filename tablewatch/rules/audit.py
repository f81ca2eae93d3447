"""The audit engine: a stream of events in, judged rounds and findings out.

:class:`Auditor` keeps one :class:`~tablewatch.rules.table.TableState` per
table. Events of different tables may be interleaved; each table's events
must come in its own ``seq`` order (one Kafka partition, or one file). The
same engine serves ``tablewatch audit``, replay and the live processors.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from tablewatch.rules.checks.table_level import table_finding
from tablewatch.rules.events import AnyEvent
from tablewatch.rules.findings import Finding
from tablewatch.rules.judge import RoundResult
from tablewatch.rules.table import RoundOrFinding, TableState, fold_events
from tablewatch.rules.table_config import TableConfig

__all__ = ["AuditStats", "Auditor", "RoundOrFinding", "findings_of"]


@dataclass(slots=True)
class AuditStats:
    events: int = 0
    duplicates: int = 0
    rounds: int = 0
    findings: int = 0
    unconfigured_events: int = 0


RestoreState = Callable[[str, TableConfig], TableState | None]


class Auditor:
    """``restore`` gives a table's saved state the first time the table is seen (live worker)."""

    def __init__(
        self, configs: Mapping[str, TableConfig], restore: RestoreState | None = None
    ) -> None:
        self._configs = configs
        self._restore = restore
        self._tables: dict[str, TableState] = {}
        self._unconfigured: set[str] = set()
        self.stats = AuditStats()

    def feed(self, event: AnyEvent) -> list[RoundOrFinding]:
        """Fold one event; returns the rounds it completed and table-level findings."""
        self.stats.events += 1
        return self._fold_one(event)

    def feed_many(self, events: Sequence[AnyEvent]) -> Iterator[tuple[int, RoundOrFinding]]:
        """Fold ``events`` in order: yields (index of the event, outcome) for what each one
        completes, as :meth:`feed` on each would, several times faster (see
        :func:`~tablewatch.rules.table.fold_events`). Consume it to the end.
        """
        self.stats.events += len(events)
        return fold_events(self._tables, events, self._fold_one)

    def _fold_one(self, event: AnyEvent) -> list[RoundOrFinding]:
        table = self._tables.get(event.table_id) or self.ensure_table(event.table_id)
        if table is None:
            return self._not_configured(event)
        if table.is_duplicate(event.event_id):
            self.stats.duplicates += 1
            return []
        outcomes = table.apply(event)
        if outcomes:  # most events complete nothing
            self._count(outcomes)
        return outcomes

    def feed_all(self, events: Iterable[AnyEvent]) -> Iterator[RoundOrFinding]:
        """Fold every event, then close what is still open (end of input)."""
        for event in events:
            yield from self.feed(event)
        yield from self.finish()

    def finish(self, why: str = "the input ended before round_end") -> list[RoundOrFinding]:
        out: list[RoundOrFinding] = []
        for table in self._tables.values():
            out.extend(table.finish(why))
        return self._count(out)

    def table(self, table_id: str) -> TableState | None:
        return self._tables.get(table_id)

    def ensure_table(self, table_id: str) -> TableState | None:
        """The table's state, restored or new on first sight; None if it has no configuration."""
        table = self._tables.get(table_id)
        if table is None:
            config = self._configs.get(table_id)
            if config is None:
                return None
            restored = self._restore(table_id, config) if self._restore else None
            table = self._tables[table_id] = restored or TableState(table_id, config)
        return table

    def forget(self, table_id: str) -> None:
        """Drop the table's state (a live worker losing its partition): on its next event
        it is restored afresh, as on first sight."""
        self._tables.pop(table_id, None)

    def table_states(self) -> list[TableState]:
        return list(self._tables.values())

    def count(self, outcomes: list[RoundOrFinding]) -> list[RoundOrFinding]:
        """Count outcomes produced outside :meth:`feed` (a live worker closing a silent round)."""
        return self._count(outcomes)

    def _count(self, outcomes: list[RoundOrFinding]) -> list[RoundOrFinding]:
        for outcome in outcomes:
            if isinstance(outcome, RoundResult):
                self.stats.rounds += 1
                self.stats.findings += len(outcome.findings)
            else:
                self.stats.findings += 1
        return outcomes

    def _not_configured(self, event: AnyEvent) -> list[RoundOrFinding]:
        self.stats.unconfigured_events += 1
        if event.table_id in self._unconfigured:
            return []
        self._unconfigured.add(event.table_id)
        return self._count(
            [
                table_finding(
                    event.table_id,
                    None,
                    "TABLE_NOT_CONFIGURED",
                    "Rules Submission (§ 601a.2)",
                    f"table {event.table_id} has no configuration: its events are not audited",
                    (event.event_id,),
                    event.ts,
                )
            ]
        )


def findings_of(outcomes: Iterable[RoundOrFinding]) -> Iterator[Finding]:
    """Every finding in a stream of outcomes, in order."""
    for outcome in outcomes:
        if isinstance(outcome, RoundResult):
            yield from outcome.findings
        else:
            yield outcome
