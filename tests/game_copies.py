"""A registered game's descriptor copied under another name, for tests that register a game
of their own: built with ``GameRules``' constructor (a compiled descriptor cannot be copied
and changed in place)."""

from __future__ import annotations

from typing import Any

from tablewatch.rules.game_rules import GameRules

# the constructor's parameters that the descriptor keeps under the same name
_KEPT = (
    "chapter", "wagers", "hand_cards", "areas", "configuration", "sections", "settle",
    "checks", "wager_areas", "decision_wagers", "decision_bets", "withdrawn", "envy_wagers",
    "envy_unearned", "edges", "decision_deadline", "house_bonuses", "hold", "words",
)  # fmt: skip


def copy_of(rules: GameRules, *, name: str, title: str, **changes: Any) -> GameRules:
    """``rules`` as another game called ``name`` (``title``), with ``changes`` to its
    constructor's parameters."""
    kept: dict[str, Any] = {field: getattr(rules, field) for field in _KEPT}
    return GameRules(name=name, title=title, exposure=rules.exposures, **{**kept, **changes})
