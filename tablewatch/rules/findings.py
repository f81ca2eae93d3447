"""A finding: one discrepancy in one round (or at one table), with its evidence."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from tablewatch.rules.checks.catalog import CHECKS


@dataclass(frozen=True, slots=True)
class Finding:
    table_id: str
    round_id: str | None
    check: str
    regulation: str
    message: str
    seat: int | None = None
    bet: str | None = None
    expected: int | None = None  # cents, where money is involved
    actual: int | None = None  # cents
    event_ids: tuple[str, ...] = ()
    ts: str | None = None  # when it happened (the evidence's or the round's timestamp)

    @property
    def severity(self) -> str:
        return CHECKS[self.check].severity

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["severity"] = self.severity
        out["event_ids"] = list(self.event_ids)
        return out
