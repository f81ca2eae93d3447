"""UNEQUAL_BETS: Let It Ride Bets 1, 2 and 3 must be three equal wagers (§ 643a.7(d)).

One of Let It Ride's own checks (its descriptor's ``checks``). The money: ``expected``
is the seat's lowest of the three, ``actual`` its highest (no one of them is the right one).
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.checks.context import RoundContext
from tablewatch.rules.findings import Finding

CODE: Final = "UNEQUAL_BETS"
MAIN_BETS: Final = ("bet1", "bet2", "bet3")


def check(ctx: RoundContext) -> list[Finding]:
    view = ctx.view
    out = []
    for seat in view.seats():
        amounts = [view.amount(seat, bet) for bet in MAIN_BETS]
        if amounts[0] == amounts[1] == amounts[2]:
            continue  # three equal wagers, or none
        ids = [i for bet in MAIN_BETS for i in _ids(ctx, seat, bet)]
        out.append(
            ctx.finding(
                CODE,
                "§ 643a.7(d)",
                "bets 1, 2, 3 are "
                + ", ".join(f"{a / 100:,.2f}" for a in amounts)
                + ": three equal wagers are required",
                seat=seat,
                expected=min(amounts),
                actual=max(amounts),
                event_ids=ids,
            )
        )
    return out


def _ids(ctx: RoundContext, seat: int, bet: str) -> list[str]:
    wager = ctx.view.wagers.get((seat, bet))
    return wager.event_ids if wager else []
