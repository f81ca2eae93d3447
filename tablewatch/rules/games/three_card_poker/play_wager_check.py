"""PLAY_WAGER_OUT_OF_RANGE at Three Card Poker: a Play wager must equal the Ante.

Cited § 649a.7 (wagers; by the chapter's structure: no text of ch. 649a was
read). One of the game's own checks (its descriptor's ``checks``).
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.checks.context import RoundContext, cents
from tablewatch.rules.findings import Finding

CODE: Final = "PLAY_WAGER_OUT_OF_RANGE"
SECTION: Final = "§ 649a.7"


def check(ctx: RoundContext) -> list[Finding]:
    out = []
    for decision in ctx.rnd.decisions:
        if decision.action != "play" or decision.amount is None:
            continue
        ante = ctx.view.amount(decision.seat, "ante")
        if ante and decision.amount == ante:
            continue
        reason = "with no Ante wager" if not ante else f"other than the Ante of {cents(ante)}"
        out.append(
            ctx.finding(
                CODE,
                SECTION,
                f"Play wager of {cents(decision.amount)} {reason} (the Play equals the Ante)",
                seat=decision.seat,
                bet="play",
                expected=ante,
                actual=decision.amount,
                event_ids=(decision.event_id,),
            )
        )
    return out
