"""A table's ``patterns:`` settings: the thresholds of the patterns across rounds.

Every key is optional; an absent one takes its default (:class:`PatternSettings`).
What each statistic is and the false-alarm rate its default was set for is in
``docs/patterns.md``.

- ``shift_hours`` (8) and ``shift_start_hour`` (6, UTC): the shifts a table's hold is
  judged over, ``shift_hours`` long from ``shift_start_hour``: 06:00, 14:00, 22:00 UTC by
  default. ``shift_hours`` divides 24.
- ``hold_cusum_k`` (0.25) and ``hold_cusum_h`` (20.0): the two-sided CUSUM of the
  standardized house win per round (HOLD_OUT_OF_BAND): the reference value and the
  decision threshold, both in standard deviations of one round; ``hold_clip`` (4.0): a
  round's standardized win is clipped to plus or minus this before it is summed (a rare
  big payout moves the sum by at most this).
- ``meter_cents_per_wager`` (1): the rounding a progressive meter may make on each
  progressive wager it grows by (METER_INCREMENT_WRONG), in cents.
- ``dealer_error_alpha`` (1e-6) and ``dealer_min_errors`` (3): the one-sided Poisson
  test of a dealer's rate of one check against the floor's (DEALER_ERROR_RATE_HIGH): the
  p-value at or under which it is reported, and the fewest rounds with the finding.
- ``favours_seat_alpha`` (1e-6) and ``favours_seat_min_errors`` (3): the binomial test of
  the share of a dealer's errors in the players' favour that went to one seat or player
  (DEALER_FAVOURS_SEAT), the fewest such errors on it.
- ``advantage_false_alarm_hours`` (10000): the sequential test of a player's decisions
  against the dealer's first card (ADVANTAGE_PLAY_SUSPECTED) makes at most one false
  finding per this many honest player-hours (a unit's threshold falls as it plays:
  ``patterns/advantage_play.py``), that of the table where the decision was made.

:func:`parse_patterns` refuses an unknown key or a bad value with a ``ValueError``
naming the field and the reason (the configuration adds the table).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Final

HOURS_IN_DAY: Final = 24


@dataclass(frozen=True, slots=True)
class PatternSettings:
    shift_hours: int = 8
    shift_start_hour: int = 6
    hold_cusum_k: float = 0.25
    hold_cusum_h: float = 20.0
    hold_clip: float = 4.0
    meter_cents_per_wager: int = 1
    dealer_error_alpha: float = 1e-6
    dealer_min_errors: int = 3
    favours_seat_alpha: float = 1e-6
    favours_seat_min_errors: int = 3
    advantage_false_alarm_hours: int = 10_000


DEFAULT_PATTERNS: Final = PatternSettings()
_KNOWN: Final = tuple(f.name for f in fields(PatternSettings))


def parse_patterns(value: Any) -> PatternSettings:
    """The settings a table's ``patterns:`` gives (``None``: every default);
    ``ValueError`` "patterns.FIELD: reason" for the first problem."""
    if value is None:
        return DEFAULT_PATTERNS
    if not isinstance(value, dict):
        raise ValueError(
            f"patterns: a mapping of settings ({', '.join(_KNOWN)}), not a {type(value).__name__}"
        )
    changes: dict[str, Any] = {}
    for key, given in value.items():
        if key not in _KNOWN:
            raise ValueError(f"patterns.{key}: unknown setting (known: {', '.join(_KNOWN)})")
        changes[key] = _checked(str(key), given)
    settings = replace(DEFAULT_PATTERNS, **changes)
    if HOURS_IN_DAY % settings.shift_hours:
        raise ValueError(
            f"patterns.shift_hours: {settings.shift_hours} does not divide 24 (the shifts "
            "repeat each day)"
        )
    return settings


def _checked(key: str, given: Any) -> int | float:
    where = f"patterns.{key}"
    default = getattr(DEFAULT_PATTERNS, key)
    if isinstance(given, bool) or not isinstance(given, int | float):
        raise ValueError(f"{where}: a number, not {_kind(given)}")
    if isinstance(default, int) and not isinstance(given, int):
        raise ValueError(f"{where}: {given!r} is not a whole number")
    if key == "shift_hours" and not 1 <= given <= HOURS_IN_DAY:
        raise ValueError(f"{where}: {given} is not 1 to 24 hours")
    if key == "shift_start_hour" and not 0 <= given < HOURS_IN_DAY:
        raise ValueError(f"{where}: {given} is not an hour of the day, 0 to 23 (UTC)")
    if key.endswith("_alpha") and not 0 < given < 1:
        raise ValueError(f"{where}: {given!r} is not a probability over 0 and under 1")
    if key.endswith("_min_errors") and given < 1:
        raise ValueError(f"{where}: {given} is under 1")
    if key == "advantage_false_alarm_hours" and given < 1:
        raise ValueError(f"{where}: {given} is under 1")
    if key == "meter_cents_per_wager" and given < 0:
        raise ValueError(f"{where}: {given} is negative")
    if key.startswith("hold_") and not given > 0:
        raise ValueError(f"{where}: {given!r} is not above 0")
    return float(given) if isinstance(default, float) else given


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, str):
        return f"the text {value!r}"
    return f"a {type(value).__name__}"
