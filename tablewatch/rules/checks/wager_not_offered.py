"""WAGER_NOT_OFFERED (this service's own): a wager the game or the table does not offer.

A bet name the game does not have, one it never takes as a wager (made by
decision or paid by the house), or a side wager the casino's Rules
Submission (the table configuration) does not offer (the game's
``Sections.wagers_offered``).
"""

from __future__ import annotations

from operator import itemgetter
from typing import Final

from tablewatch.rules.checks.context import RoundContext
from tablewatch.rules.findings import Finding

CODE: Final = "WAGER_NOT_OFFERED"
_bet_of_key: Final = itemgetter(1)  # (seat, bet) -> bet


def check(ctx: RoundContext) -> list[Finding]:
    wagers = ctx.view.wagers
    # Ask once per bet name (a round has many wagers on few bets).
    refused = {bet for bet in set(map(_bet_of_key, wagers)) if not offered(ctx, bet)}
    if not refused:
        return []
    section = ctx.sections.wagers_offered
    out = []
    for (seat, bet), wager in wagers.items():
        if bet not in refused:
            continue
        out.append(
            ctx.finding(
                CODE,
                section,
                f"seat {seat} wagered on {bet}, which table {ctx.rnd.table_id} "
                f"({ctx.game}) does not offer",
                seat=seat,
                bet=bet,
                actual=wager.amount,
                event_ids=wager.event_ids,
            )
        )
    return out


def offered(ctx: RoundContext, bet: str) -> bool:
    rules = ctx.rules
    if bet in rules.always_offered:
        return True
    if bet in rules.never_wagered:
        return False  # made by decision / paid by the house, never wagered
    return ctx.config.offers(bet)
