"""JACKPOT_PAID_FROM_INVENTORY: a share-of-the-meter progressive payout paid from the table.

A meter payout may not be paid from the table inventory container; the
game's settlement marks such a line with its ``not_from_inventory_section``,
which the finding cites. A meter payout whose source is not reported is flagged
too: nothing shows it did not come from the inventory.
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.checks.context import RoundContext, cents
from tablewatch.rules.checks.settled_lines import first_settles
from tablewatch.rules.findings import Finding

CODE: Final = "JACKPOT_PAID_FROM_INVENTORY"


def check(ctx: RoundContext) -> list[Finding]:
    if not ctx.settlement.jackpots:
        return []  # no line of this round needs a floorperson or a source: the usual round
    lines = ctx.settlement.lines
    out = []
    for key, settle in first_settles(ctx).items():
        if settle.result != "win" or settle.paid_from == "cage":
            continue
        expected = lines.get(key)
        if expected is None or expected.not_from_inventory_section is None:
            continue
        source = (
            "from the table inventory container"
            if settle.paid_from == "table_inventory"
            else "with no payment source reported"
        )
        out.append(
            ctx.finding(
                CODE,
                expected.not_from_inventory_section,
                f"seat {settle.seat} {settle.bet}: {(expected.hand or '').replace('_', ' ')} pays "
                f"{expected.odds}; {cents(settle.paid)} was paid {source}",
                seat=settle.seat,
                bet=settle.bet,
                actual=settle.paid,
                event_ids=(settle.event_id,),
            )
        )
    return out
