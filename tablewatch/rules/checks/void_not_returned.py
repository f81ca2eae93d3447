"""VOID_NOT_RETURNED: in a voided round every wager is returned, none paid or collected.

The section is that of the cause the round had to be voided for (see
``round_not_voided``), else the game's ``void`` (§ 641a.13, § 643a.13).
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
                expected=0,
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
