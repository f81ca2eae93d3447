"""UNSETTLED_WAGER: every wager needs exactly one ``settle``.

A Four Card Poker Play wager (made by decision) needs one too; a pulled Let
It Ride bet needs none (a ``returned`` line is also right); the Ante bonus
has a line only when paid. In a voided round every wager is settled
``returned``. A round with no ``round_end`` is only checked for double
settlement. Sections: § 641a.11(c), § 643a.11(f).
"""

from __future__ import annotations

from collections.abc import Iterator

from tablewatch.rules.checks.context import FCP, RoundContext
from tablewatch.rules.checks.settled_lines import settles_by_wager
from tablewatch.rules.findings import Finding
from tablewatch.rules.round_view import WagerKey
from tablewatch.rules.settlement.let_it_ride import pulled_bets

CODE = "UNSETTLED_WAGER"


def check(ctx: RoundContext, *, complete: bool) -> Iterator[Finding]:
    section = ctx.section("§ 641a.11(c)", "§ 643a.11(f)")
    grouped = settles_by_wager(ctx)
    for (seat, bet), lines in grouped.items():
        if len(lines) > 1:
            yield ctx.finding(
                CODE,
                section,
                f"seat {seat} {bet} settled {len(lines)} times",
                seat=seat,
                bet=bet,
                actual=sum(s.paid for s in lines),
                event_ids=[s.event_id for s in lines],
            )
    if not complete:
        return
    for (seat, bet), ids in sorted(_required(ctx).items()):
        if (seat, bet) not in grouped:
            yield ctx.finding(
                CODE,
                section,
                f"seat {seat} {bet} was never settled",
                seat=seat,
                bet=bet,
                expected=None,
                event_ids=ids,
            )


def _required(ctx: RoundContext) -> dict[WagerKey, list[str]]:
    """The wagers that must each have a settle line, with the events that made them."""
    required = {key: list(w.event_ids) for key, w in ctx.view.wagers.items()}
    if ctx.game == FCP:
        for decision in ctx.rnd.decisions:
            if decision.action == "play":
                required.setdefault((decision.seat, "play"), [decision.event_id])
    elif ctx.rnd.void is None:
        for seat in ctx.view.seats():
            for bet in pulled_bets(ctx.view, seat):
                required.pop((seat, bet), None)
    return required
