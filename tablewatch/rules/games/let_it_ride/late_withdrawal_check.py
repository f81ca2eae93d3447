"""LATE_WITHDRAWAL: a Let It Ride bet pulled after the card that closes its decision was turned.

§ 643a.11(b)-(e): Bet 1 may be pulled until the first community card is
turned, Bet 2 until the second. A pull later than that reveal's ``ts`` is late.
One of Let It Ride's own checks (its descriptor's ``checks``).
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.checks.context import RoundContext
from tablewatch.rules.findings import Finding

CODE: Final = "LATE_WITHDRAWAL"
CLOSES: Final = {"bet1": (1, "§ 643a.11(b), (c)"), "bet2": (2, "§ 643a.11(d), (e)")}


def check(ctx: RoundContext) -> list[Finding]:
    out = []
    for decision in ctx.rnd.decisions:
        if decision.action != "pull" or decision.bet not in CLOSES:
            continue
        index, section = CLOSES[decision.bet]
        reveal = ctx.view.reveals.get(("community", index))
        if reveal is not None and decision.ts > reveal.ts:
            out.append(
                ctx.finding(
                    CODE,
                    section,
                    f"{decision.bet} pulled at {decision.ts}, after community card {index} was "
                    f"turned at {reveal.ts}",
                    seat=decision.seat,
                    bet=decision.bet,
                    actual=ctx.view.amount(decision.seat, decision.bet),
                    event_ids=(decision.event_id, reveal.event_id),
                )
            )
    return out
