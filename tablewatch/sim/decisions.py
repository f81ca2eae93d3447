"""The players' decisions and the reveals, as the game's simulator plays them.

An injected ROUND_NOT_VOIDED first exposes one of the cards the game keeps
hidden until its reveal (its descriptor's ``exposure``: a dealer card, a
community card); the round is then played on, and settled, as if nothing
had happened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tablewatch.rules.cards import card_text

if TYPE_CHECKING:
    from tablewatch.sim.dealing import Deal, Wagers
    from tablewatch.sim.injections import RoundPlan
    from tablewatch.sim.table_state import SimTable


def decide(table: SimTable, wagers: Wagers, dealt: list[Deal], plan: RoundPlan) -> None:
    if plan.code == "ROUND_NOT_VOIDED":
        expose_early(table, dealt)
        table.record("ROUND_NOT_VOIDED")
    table.pause(3_000, 10_000)
    table.game.decide(table, wagers, dealt, plan)


def expose_early(table: SimTable, dealt: list[Deal]) -> None:
    """A card the game keeps face down until its reveal is exposed."""
    target = table.rules.exposures[0].target  # the first area the game keeps face down
    hidden = [c for to, c, up in dealt if to == target and not up]
    table.t.card_exposed(target, card_text(table.rng.choice(hidden)))
