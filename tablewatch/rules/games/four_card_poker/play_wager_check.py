"""PLAY_WAGER_OUT_OF_RANGE: a Four Card Poker Play wager must be 1 to 3 times the Ante.

§ 641a.7(d)(1), § 641a.11(b). Four Card Poker's own check (its descriptor's ``checks``).
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.checks.context import RoundContext, cents
from tablewatch.rules.findings import Finding

CODE: Final = "PLAY_WAGER_OUT_OF_RANGE"


def check(ctx: RoundContext) -> list[Finding]:
    out = []
    for decision in ctx.rnd.decisions:
        if decision.action != "play" or decision.amount is None:
            continue
        ante = ctx.view.amount(decision.seat, "ante")
        if ante and ante <= decision.amount <= 3 * ante:
            continue
        bound = ante if decision.amount < ante or not ante else 3 * ante
        reason = (
            "with no Ante wager"
            if not ante
            else f"outside 1x-3x the Ante of {cents(ante)} ({cents(ante)}-{cents(3 * ante)})"
        )
        out.append(
            ctx.finding(
                CODE,
                "§ 641a.7(d)(1)",
                f"Play wager of {cents(decision.amount)} {reason}",
                seat=decision.seat,
                bet="play",
                expected=bound,
                actual=decision.amount,
                event_ids=(decision.event_id,),
            )
        )
    return out
