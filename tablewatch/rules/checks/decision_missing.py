"""DECISION_MISSING: a seat with a live wager that made no closing decision before the reveal.

Generic: what is due and by when is the game's descriptor's
``decision_deadline`` (:class:`~tablewatch.rules.game_rules.DecisionDeadline`):
the wager that makes a decision due, the decision actions that close a seat
(e.g. play or fold), the reveal by which one is due and the section cited. A
game lists the check among its own (``GameCheck(CODE, check)``); a game with
no deadline has no such finding. A decision counts when its ``seq`` is below
the reveal's; with no reveal, the round's first settle line (or its
``round_end``) is the deadline; a round with none of them is not judged here
(ROUND_INCOMPLETE says so), nor a voided round. The seat's wagers are then
expected settled as after a fold (the game's settlement).
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.checks.context import RoundContext, cents
from tablewatch.rules.events import RoundEvent
from tablewatch.rules.findings import Finding

CODE: Final = "DECISION_MISSING"


def check(ctx: RoundContext) -> list[Finding]:
    deadline = ctx.rules.decision_deadline
    rnd = ctx.rnd
    if deadline is None or rnd.void is not None:
        return []
    due: RoundEvent | None = ctx.view.reveals.get(deadline.reveal)
    when = deadline.reveal_name
    if due is None:
        due = rnd.settles[0] if rnd.settles else rnd.end
        when = "the round was settled" if rnd.settles else "the round ended"
        if due is None:
            return []
    closing = deadline.closing
    out = []
    view = ctx.view
    for seat in view.seats():
        wager = view.bets(seat).get(deadline.wager)
        if wager is None or not wager.amount:
            continue
        decisions = [d for d in view.decisions.get(seat, ()) if d.action in closing]
        if any(d.seq < due.seq for d in decisions):
            continue
        late = f" (its {decisions[0].action} came after)" if decisions else ""
        out.append(
            ctx.finding(
                CODE,
                deadline.section,
                f"seat {seat} neither {' nor '.join(_past(a) for a in closing)} on its "
                f"{deadline.wager} of {cents(wager.amount)} before {when}{late}: its wagers "
                "are settled as after a fold",
                seat=seat,
                bet=deadline.wager,
                actual=wager.amount,
                event_ids=(
                    *wager.event_ids,
                    due.event_id,
                    *(d.event_id for d in decisions[:1]),
                ),
            )
        )
    return out


def _past(action: str) -> str:
    """A decision action in the past tense ("play" -> "played", "fold" -> "folded")."""
    return action + ("d" if action.endswith("e") else "ed")
