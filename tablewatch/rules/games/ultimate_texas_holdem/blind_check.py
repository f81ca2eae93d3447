"""UNEQUAL_BETS at Ultimate Texas Hold 'Em: the Blind must equal the Ante.

The Ante and the Blind are two required, equal wagers (the protocol). Cited
§ 653a.7 (wagers; its text was not read). One of the game's own checks:
``expected`` is the Ante, ``actual`` the Blind.
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.checks.context import RoundContext, cents
from tablewatch.rules.findings import Finding

CODE: Final = "UNEQUAL_BETS"
SECTION: Final = "§ 653a.7"


def check(ctx: RoundContext) -> list[Finding]:
    view = ctx.view
    out = []
    for seat in view.seats():
        bets = view.bets(seat)
        ante, blind = bets.get("ante"), bets.get("blind")
        ante_amount = ante.amount if ante else 0
        blind_amount = blind.amount if blind else 0
        if ante_amount == blind_amount:
            continue
        out.append(
            ctx.finding(
                CODE,
                SECTION,
                f"Blind of {cents(blind_amount)} and Ante of {cents(ante_amount)}: the Blind "
                "must equal the Ante",
                seat=seat,
                bet="blind",
                expected=ante_amount,
                actual=blind_amount,
                event_ids=[*(ante.event_ids if ante else ()), *(blind.event_ids if blind else ())],
            )
        )
    return out
