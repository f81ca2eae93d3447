"""PLAY_WAGER_OUT_OF_RANGE at Ultimate Texas Hold 'Em: a Play of a multiple its street does
not allow, or a second Play.

One Play per seat at most: before the flop 3x or 4x the Ante, after the flop
(before the turn and river) 2x, after them 1x; the street is the one the
decision came in (by ``seq``, against the community reveals). Cited
§ 653a.7 (wagers; its text was not read). One of the game's own checks.
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.checks.context import RoundContext, cents
from tablewatch.rules.events import Decision
from tablewatch.rules.findings import Finding

CODE: Final = "PLAY_WAGER_OUT_OF_RANGE"
SECTION: Final = "§ 653a.7"
FLOP: Final = ("community", 1)
TURN_AND_RIVER: Final = ("community", 2)
STREETS: Final = (
    ("before the flop", (3, 4)),
    ("after the flop", (2,)),
    ("after the turn and river", (1,)),
)


def multiples_allowed(ctx: RoundContext, decision: Decision) -> tuple[str, tuple[int, ...]]:
    """The street of ``decision`` and the multiples of the Ante a Play may be in it."""
    street = 0
    for number, key in enumerate((FLOP, TURN_AND_RIVER), start=1):
        reveal = ctx.view.reveals.get(key)
        if reveal is not None and reveal.seq < decision.seq:
            street = number
    return STREETS[street]


def check(ctx: RoundContext) -> list[Finding]:
    out = []
    for decisions in ctx.view.decisions.values():
        played: Decision | None = None
        for decision in decisions:
            if decision.action != "play" or decision.amount is None:
                continue
            finding = _wrong(ctx, decision, played)
            if finding is not None:
                out.append(finding)
            played = played or decision
    return out


def _wrong(ctx: RoundContext, decision: Decision, played: Decision | None) -> Finding | None:
    ante = ctx.view.amount(decision.seat, "ante")
    street, multiples = multiples_allowed(ctx, decision)
    allowed = [m * ante for m in multiples]
    ids: tuple[str, ...]
    if played is not None:
        reason = f"a second Play (one per seat; the first was {cents(played.amount)})"
        expected, ids = 0, (played.event_id, decision.event_id)
    elif not ante:
        reason = "with no Ante wager"
        expected, ids = 0, (decision.event_id,)
    elif decision.amount in allowed:
        return None
    else:
        shown = " or ".join(f"{m}x" for m in multiples)
        amounts = " or ".join(map(cents, allowed))
        reason = f"{street}, where a Play is {shown} the Ante of {cents(ante)} ({amounts})"
        expected = min(allowed, key=lambda a: abs(a - (decision.amount or 0)))
        ids = (decision.event_id,)
    return ctx.finding(
        CODE,
        SECTION,
        f"Play wager of {cents(decision.amount)} {reason}",
        seat=decision.seat,
        bet="play",
        expected=expected,
        actual=decision.amount,
        event_ids=ids,
    )
