"""SEQUENCE_GAP: the controller's per-table ``seq`` skipped numbers, so events were lost.

Reported on the round the first event after the gap belongs to, or with no
round for a table event (CONTROLLER_PROTOCOL v1). SEQUENCE_REGRESSION (this
service's own): a new event_id whose seq is not above the last one seen.
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.checks.table_level import table_finding
from tablewatch.rules.events import Event
from tablewatch.rules.findings import Finding

CODE: Final = "SEQUENCE_GAP"
REGRESSION: Final = "SEQUENCE_REGRESSION"
SECTION: Final = "CONTROLLER_PROTOCOL v1 seq"


def check(last_seq: int | None, event: Event, round_id: str | None) -> Finding | None:
    if last_seq is None or event.seq == last_seq + 1:
        return None
    if event.seq > last_seq + 1:
        lost = event.seq - last_seq - 1
        return table_finding(
            event.table_id,
            round_id,
            CODE,
            SECTION,
            f"seq jumped from {last_seq} to {event.seq}: {lost} event(s) lost",
            (event.event_id,),
            event.ts,
        )
    return table_finding(
        event.table_id,
        round_id,
        REGRESSION,
        SECTION,
        f"seq {event.seq} after {last_seq}: events out of order or the controller restarted",
        (event.event_id,),
        event.ts,
    )
