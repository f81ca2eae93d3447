"""ROUND_ID_REUSED (this service's own): a round opened with a ``round_id`` that an earlier
round at the same table carried.

The protocol makes ``round_id`` unique per table (CONTROLLER_PROTOCOL v1,
common fields); a controller that was reset may number its rounds again. The
regulation text has no section on it. Both rounds are judged and stored
apart (a stored round is known by its table, its round_id and the event that
began it), so nothing of the first is replaced; this finding, on the second
round, says that the id is not enough to tell them apart and where the first
one began.

"Earlier" means among the last rounds the table remembers
(:data:`tablewatch.rules.table.ROUND_ID_WINDOW` in an audit; a restarted
worker starts from the last rounds its saved state carries): a first use that
has left the window is not detected. A round begun by the same event as the
remembered one (the same event_id, a re-send older than the duplicate window)
is the same round, not a reuse.
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.checks.table_level import table_finding
from tablewatch.rules.events import RoundEvent, event_type
from tablewatch.rules.findings import Finding
from tablewatch.rules.round_ids import RoundOpening

CODE: Final = "ROUND_ID_REUSED"
# No section of the regulation text: the protocol's contract.
SECTION: Final = "CONTROLLER_PROTOCOL v1 round_id unique per table"


def check(first: RoundOpening | None, opening: RoundEvent) -> Finding | None:
    """The finding on the round that ``opening`` begins, when ``first`` (where the first
    remembered round with its round_id began) is another event's."""
    if first is None or first.event_id == opening.event_id:
        return None
    return table_finding(
        opening.table_id,
        opening.round_id,
        CODE,
        SECTION,
        f"round_id {opening.round_id} used again at {opening.table_id}: first by the round "
        f"that began with event {first.event_id} (seq {first.seq}, {first.ts}), now by the "
        f"round that begins with `{event_type(opening)}` event {opening.event_id} "
        f"(seq {opening.seq}, {opening.ts}); the protocol makes round_id unique per table. "
        "Both rounds are judged and kept apart",
        (first.event_id, opening.event_id),
        opening.ts,
    )
