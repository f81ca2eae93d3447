"""A pattern's finding: a statistic over many rounds that passed its threshold, with evidence.

A :class:`PatternFinding` says what it is about (its ``unit``: a player id, a
``table:dealer:seat``, a dealer id, a table), the statistic and the threshold
it passed, the false-alarm rate that threshold was set for, and the rounds that
weigh most. :meth:`PatternFinding.as_finding` makes it a
:class:`~tablewatch.rules.findings.Finding` like any other, so the store,
casework and alerts take it unchanged: on the heaviest evidence round, with the
statistic in its message and, in place of a regulation section, what the test
rests on (:data:`BASIS`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from tablewatch.rules.findings import Finding

# What each pattern rests on, written where a per-round finding cites its section: no
# regulation section was read for surveillance across rounds; these are TableWatch's own
# statistical tests.
BASIS: Final[dict[str, str]] = {
    "ADVANTAGE_PLAY_SUSPECTED": (
        "TableWatch statistic: sequential likelihood-ratio test of decisions against the "
        "game's known strategy (no regulation section)"
    ),
    "DEALER_FAVOURS_SEAT": (
        "TableWatch statistic: binomial test of one seat's share of a dealer's money errors "
        "in the player's favour (no regulation section)"
    ),
    "DEALER_ERROR_RATE_HIGH": (
        "TableWatch statistic: one-sided Poisson test of a dealer's rate of a check against "
        "the floor's (no regulation section)"
    ),
    "HOLD_OUT_OF_BAND": (
        "TableWatch statistic: two-sided CUSUM of the house's win per round against the "
        "game's exact edge and variance (no regulation section)"
    ),
    "METER_INCREMENT_WRONG": (
        "TableWatch statistic: meter increments against the configured rate of progression "
        "times the progressive wagers accepted (no regulation section)"
    ),
}

RoundKey = tuple[str, str]  # (table_id, round_id)


@dataclass(frozen=True, slots=True)
class PatternFinding:
    """One pattern found: what about, the statistic against its threshold, the evidence.

    ``evidence`` holds (table_id, round_id) of the rounds that weigh most, heaviest
    first; ``first_ts`` and ``last_ts`` bound the rounds the statistic read (UTC, with
    milliseconds, as the rounds carry them).
    """

    check: str
    unit: str  # a player id, "table:dealer:seat", a dealer id, a table id
    table_id: str | None  # None: the pattern spans tables (a dealer's)
    message: str  # one line for a floor manager
    statistic_name: str
    statistic: float
    threshold: float
    false_alarm_rate: str  # e.g. "1 per 10,000 player-hours"
    evidence: tuple[RoundKey, ...]
    first_ts: str
    last_ts: str
    seat: int | None = None

    def __post_init__(self) -> None:
        if self.check not in BASIS:
            raise ValueError(f"pattern finding {self.unit}: check {self.check!r} is no pattern")

    @property
    def origin(self) -> str:
        """What tells this finding apart from another of the same check on the same round
        and seat (its stored id's ``origin``): the unit, the statistic and the rounds' span."""
        return f"pattern {self.unit} {self.statistic_name} {self.first_ts} {self.last_ts}"

    @property
    def regulation(self) -> str:
        """What the test rests on (no regulation section)."""
        return BASIS[self.check]

    def as_finding(self) -> Finding:
        """The finding the store, casework and alerts take: on the heaviest evidence round
        (of this table; a pattern spanning tables goes on that round's table), or on the
        table alone when there is no evidence round."""
        heaviest = self.evidence[0] if self.evidence else None
        table_id = self.table_id
        if table_id is None:
            table_id = heaviest[0] if heaviest else ""
        round_id = heaviest[1] if heaviest and heaviest[0] == table_id else None
        return Finding(
            table_id=table_id,
            round_id=round_id,
            check=self.check,
            regulation=self.regulation,
            message=(
                f"{self.message} ({self.statistic_name} {self.statistic:.2f}, threshold "
                f"{self.threshold:.2f}, false alarms {self.false_alarm_rate}; "
                f"{self.first_ts} to {self.last_ts})"
            ),
            seat=self.seat,
            event_ids=(),
            ts=self.last_ts,
        )
