"""WRONG_PAYOUT: a wager settled for other than the rules and the table's pay tables require.

Covers under- and over-payment, a winner collected, a loser paid, a pulled or
removed bet paid, a house bonus due and not paid (the game's ``house_bonuses``), and
a payout limit per hand
ignored (one finding for the bets the game's ``PayoutLimitRule`` caps
together, on its ``bet``).
The section cited is the rule that prices the wager.
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.checks.context import RoundContext, cents
from tablewatch.rules.checks.settled_lines import first_settles, meter_at_payment
from tablewatch.rules.events import Settle
from tablewatch.rules.findings import Finding
from tablewatch.rules.game_rules import HouseBonus
from tablewatch.rules.settlement import Expected, PayoutLimit

CODE: Final = "WRONG_PAYOUT"
NO_BONUSES: Final[dict[str, HouseBonus]] = {}


def check(ctx: RoundContext, *, complete: bool = True) -> list[Finding]:
    """``complete``: the round ended, so a missing house bonus line is an unpaid one."""
    lines = ctx.settlement.lines
    limits = ctx.settlement.limits
    settled = first_settles(ctx)
    out: list[Finding] = []
    for key, settle in settled.items():
        expected = lines.get(key)
        if expected is None:
            unexpected = _unexpected(ctx, settle)
            if unexpected is not None:
                out.append(unexpected)
        elif limits and settle.seat in limits and settle.bet in ctx.rules.limited_bets:
            continue  # judged together below
        elif expected.result == "lose" and settle.result == "lose" and settle.paid == 0:
            continue  # collected, as due: the commonest line, with nothing to price
        else:
            owed = expected.paid(meter_at_payment(ctx, settle))  # None: meter unknown
            if settle.result != expected.result or settle.paid != owed:
                out.append(_wrong(ctx, expected, settle, owed))
    bonuses = ctx.rules.house_bonus_of if complete else NO_BONUSES
    for key, expected in lines.items() if bonuses else ():
        bonus = bonuses.get(expected.bet)
        if bonus is not None and expected.result == "win" and key not in settled:
            owed = expected.paid(None)
            out.append(
                ctx.finding(
                    CODE,
                    expected.section,
                    f"seat {expected.seat} holds {_hand(expected)}: {bonus.title} of {cents(owed)} "
                    f"({expected.odds} on the {cents(expected.stake)} {bonus.on}) was due and not "
                    "paid",
                    seat=expected.seat,
                    bet=expected.bet,
                    expected=owed,
                    actual=0,
                )
            )
    for limit in limits.values():
        capped = _limited(ctx, limit, settled)
        if capped is not None:
            out.append(capped)
    return out


def _wrong(ctx: RoundContext, expected: Expected, settle: Settle, owed: int | None) -> Finding:
    """The finding for a line settled other than ``expected`` (owed ``owed`` cents)."""
    if owed is None:
        why = f"{_hand(expected)} pays {expected.odds} but no meter reading is known"
    elif expected.result == "win":
        why = f"{_hand(expected)} pays {expected.odds} on {cents(expected.stake)}: {cents(owed)}"
    elif expected.result == "push":
        why = "the wager pushes: the stake stays, nothing paid or collected"
    elif expected.result == "returned":
        why = f"the bet was pulled back: returned, nothing paid or collected ({expected.section})"
    else:
        why = f"the wager loses ({_hand(expected)}): collected, nothing paid"
    return ctx.finding(
        CODE,
        expected.section,
        f"seat {settle.seat} {settle.bet}: {why}; settled `{settle.result}` with "
        f"{cents(settle.paid)} paid",
        seat=settle.seat,
        bet=settle.bet,
        expected=owed,
        actual=settle.paid,
        event_ids=(settle.event_id,),
    )


def _unexpected(ctx: RoundContext, settle: Settle) -> Finding | None:
    key = (settle.seat, settle.bet)
    if key in ctx.view.wagers:
        return None  # on the layout but not priced: a misdeal or a wager not offered, elsewhere
    if settle.result == "returned" and settle.paid == 0:
        return None  # a removed (or never placed) wager handed back: nothing moved
    if key in ctx.view.removed:
        why = "was taken back before the lockout"
        ids = (settle.event_id, *ctx.view.removed[key][-1:])
    else:
        why = "was never placed"
        ids = (settle.event_id,)
    return ctx.finding(
        CODE,
        ctx.sections.settlement,
        f"seat {settle.seat} {settle.bet} {why}, yet was settled `{settle.result}` with "
        f"{cents(settle.paid)} paid",
        seat=settle.seat,
        bet=settle.bet,
        expected=0,
        actual=settle.paid,
        event_ids=ids,
    )


def _limited(
    ctx: RoundContext, limit: PayoutLimit, settled: dict[tuple[int, str], Settle]
) -> Finding | None:
    """The bets the limit caps pay at most the payout limit together."""
    rule = ctx.rules.configuration.payout_limit
    assert rule is not None  # a limit binds only at a game with a payout limit
    lines = [ctx.settlement.lines.get((limit.seat, bet)) for bet in rule.bets]
    winning = [e for e in lines if e is not None and e.result == "win"]
    paid = 0
    ids: list[str] = []
    wrong_result = False
    for expected in winning:
        settle = settled.get((expected.seat, expected.bet))
        if settle is None:
            continue  # UNSETTLED_WAGER reports it
        paid += settle.paid
        ids.append(settle.event_id)
        wrong_result |= settle.result != "win"
    if paid == limit.limit and not wrong_result:
        return None
    return ctx.finding(
        CODE,
        limit.section,
        f"seat {limit.seat}: the hand's bets would pay {cents(limit.uncapped)}, over the "
        f"{cents(limit.limit)} payout limit per hand: {cents(limit.limit)} due in all, "
        f"{cents(paid)} paid",
        seat=limit.seat,
        bet=rule.bet,
        expected=limit.limit,
        actual=paid,
        event_ids=ids,
    )


def _hand(expected: Expected) -> str:
    return (expected.hand or "no paying hand").replace("_", " ")
