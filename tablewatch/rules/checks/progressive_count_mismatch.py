"""PROGRESSIVE_COUNT_MISMATCH: progressive chips on the layout differ from wagers accepted.

At lockout the dealer verifies that the progressive chips equal the wagers
the progressive system accepted (the game's ``progressive_count`` by dealing,
as its descriptor in :mod:`tablewatch.rules.games` cites them).
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.checks.context import RoundContext
from tablewatch.rules.findings import Finding

CODE: Final = "PROGRESSIVE_COUNT_MISMATCH"


def check(ctx: RoundContext) -> list[Finding]:
    lockout = ctx.rnd.lockout
    if lockout is None or lockout.progressive_accepted == lockout.progressive_chips:
        return []
    return [
        ctx.finding(
            CODE,
            ctx.dealing_section(ctx.sections.progressive_count),
            f"{lockout.progressive_chips} progressive chip(s) on the layout but the progressive "
            f"system accepted {lockout.progressive_accepted} wager(s)",
            event_ids=(lockout.event_id,),
        )
    ]
