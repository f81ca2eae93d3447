"""Events at table pace: each when it is due, ``speed`` times faster than life.

``tablewatch simulate --follow`` (to stdout or an ingest endpoint) and
``tablewatch live`` stream a simulated floor this way.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from typing import Protocol, TypeVar

from tablewatch.rules.events import ts_to_ms


class Timed(Protocol):
    @property
    def ts(self) -> str: ...


E = TypeVar("E", bound=Timed)


def paced(
    events: Iterable[E],
    speed: float,
    wait: Callable[[float], object],
    *,
    until_s: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[E]:
    """``events``, each once it is due: its ``ts`` after the first event's, divided by
    ``speed``, from when the first is asked for. ``wait(seconds)`` passes the time until
    the next one is due (it may do work meanwhile: flush, post a batch). With
    ``until_s``, the events stop before the first one due later than that."""
    started = clock()
    first_ms: int | None = None
    for event in events:
        ms = ts_to_ms(event.ts)
        if first_ms is None:
            first_ms = ms
        due = (ms - first_ms) / 1000 / speed
        if until_s is not None and due > until_s:
            return
        remaining = due - (clock() - started)
        if remaining > 0:
            wait(remaining)
        yield event
