"""DUPLICATE_CARD: the same card dealt twice in one round (one deck: the game's ``one_deck``)."""

from __future__ import annotations

from typing import Final

from tablewatch.rules.checks.context import RoundContext
from tablewatch.rules.findings import Finding

CODE: Final = "DUPLICATE_CARD"


def check(ctx: RoundContext) -> list[Finding]:
    if ctx.view.no_repeated_card:
        return []  # every card different: the usual round, told apart by the round view
    cards = ctx.rnd.cards
    first: dict[str, str] = {}
    reported: set[str] = set()
    out = []
    for event in cards:
        seen = first.get(event.card)
        if seen is None:
            first[event.card] = event.event_id
        elif event.card not in reported:
            reported.add(event.card)
            out.append(
                ctx.finding(
                    CODE,
                    ctx.sections.one_deck,
                    f"{event.card} dealt twice (again to {event.to}) from one deck",
                    event_ids=(seen, event.event_id),
                )
            )
    return out
