"""ENVY_BONUS_WRONG: an Envy Bonus missing, of the wrong amount, or paid for an ineligible hand.

The game's ``Sections.envy`` (its descriptor in :mod:`tablewatch.rules.games`
cites the rule and, for each Envy Bonus table, its pay-table section). A
player is owed one bonus per *other* player holding a qualifying hand; never
one for his own hand or the dealer's.
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.checks.context import RoundContext, cents
from tablewatch.rules.findings import Finding
from tablewatch.rules.settlement import ExpectedEnvy

CODE: Final = "ENVY_BONUS_WRONG"


def check(ctx: RoundContext, *, complete: bool = True) -> list[Finding]:
    """``complete``: the round ended, so an Envy Bonus not paid is a missing one."""
    out: list[Finding] = []
    if not ctx.settlement.envy and not ctx.rnd.envy:
        return out  # none owed, none paid: the usual round
    owed: dict[tuple[int, int], list[ExpectedEnvy]] = {}
    for envy in ctx.settlement.envy:
        owed.setdefault((envy.seat, envy.for_seat), []).append(envy)
    rule = ctx.sections.envy
    for paid in ctx.rnd.envy:
        if paid.seat == paid.for_seat:
            out.append(
                ctx.finding(
                    CODE,
                    rule,
                    f"seat {paid.seat} was paid an Envy Bonus of {cents(paid.paid)} for its own "
                    "hand",
                    seat=paid.seat,
                    expected=0,
                    actual=paid.paid,
                    event_ids=(paid.event_id,),
                )
            )
            continue
        candidates = owed.get((paid.seat, paid.for_seat), [])
        match = next((e for e in candidates if e.paid == paid.paid), None)
        if match is not None:
            candidates.remove(match)
            continue
        if candidates:
            due = candidates.pop(0)
            out.append(
                ctx.finding(
                    CODE,
                    due.section,
                    f"seat {paid.seat}'s Envy Bonus for seat {paid.for_seat}'s "
                    f"{due.hand.replace('_', ' ')} is {cents(due.paid)}; {cents(paid.paid)} paid",
                    seat=paid.seat,
                    expected=due.paid,
                    actual=paid.paid,
                    event_ids=(paid.event_id,),
                )
            )
            continue
        who = ctx.rules.envy_unearned
        out.append(
            ctx.finding(
                CODE,
                rule,
                f"seat {paid.seat} was paid an Envy Bonus of {cents(paid.paid)} for seat "
                f"{paid.for_seat}, which holds no qualifying hand (or {who} hand earns none)",
                seat=paid.seat,
                expected=0,
                actual=paid.paid,
                event_ids=(paid.event_id,),
            )
        )
    if not complete:
        return out
    for missing in (e for dues in owed.values() for e in dues):
        out.append(
            ctx.finding(
                CODE,
                missing.section,
                f"seat {missing.seat} was owed an Envy Bonus of {cents(missing.paid)} for seat "
                f"{missing.for_seat}'s {missing.hand.replace('_', ' ')}, and was not paid",
                seat=missing.seat,
                expected=missing.paid,
                actual=0,
                event_ids=_progressive_ids(ctx, missing.seat),
            )
        )
    return out


def _progressive_ids(ctx: RoundContext, seat: int) -> list[str]:
    for bet in ctx.rules.envy_wagers:
        wager = ctx.view.wagers.get((seat, bet))
        if wager:
            return wager.event_ids
    return []
