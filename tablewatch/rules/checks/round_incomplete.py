"""ROUND_INCOMPLETE: a round with no ``round_end`` (CONTROLLER_PROTOCOL v1).

Live: none within the configured silence (15 minutes by default); in a file:
none before the file ends, or before the table's next round started.
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.checks.context import RoundContext
from tablewatch.rules.findings import Finding

CODE: Final = "ROUND_INCOMPLETE"


def check(ctx: RoundContext, why: str = "no round_end") -> list[Finding]:
    if ctx.rnd.end is not None:
        return []
    return [
        ctx.finding(
            CODE,
            f"CONTROLLER_PROTOCOL v1 round_end; {ctx.sections.round_end}",
            f"{why}: last event at {ctx.rnd.last_ts} ({ctx.rnd.event_count} event(s))",
            event_ids=(ctx.rnd.start.event_id,) if ctx.rnd.start else (),
        )
    ]
