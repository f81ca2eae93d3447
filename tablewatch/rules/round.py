"""A round as a fold over its events.

:class:`Round` accumulates the events of one ``round_id`` in the order they
arrived (``apply``); :func:`fold_round` folds a whole sequence. Nothing is
judged here: :mod:`tablewatch.rules.judge` reads the folded round. The table
passes in the table events that matter to an open round (device faults,
meter readings).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tablewatch.rules.events import (
    AnyRoundEvent,
    CardDealt,
    CardExposed,
    Decision,
    DeviceFault,
    EnvyPayout,
    Lockout,
    Meter,
    Reveal,
    RoundEnd,
    RoundStart,
    Settle,
    StubCount,
    Void,
    Wager,
    WagerRemoved,
)


@dataclass(slots=True)
class Round:
    table_id: str
    round_id: str
    start: RoundStart | None = None
    wager_events: list[Wager | WagerRemoved] = field(default_factory=list)
    lockouts: list[Lockout] = field(default_factory=list)  # "no more bets": one, normally
    cards: list[CardDealt] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    reveals: list[Reveal] = field(default_factory=list)
    stub_counts: list[StubCount] = field(default_factory=list)
    exposures: list[CardExposed] = field(default_factory=list)
    settles: list[Settle] = field(default_factory=list)
    envy: list[EnvyPayout] = field(default_factory=list)
    void: Void | None = None
    end: RoundEnd | None = None
    faults: list[DeviceFault] = field(default_factory=list)
    meter: int | None = None  # the last progressive meter reading seen
    first_ts: str = ""
    last_ts: str = ""
    others: int = 0  # events applied that no list below collects (start, void, end)
    # event type -> the list above that collects it (the types that come many per
    # round; ``table.fold_events`` appends to them directly)
    collectors: dict[type, list[Any]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.collectors = {
            Wager: self.wager_events,
            WagerRemoved: self.wager_events,
            CardDealt: self.cards,
            Settle: self.settles,
            Decision: self.decisions,
            Reveal: self.reveals,
            EnvyPayout: self.envy,
            StubCount: self.stub_counts,
            CardExposed: self.exposures,
            Lockout: self.lockouts,
        }

    def apply(self, event: AnyRoundEvent) -> None:
        """Fold one round event into the round."""
        ts = event.ts
        if not self.first_ts:
            self.first_ts = ts
        self.last_ts = ts
        # One dict lookup on the exact type instead of a chain of isinstance tests.
        collect = self.collectors.get(type(event))
        if collect is not None:
            collect.append(event)
            return
        self.others += 1
        if isinstance(event, RoundStart):
            self.start = event
        elif isinstance(event, Void):
            self.void = self.void or event
        elif isinstance(event, RoundEnd):
            self.end = event
        else:  # a subclass of a collected type
            for cls, events in self.collectors.items():
                if isinstance(event, cls):
                    events.append(event)
                    self.others -= 1  # counted by its list
                    break

    def observe_fault(self, fault: DeviceFault) -> None:
        self.faults.append(fault)

    def observe_meter(self, meter: Meter) -> None:
        self.meter = meter.amount

    @property
    def lockout(self) -> Lockout | None:
        """The round's first lockout (when betting closed), if any."""
        return self.lockouts[0] if self.lockouts else None

    @property
    def event_count(self) -> int:
        """Round events applied (counted when asked: the fold's fast path only appends)."""
        lists = {id(events): events for events in self.collectors.values()}  # each list once
        return self.others + sum(map(len, lists.values()))

    @property
    def ts(self) -> str:
        return self.start.ts if self.start else self.first_ts


def fold_round(table_id: str, round_id: str, events: Iterable[AnyRoundEvent]) -> Round:
    """The round that ``events`` (all of one round, in order) describe."""
    state = Round(table_id, round_id)
    for event in events:
        state.apply(event)
    return state
