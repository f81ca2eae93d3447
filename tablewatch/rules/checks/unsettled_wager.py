"""UNSETTLED_WAGER: every wager needs exactly one ``settle``.

A wager made by decision (the game's ``decision_wagers``) needs one too; a
bet withdrawn by decision (``withdrawn``) needs none (a ``returned`` line is
also right); a line the settlement marks ``optional`` (a house bonus not
won) is needed only when paid. In a voided round every wager is settled
``returned``. A round with no ``round_end`` is only checked for double
settlement. Section: the game's ``Sections.settlement``.
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.checks.context import RoundContext
from tablewatch.rules.checks.settled_lines import first_settles, settled_twice, settles_by_wager
from tablewatch.rules.findings import Finding
from tablewatch.rules.round_view import WagerKey

CODE: Final = "UNSETTLED_WAGER"


def check(ctx: RoundContext, *, complete: bool) -> list[Finding]:
    section = ctx.sections.settlement
    out: list[Finding] = []
    if settled_twice(ctx):
        for (seat, bet), lines in settles_by_wager(ctx).items():
            if len(lines) > 1:
                out.append(
                    ctx.finding(
                        CODE,
                        section,
                        f"seat {seat} {bet} settled {len(lines)} times",
                        seat=seat,
                        bet=bet,
                        actual=sum(s.paid for s in lines),
                        event_ids=[s.event_id for s in lines],
                    )
                )
    if not complete:
        return out
    unsettled = _unsettled(ctx)
    for seat, bet in sorted(unsettled):
        out.append(
            ctx.finding(
                CODE,
                section,
                f"seat {seat} {bet} was never settled",
                seat=seat,
                bet=bet,
                expected=None,
                event_ids=unsettled[(seat, bet)],
            )
        )
    return out


def _unsettled(ctx: RoundContext) -> dict[WagerKey, list[str]]:
    """The wagers that needed a settle line and have none, with the events that made them."""
    settled = first_settles(ctx)
    wagers = ctx.view.wagers
    missing: dict[WagerKey, list[str]] = {}
    if not settled.keys() >= wagers.keys():  # usually every wager has its line
        missing = {key: w.event_ids for key, w in wagers.items() if key not in settled}
    rules = ctx.rules
    made = rules.decision_wagers
    if made:  # a wager made by decision
        for decision in ctx.rnd.decisions:
            bet = made.get(decision.action)
            if bet is None:
                continue
            key = (decision.seat, bet)
            if key not in settled and key not in missing:
                missing[key] = [decision.event_id]
    withdrawn = rules.withdrawn
    if withdrawn is not None and ctx.rnd.void is None and missing:  # a withdrawn bet needs none
        for seat, bet in list(missing):
            if bet in withdrawn(ctx.view, seat):
                del missing[(seat, bet)]
    return missing
