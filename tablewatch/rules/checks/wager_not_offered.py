"""WAGER_NOT_OFFERED (this service's own): a wager the game or the table does not offer.

A bet name of the other game, or a side wager the casino's Rules Submission
(the table configuration) does not offer (§ 641a.7(d), § 643a.7(e)-(g)).
"""

from __future__ import annotations

from operator import itemgetter
from typing import Final

from tablewatch.rules.checks.context import FCP, RoundContext
from tablewatch.rules.findings import Finding

CODE: Final = "WAGER_NOT_OFFERED"
ALWAYS: Final = {"four_card_poker": {"ante"}, "let_it_ride": {"bet1", "bet2", "bet3"}}
LIR_MAIN: Final = "main"
# Four Card Poker: made by decision / paid by the house
NEVER_WAGERED: Final = ("play", "ante_bonus")
_bet_of_key: Final = itemgetter(1)  # (seat, bet) -> bet


def check(ctx: RoundContext) -> list[Finding]:
    wagers = ctx.view.wagers
    # Ask once per bet name (a round has many wagers on few bets).
    refused = {bet for bet in set(map(_bet_of_key, wagers)) if not offered(ctx, bet)}
    if not refused:
        return []
    section = ctx.section("§ 641a.7(d)", "§ 643a.7")
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
    if bet in ALWAYS[ctx.game]:
        return True
    if ctx.game == FCP and bet in NEVER_WAGERED:
        return False  # made by decision / paid by the house, never wagered
    return ctx.config.offers(bet)
