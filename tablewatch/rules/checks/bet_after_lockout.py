"""BET_AFTER_LOCKOUT: a wager placed, increased or removed after "no more bets".

No wager may be made, increased or withdrawn after the dealer announces "no
more bets" (the game's ``Sections.lockout``; a wager made or withdrawn by a
decision, the game's ``decision_wagers`` and ``withdrawn``, is a decision,
not a wager). Late means ``ts`` later than the lockout's.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Final

from tablewatch.rules.checks.context import RoundContext
from tablewatch.rules.events import Wager
from tablewatch.rules.findings import Finding

CODE: Final = "BET_AFTER_LOCKOUT"
_ts: Final = attrgetter("ts")


def check(ctx: RoundContext) -> list[Finding]:
    lockout = ctx.rnd.lockout
    events = ctx.rnd.wager_events
    if lockout is None or not events or max(map(_ts, events)) <= lockout.ts:
        return []  # the usual round: every wager before the lockout
    late = [event for event in events if event.ts > lockout.ts]
    section = ctx.sections.lockout
    out = []
    for event in late:
        what = "placed or increased" if isinstance(event, Wager) else "removed"
        amount = event.amount if isinstance(event, Wager) else None
        out.append(
            ctx.finding(
                CODE,
                section,
                f"seat {event.seat} {event.bet} {what} at {event.ts}, after the lockout at "
                f"{lockout.ts}",
                seat=event.seat,
                bet=event.bet,
                actual=amount,
                event_ids=(event.event_id, lockout.event_id),
            )
        )
    return out
