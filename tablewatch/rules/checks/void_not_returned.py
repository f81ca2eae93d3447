"""VOID_NOT_RETURNED: in a voided round every wager is returned, none paid or collected.

The section is that of the cause the round had to be voided for (see
``round_not_voided``), else the game's ``Sections.void``.

The money: ``expected`` is the stake the table kept where it was due back (a wager
settled ``lose``: the stake, else 0), ``actual`` what it paid (the ``settle``'s or the
Envy Bonus's ``paid``).
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.checks.context import RoundContext, cents
from tablewatch.rules.findings import Finding

CODE: Final = "VOID_NOT_RETURNED"


def check(ctx: RoundContext) -> list[Finding]:
    void = ctx.rnd.void
    if void is None:
        return []
    out = []
    section = ctx.void_causes[0].section if ctx.void_causes else ctx.sections.void
    for settle in ctx.rnd.settles:
        if settle.result == "returned" and settle.paid == 0:
            continue
        out.append(
            ctx.finding(
                CODE,
                section,
                f"round voided ({void.reason}) but seat {settle.seat} {settle.bet} was settled "
                f"`{settle.result}` with {cents(settle.paid)} paid instead of returned",
                seat=settle.seat,
                bet=settle.bet,
                expected=_stake(ctx, settle.seat, settle.bet) if settle.result == "lose" else 0,
                actual=settle.paid,
                event_ids=(settle.event_id, void.event_id),
            )
        )
    for envy in ctx.rnd.envy:
        if envy.paid:
            out.append(
                ctx.finding(
                    CODE,
                    section,
                    f"round voided ({void.reason}) but an Envy Bonus of {cents(envy.paid)} was "
                    f"paid to seat {envy.seat}",
                    seat=envy.seat,
                    expected=0,
                    actual=envy.paid,
                    event_ids=(envy.event_id, void.event_id),
                )
            )
    return out


def _stake(ctx: RoundContext, seat: int, bet: str) -> int:
    """The stake of ``seat``'s ``bet``: its wager's amount, or that of the decision that
    made it (the game's ``decision_wagers``); 0 when neither is there."""
    amount = ctx.view.amount(seat, bet)
    if amount:
        return amount
    made = ctx.rules.decision_wagers
    for decision in ctx.rnd.decisions:
        if decision.seat == seat and made.get(decision.action) == bet and decision.amount:
            return decision.amount
    return 0
