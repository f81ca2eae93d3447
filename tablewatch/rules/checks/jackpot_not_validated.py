"""JACKPOT_NOT_VALIDATED: a progressive payout with no floorperson's validation.

A winning line the game's settlement marks with a ``validation_section``
(a progressive payout, or a side wager's large one) cites that section.
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.checks.context import RoundContext, cents
from tablewatch.rules.checks.settled_lines import first_settles
from tablewatch.rules.findings import Finding

CODE: Final = "JACKPOT_NOT_VALIDATED"


def check(ctx: RoundContext) -> list[Finding]:
    if not ctx.settlement.jackpots:
        return []  # no line of this round needs a floorperson or a source: the usual round
    lines = ctx.settlement.lines
    out = []
    for key, settle in first_settles(ctx).items():
        if settle.result != "win" or settle.validated_by:
            continue
        expected = lines.get(key)
        if expected is None or expected.validation_section is None:
            continue
        out.append(
            ctx.finding(
                CODE,
                expected.validation_section,
                f"seat {settle.seat} {settle.bet}: a progressive payout of {cents(settle.paid)} "
                f"({(expected.hand or '').replace('_', ' ')}) with no floorperson validation",
                seat=settle.seat,
                bet=settle.bet,
                actual=settle.paid,
                event_ids=(settle.event_id,),
            )
        )
    return out
