"""METER_INCREMENT_WRONG: a progressive meter that does not grow by its rate of progression.

A table's configuration states its progressive's rate of progression
(``progressive_rate``: the share of each progressive wager added to the meter) and its
reset amount (``progressive_reset``). From the first meter reading a round carries, the
fold keeps the band the meter must lie in: each round adds ``rate × A`` (``A`` the
round's progressive wagers on the layout at the lockout, cents; the wagers of the slot
the game's ``progressive_reset`` names), give or take ``meter_cents_per_wager`` cents
for each of its ``n`` wagers (the rounding a controller may make on each wager: down,
up, or carried). A voided round may or may not have grown the meter: its share widens
the band upwards only. A meter payout (a ``settle`` carrying ``meter``) reads the meter
at the payment and sets it back to the reset amount.

The readings compared are each round's last ``meter`` reading (a ``meter`` event
before or during the round: it may or may not include the round's own wagers, so the
band runs from before the round's growth to after it) and the ``meter`` of each meter
payout. A reading outside the band is a finding: the statistic is how many cents it
lies outside, the threshold 0. This is a bound, not a test: honest play within the
stated rounding never passes it, whatever its length. After a finding the band starts
again from the reading; one finding per table and shift.

It assumes the controller sends a reading whenever the meter moves (the protocol's
``meter`` event): a meter reported rarely reads as one that stopped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

import msgspec

from tablewatch.finding_money import dollars
from tablewatch.patterns.finding import PatternFinding, RoundKey
from tablewatch.patterns.pattern_round import PatternRound, pattern_round
from tablewatch.rules.events import ts_to_ms
from tablewatch.rules.round_result import RoundResult
from tablewatch.rules.table_config import TableConfig

CHECK: Final = "METER_INCREMENT_WRONG"
STATISTIC: Final = "cents outside the meter's band"
FALSE_ALARMS: Final = "none on honest play within the stated rounding (a bound, not a test)"
HOUR_MS: Final = 3_600_000
EVIDENCE_ROUNDS: Final = 5


@dataclass(slots=True)
class _Meter:
    """One table's band: the meter lies in [low, high] (cents) after the rounds read."""

    low: float
    high: float
    base: int  # the reading (or reset) the band grew from
    base_ts: str
    wagered: int = 0  # progressive cents since the base
    wagers: int = 0
    recent: list[RoundKey] = field(default_factory=list)  # the last rounds, newest last
    reported_shift: int | None = None


_ENCODER = msgspec.msgpack.Encoder()
_METERS = msgspec.msgpack.Decoder(dict[str, _Meter])


class MeterRate:
    """The fold: ``feed(round)`` gives the METER_INCREMENT_WRONG findings the round shows."""

    def __init__(self, configs: Mapping[str, TableConfig]) -> None:
        self._configs = configs
        self._meters: dict[str, _Meter] = {}

    def feed(self, result: RoundResult) -> list[PatternFinding]:
        """:meth:`take` of the round's figures."""
        return self.take(pattern_round(result))

    def take(self, result: PatternRound) -> list[PatternFinding]:
        """The findings the round shows."""
        config = self._configs.get(result.table_id)
        if config is None or not config.progressive_rate:
            return []
        reading = result.meter
        meter = self._meters.get(result.table_id)
        if meter is None:
            if reading is None:
                return []
            meter = self._meters[result.table_id] = _Meter(
                reading, reading, reading, result.start_ts
            )
        key = (result.table_id, result.round_id)
        meter.recent = [*meter.recent[-(EVIDENCE_ROUNDS - 1) :], key]
        amounts = result.progressive
        slack = config.patterns.meter_cents_per_wager * len(amounts)
        growth = config.progressive_rate * sum(amounts)
        low_before = meter.low
        meter.high += growth + slack
        if not result.voided:
            meter.low += growth - slack
        meter.wagered += sum(amounts)
        meter.wagers += len(amounts)
        payouts = result.meter_paid
        out: list[PatternFinding] = []
        if not payouts and reading is not None:
            out += self._compare(result, config, meter, reading, low_before, "read")
        for paid_at in payouts:
            out += self._compare(result, config, meter, paid_at, low_before, "paid at")
            reset = config.progressive_reset or 0
            self._meters[result.table_id] = meter = _Meter(
                reset, reset, reset, result.end_ts, reported_shift=meter.reported_shift
            )
            low_before = reset
        return out

    def save(self) -> bytes:
        """The fold's state, as bytes :meth:`load` reads."""
        return _ENCODER.encode(self._meters)

    def load(self, data: bytes) -> None:
        """Take the state :meth:`save` gave."""
        self._meters = _METERS.decode(data)

    def _compare(
        self,
        result: PatternRound,
        config: TableConfig,
        meter: _Meter,
        reading: int,
        low_before: float,
        how: str,
    ) -> list[PatternFinding]:
        low, high = min(low_before, meter.low), meter.high
        if low <= reading <= high:
            return []
        outside = reading - high if reading > high else low - reading
        settings = config.patterns
        shift = (ts_to_ms(result.start_ts) - settings.shift_start_hour * HOUR_MS) // (
            settings.shift_hours * HOUR_MS
        )
        base, base_ts, wagered, wagers = meter.base, meter.base_ts, meter.wagered, meter.wagers
        evidence = tuple(reversed(meter.recent))
        # the band starts again from the reading
        meter.low = meter.high = meter.base = reading
        meter.base_ts = result.start_ts
        meter.wagered = meter.wagers = 0
        meter.recent = []
        if meter.reported_shift == shift:
            return []
        meter.reported_shift = shift
        rate = config.progressive_rate or 0.0
        return [
            PatternFinding(
                check=CHECK,
                unit=result.table_id,
                table_id=result.table_id,
                message=(
                    f"{result.table_id}'s progressive meter {how} {dollars(reading)}: from "
                    f"{dollars(base)} ({base_ts}) the rate of progression {rate:.2%} of "
                    f"{dollars(wagered)} in {wagers:,} progressive wagers makes it "
                    f"{dollars(int(low))} to {dollars(int(high + 0.999))} (rounding "
                    f"{settings.meter_cents_per_wager} cent(s) a wager)"
                ),
                statistic_name=STATISTIC,
                statistic=float(outside),
                threshold=0.0,
                false_alarm_rate=FALSE_ALARMS,
                evidence=evidence,
                first_ts=base_ts,
                last_ts=result.end_ts,
            )
        ]
