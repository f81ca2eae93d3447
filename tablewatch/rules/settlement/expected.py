"""What each wager of a round should have been settled for: the lines, gathered.

The lines themselves are in :mod:`~tablewatch.rules.settlement.lines`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tablewatch.rules.config import TableConfig
from tablewatch.rules.round_view import WagerKey
from tablewatch.rules.settlement.lines import Expected, ExpectedEnvy, PayoutLimit

__all__ = [
    "Expected",
    "ExpectedEnvy",
    "PayoutLimit",
    "Settlement",
    "distinct",
    "envy_amount",
]


@dataclass(slots=True)
class Settlement:
    """Every wager's line; ``jackpots`` and ``ante_bonus`` tell the checks whether a line
    they look for may be among them (kept by :meth:`add`: every line goes through it)."""

    lines: dict[WagerKey, Expected] = field(default_factory=dict)
    envy: list[ExpectedEnvy] = field(default_factory=list)
    limits: dict[int, PayoutLimit] = field(default_factory=dict)
    jackpots: bool = False  # a line needs a floorperson's validation or a source not the table
    ante_bonus: bool = False  # an Ante bonus line that wins

    def add(self, line: Expected) -> None:
        self.lines[(line.seat, line.bet)] = line
        if line.validation_section is not None or line.not_from_inventory_section is not None:
            self.jackpots = True
        if line.bet == "ante_bonus" and line.result == "win":
            self.ante_bonus = True

    def add_table_wager(
        self,
        config: TableConfig,
        seat: int,
        bet: str,
        stake: int,
        names: tuple[str, ...],
        validation: str | None = None,
        inventory: str | None = None,
    ) -> None:
        """The line of a wager priced by the configuration's pay table for ``bet`` (none if
        the wager is not placed or the table has no such pay table): a win cites
        ``validation`` (a floorperson validates it) and, paid from the meter, ``inventory``
        (never from the table inventory)."""
        table = config.paytables.get(bet)
        if not stake or table is None:
            return
        won = table.odds_for(names)
        if won is None:
            self.add(Expected(seat, bet, "lose", stake, table.section))
            return
        hand, odds = won
        self.add(
            Expected(
                seat,
                bet,
                "win",
                stake,
                table.section,
                hand,
                odds,
                validation_section=validation,
                not_from_inventory_section=inventory if odds.is_meter else None,
            )
        )


def envy_amount(per_dollar_cents: int, stake: int) -> int:
    """The Envy Bonus for a wager of ``stake`` cents, from the $1 amount (pro rata)."""
    return per_dollar_cents * stake // 100


def distinct(cards: Sequence[int]) -> bool:
    """No card twice: a hand from one deck (one holding a card twice has no rank to price)."""
    return len(set(cards)) == len(cards)
