"""STUB_COUNT_MISMATCH: the stub and the cards dealt do not make 52, and the round was not voided.

A wrong count voids every hand (and, if there was no misdeal, the deck
leaves the table): the game's ``stub_count`` by dealing, as its descriptor in
:mod:`tablewatch.rules.games` cites them.
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.cards import DECK_SIZE
from tablewatch.rules.checks.context import RoundContext
from tablewatch.rules.findings import Finding

CODE: Final = "STUB_COUNT_MISMATCH"


def cards_out_of_deck(ctx: RoundContext) -> int:
    """Cards taken from the deck this round: dealt, burnt, or found face up in it.

    Each ``card`` event is one card off the deck (a duplicate is a card too:
    the deck held an extra one); a card found face up counts once even if it
    is also reported going to the discard rack.
    """
    found = {e.card for e in ctx.rnd.exposures if e.to == "deck"}
    if not found:
        return len(ctx.rnd.cards)
    dealt = {e.card for e in ctx.rnd.cards}
    return len(ctx.rnd.cards) + len(found - dealt)


def mismatched(ctx: RoundContext) -> bool:
    if not ctx.rnd.stub_counts:
        return False
    out = cards_out_of_deck(ctx)
    return any(s.count + out != DECK_SIZE for s in ctx.rnd.stub_counts)


def check(ctx: RoundContext) -> list[Finding]:
    if ctx.rnd.void is not None or not ctx.rnd.stub_counts:
        return []
    out = cards_out_of_deck(ctx)
    found = []
    for stub in ctx.rnd.stub_counts:
        if stub.count + out == DECK_SIZE:
            continue
        found.append(
            ctx.finding(
                CODE,
                ctx.dealing_section(ctx.sections.stub_count),
                f"stub of {stub.count} card(s) with {out} dealt makes {stub.count + out}, not "
                f"{DECK_SIZE}: every hand had to be voided",
                event_ids=(stub.event_id,),
            )
        )
    return found
