"""JACKPOT_NOT_VALIDATED: a progressive payout with no floorperson's validation.

§ 641a.11(c)(5)(iii); § 643a.11(g)(3)(iii) (three-card progressive),
(g)(4)(iii) (Five-Card Progressive), (g)(5)(ii) (Five Card Hand Bonus from
500 for 1, or a share of the meter).
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
