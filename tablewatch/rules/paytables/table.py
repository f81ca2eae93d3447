"""A pay table: hands, in order, and the odds each is paid at."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from tablewatch.rules.paytables.odds import Odds


@dataclass(frozen=True, slots=True)
class PayTable:
    """One pay table of one wager: ``rows`` maps a hand name to its odds.

    ``section`` is the regulation that states it ("§ N.12(a)") or the
    configuration key it was read from (casino-supplied tables).
    """

    wager: str
    letter: str
    section: str
    rows: Mapping[str, Odds]
    _names: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_names", frozenset(self.rows))

    def odds_for(self, hand_names: Iterable[str]) -> tuple[str, Odds] | None:
        """The first of ``hand_names`` (most specific first) this table pays."""
        for name in hand_names:
            if name in self._names:
                return name, self.rows[name]
        return None

    @property
    def pays_meter(self) -> bool:
        return any(odds.is_meter for odds in self.rows.values())


def pay_tables(
    wager: str, section: str, columns: Mapping[str, Mapping[str, Odds | None]]
) -> dict[str, PayTable]:
    """Build lettered tables from ``{letter: {hand: odds or None}}`` (None: not paid)."""
    return {
        letter: PayTable(wager, letter, section, {h: o for h, o in rows.items() if o is not None})
        for letter, rows in columns.items()
    }
