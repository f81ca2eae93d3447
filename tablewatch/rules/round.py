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
    lockout: Lockout | None = None
    extra_lockouts: list[Lockout] = field(default_factory=list)
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
    event_count: int = 0

    def apply(self, event: AnyRoundEvent) -> None:
        """Fold one round event into the round."""
        self.event_count += 1
        if not self.first_ts:
            self.first_ts = event.ts
        self.last_ts = event.ts
        match event:
            case Wager() | WagerRemoved():
                self.wager_events.append(event)
            case CardDealt():
                self.cards.append(event)
            case Settle():
                self.settles.append(event)
            case Decision():
                self.decisions.append(event)
            case Reveal():
                self.reveals.append(event)
            case EnvyPayout():
                self.envy.append(event)
            case Lockout():
                if self.lockout is None:
                    self.lockout = event
                else:
                    self.extra_lockouts.append(event)
            case StubCount():
                self.stub_counts.append(event)
            case CardExposed():
                self.exposures.append(event)
            case RoundStart():
                self.start = event
            case Void():
                self.void = self.void or event
            case RoundEnd():
                self.end = event

    def observe_fault(self, fault: DeviceFault) -> None:
        self.faults.append(fault)

    def observe_meter(self, meter: Meter) -> None:
        self.meter = meter.amount

    @property
    def ts(self) -> str:
        return self.start.ts if self.start else self.first_ts


def fold_round(table_id: str, round_id: str, events: Iterable[AnyRoundEvent]) -> Round:
    """The round that ``events`` (all of one round, in order) describe."""
    state = Round(table_id, round_id)
    for event in events:
        state.apply(event)
    return state
