"""An alert as TableWatch keeps it: identity, where, what, and how far it has gone.

One alert per finding (or per silence of a controller); Alertmanager groups the alerts
of a table and check into one notification. An alert's id, and the id of every event of
its trail, is a hash of what it rests on (the finding's id, the silent table and the
last time it was heard), so an alerter that reads the same finding again after a
restart makes the same alert and the same trail rows (collapsed by the table's key).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

ALERTNAME = {"finding": "TableWatchFinding", "silent": "TableWatchControllerSilent"}


def stable_id(*parts: object, size: int = 10) -> str:
    """Hex digits of BLAKE2b over the parts (``size`` bytes)."""
    text = "\x1f".join(str(p) for p in parts)
    return hashlib.blake2b(text.encode(), digest_size=size).hexdigest()


def event_id(alert_id: str, kind: str, *detail: object) -> str:
    """The id of one event of an alert's trail: the same event recorded again gets it too."""
    return stable_id(alert_id, kind, *detail, size=16)


def iso_ms(ms: int) -> str:
    """Epoch milliseconds as RFC 3339 UTC with milliseconds."""
    at = datetime.fromtimestamp(ms / 1000, UTC)
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


@dataclass(frozen=True, slots=True)
class Alert:
    """An alert raised at ``raised_ms``, escalated to ``level`` (each level's shift in
    ``shifts``), perhaps acknowledged, perhaps resolved."""

    alert_id: str
    kind: str  # finding | silent
    table_id: str
    pit: str
    game: str
    check: str
    severity: str
    raised_ms: int
    finding_ids: tuple[str, ...]
    annotations: Mapping[str, str]
    generator_url: str
    shifts: tuple[str, ...]  # the shift when each level was raised: shifts[0] at the raise
    level_ms: tuple[int, ...] = ()  # when each level was raised (level_ms[0] == raised_ms)
    acknowledged_by: str | None = None
    acknowledged_ms: int | None = None
    note: str = ""
    resolved_ms: int | None = None
    silence_id: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def level(self) -> int:
        return len(self.shifts) - 1

    @property
    def open(self) -> bool:
        return self.resolved_ms is None

    def labels(self, level: int) -> dict[str, str]:
        return {
            "alertname": ALERTNAME[self.kind],
            "alert_id": self.alert_id,
            "table_id": self.table_id,
            "pit": self.pit,
            "game": self.game,
            "check": self.check,
            "severity": self.severity,
            "escalation": str(level),
            "shift": self.shifts[level],
        }

    def escalated(self, shift: str, at_ms: int) -> Alert:
        return replace(self, shifts=(*self.shifts, shift), level_ms=(*self.level_ms, at_ms))

    def acknowledged(self, by: str, note: str, at_ms: int) -> Alert:
        return replace(self, acknowledged_by=by, note=note, acknowledged_ms=at_ms)

    def resolved(self, at_ms: int) -> Alert:
        return replace(self, resolved_ms=at_ms)

    def postable(self, ends_ms: int) -> list[dict[str, Any]]:
        """The alert at every level raised, as Alertmanager's API v2 takes them
        (``endsAt`` past: resolved)."""
        return [
            {
                "labels": self.labels(level),
                "annotations": dict(self.annotations),
                "startsAt": iso_ms(self.level_ms[level] if self.level_ms else self.raised_ms),
                "endsAt": iso_ms(ends_ms),
                "generatorURL": self.generator_url,
            }
            for level in range(self.level + 1)
        ]

    def summary(self) -> dict[str, Any]:
        """What ``GET /api/v1/alerts`` lists."""
        return {
            "alert_id": self.alert_id,
            "kind": self.kind,
            "table_id": self.table_id,
            "pit": self.pit,
            "game": self.game,
            "check": self.check,
            "severity": self.severity,
            "escalation": self.level,
            "shift": self.shifts[-1],
            "raised_at": iso_ms(self.raised_ms),
            "acknowledged_by": self.acknowledged_by,
            "acknowledged_at": iso_ms(self.acknowledged_ms) if self.acknowledged_ms else None,
            "note": self.note,
            "resolved_at": iso_ms(self.resolved_ms) if self.resolved_ms else None,
            "open": self.open,
            "finding_ids": list(self.finding_ids),
            "summary": self.annotations.get("summary", ""),
            "round_url": self.annotations.get("round_url", ""),
        }
