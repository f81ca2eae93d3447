"""The escalation clock: when an unacknowledged alert is raised again one level higher,
and when one nobody acknowledged is closed. Pure: the time is given.

Steps count from the raise: with ``escalation: [5m, 15m]`` an alert raised at t and not
acknowledged is raised at level 1 at t+5m and at level 2 at t+15m, never past the last
contact of its chain (``max_level``). An acknowledged or resolved alert never escalates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Due:
    """What is due for one alert now: the level it should have reached, and whether it
    is past its expiry."""

    level: int
    expired: bool


def due(
    *,
    raised_ms: int,
    level: int,
    acknowledged: bool,
    resolved: bool,
    steps_s: Sequence[float],
    max_level: int,
    expire_s: float,
    now_ms: int,
) -> Due:
    """The level an alert at ``level`` should be at ``now_ms`` (never lower than it is)."""
    if resolved or acknowledged:
        return Due(level, False)
    elapsed_s = (now_ms - raised_ms) / 1000
    reached = sum(1 for step in steps_s if elapsed_s >= step)
    return Due(max(level, min(reached, max_level)), elapsed_s >= expire_s)


def next_change_ms(
    *,
    raised_ms: int,
    level: int,
    steps_s: Sequence[float],
    max_level: int,
    expire_s: float,
) -> int:
    """When this alert's clock next has something to do (a step or its expiry)."""
    moments = [raised_ms + round(expire_s * 1000)]
    if level < max_level and level < len(steps_s):
        moments.append(raised_ms + round(steps_s[level] * 1000))
    return min(moments)
