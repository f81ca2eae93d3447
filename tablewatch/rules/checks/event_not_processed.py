"""EVENT_NOT_PROCESSED (this service's own): a message of a table that the live worker could
not decode, judge or store.

The message went to the dead-letter topic instead of stopping the worker, so
the table's audit is missing it: whatever the event said (a wager, a settle,
a card) was not judged. The finding names the message's Kafka coordinates,
its ``event_id`` when it can be read, and why it was not processed. It is a
table-level finding (no round): the round the event may have belonged to was
judged without it, or not at all, and the message says which.
"""

from __future__ import annotations

from typing import Final, Literal

from tablewatch.rules.checks.table_level import table_finding
from tablewatch.rules.findings import Finding

CODE: Final = "EVENT_NOT_PROCESSED"
# The regulation text holds no general section on surveillance records; the protocol's
# contract is that an accepted event is never lost.
SECTION: Final = "CONTROLLER_PROTOCOL v1"
Stage = Literal["decode", "judge", "store"]
STAGE_WORDS: Final[dict[str, str]] = {
    "decode": "refused by the decoder",
    "judge": "could not be judged",
    "store": "could not be stored",
}
REASON_SHOWN: Final = 400  # characters of the reason in the message


def finding(
    table_id: str,
    where: str,
    event_id: str | None,
    stage: str,
    reason: str,
    ts: str | None,
) -> Finding:
    """``where``: the message's coordinates ("table-events partition 3 offset 1234")."""
    shown = reason if len(reason) <= REASON_SHOWN else reason[:REASON_SHOWN] + "..."
    ident = f"event_id {event_id}" if event_id else "event_id unreadable"
    return table_finding(
        table_id,
        None,
        CODE,
        SECTION,
        f"{where} ({ident}) {STAGE_WORDS.get(stage, stage)}, sent to the dead-letter topic: "
        f"{shown}",
        (event_id,) if event_id else (),
        ts,
    )
