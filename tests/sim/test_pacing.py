"""paced: events when they are due at speed times table pace, and no later than until_s."""

from __future__ import annotations

from dataclasses import dataclass

from tablewatch.sim.pacing import paced


@dataclass
class Event:
    ts: str


class Clock:
    """A clock that moves only when waited on (and by what the caller says)."""

    def __init__(self) -> None:
        self.now = 100.0
        self.waits: list[float] = []

    def __call__(self) -> float:
        return self.now

    def wait(self, seconds: float) -> None:
        self.waits.append(round(seconds, 6))
        self.now += seconds


EVENTS = [
    Event("2026-11-29T20:00:00.000Z"),
    Event("2026-11-29T20:00:01.000Z"),
    Event("2026-11-29T20:00:01.000Z"),
    Event("2026-11-29T20:00:04.000Z"),
]


def test_each_event_is_waited_for_at_speed() -> None:
    clock = Clock()
    out = list(paced(EVENTS, 2.0, clock.wait, clock=clock))
    assert out == EVENTS
    assert clock.waits == [0.5, 1.5]  # due at 0.5 s and 2.0 s; the second at 0.5 s too
    assert clock.now == 102.0


def test_time_already_spent_is_not_waited_again() -> None:
    clock = Clock()
    seen = []
    for event in paced(EVENTS, 1.0, clock.wait, clock=clock):
        seen.append(event)
        clock.now += 0.75  # the caller's own work
    assert seen == EVENTS
    assert clock.waits == [0.25, 1.5]  # due at 1 s (0.75 s spent), then at 4 s (2.5 s spent)


def test_until_stops_before_the_first_event_due_later() -> None:
    clock = Clock()
    assert list(paced(EVENTS, 2.0, clock.wait, until_s=0.5, clock=clock)) == EVENTS[:3]
    assert list(paced(EVENTS, 1.0, clock.wait, until_s=0.0, clock=clock)) == EVENTS[:1]
    assert list(paced([], 1.0, clock.wait, until_s=10, clock=clock)) == []
