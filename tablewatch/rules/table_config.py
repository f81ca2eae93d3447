"""The validated rules of one table (what :mod:`tablewatch.rules.config` makes of its entry)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tablewatch.rules.config_patterns import DEFAULT_PATTERNS, PatternSettings
from tablewatch.rules.game_rules import GameRules
from tablewatch.rules.paytables.table import PayTable


@dataclass(frozen=True, slots=True)
class TableConfig:
    """The validated rules of one table."""

    table_id: str
    game: str  # the game's name (its descriptor's)
    rules: GameRules  # the game's descriptor
    paytables: Mapping[str, PayTable]  # by slot (the descriptor's pay-table keys)
    counting_shuffler: bool
    payout_limit: int | None  # cents per hand, on the bets the game's payout limit caps
    progressive_reset: int | None  # cents
    progressive_rate: float | None  # share of each progressive wager added to the meter
    dealing: str | None
    envy_per_dollar: Mapping[str, int]  # the progressive's Envy Bonus, cents per $1
    five_card_envy_per_dollar: Mapping[str, int]  # the casino's (Configuration.casino_envy)
    # The contract's optional keys, which no rule reads (rules/config_optional.py):
    pit: str | None = None  # the floor area of the table
    cameras: tuple[str, ...] = ()  # the ids of the cameras on it
    signing: str = "off"  # "required": ingest accepts only events signed with one of `keys`
    keys: Mapping[str, str] = field(default_factory=dict)  # kid -> env variable, file order
    # the thresholds of the patterns across rounds (rules/config_patterns.py)
    patterns: PatternSettings = DEFAULT_PATTERNS

    @property
    def signing_required(self) -> bool:
        return self.signing == "required"

    def offers(self, wager: str) -> bool:
        return wager in self.paytables

    def letter(self, wager: str) -> str | None:
        table = self.paytables.get(wager)
        return table.letter if table else None
