"""The settle lines of a round, grouped by wager."""

from __future__ import annotations

from tablewatch.rules.checks.context import RoundContext
from tablewatch.rules.events import Settle
from tablewatch.rules.round_view import WagerKey


def settles_by_wager(ctx: RoundContext) -> dict[WagerKey, list[Settle]]:
    """Every settle line of each wager, in order."""
    grouped: dict[WagerKey, list[Settle]] = {}
    for settle in ctx.rnd.settles:
        grouped.setdefault((settle.seat, settle.bet), []).append(settle)
    return grouped


def first_settles(ctx: RoundContext) -> dict[WagerKey, Settle]:
    """The first settle of each wager (a second one is UNSETTLED_WAGER's business).

    Found once per round by the context, read by several checks: do not modify.
    """
    return ctx.first_settled


def settled_twice(ctx: RoundContext) -> bool:
    """Whether some wager has more than one settle line."""
    return len(ctx.first_settled) < len(ctx.rnd.settles)


def meter_at_payment(ctx: RoundContext, settle: Settle | None) -> int | None:
    """The meter a progressive payout is priced at: the settle's own, else the last reading."""
    if settle is not None and settle.meter is not None:
        return settle.meter
    return ctx.rnd.meter
