"""What every round check reads: the folded round, its view, its configuration, its settlement."""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter

from tablewatch.rules.config import TableConfig
from tablewatch.rules.events import Settle
from tablewatch.rules.findings import Finding
from tablewatch.rules.round import Round
from tablewatch.rules.round_view import RoundView, WagerKey
from tablewatch.rules.settlement import Settlement

FCP = "four_card_poker"
LIR = "let_it_ride"
_wager_key = attrgetter("seat", "bet")


@dataclass(frozen=True, slots=True)
class VoidCause:
    """A reason the round had to be voided (misdeal, exposure, fault)."""

    reason: str
    section: str
    event_ids: tuple[str, ...]


@dataclass(slots=True)
class RoundContext:
    rnd: Round
    view: RoundView
    config: TableConfig
    dealing: str  # of the round's deck: "hand", "manual_shoe" or "automated_shoe"
    settlement: Settlement
    void_causes: list[VoidCause] = field(default_factory=list)
    # The first settle line of each wager, in order: read by several checks, so
    # found once (``checks.settled_lines``).
    first_settled: dict[WagerKey, Settle] = field(init=False, repr=False)
    game: str = field(init=False)  # the configuration's (read by most checks)

    def __post_init__(self) -> None:
        self.game = self.config.game
        settles = self.rnd.settles
        first: dict[WagerKey, Settle] = dict(zip(map(_wager_key, settles), settles, strict=True))
        if len(first) < len(settles):  # a wager settled twice: its first line, in order
            first = {}
            for settle in settles:
                first.setdefault((settle.seat, settle.bet), settle)
        self.first_settled = first

    def section(self, fcp: str, lir: str) -> str:
        return fcp if self.game == FCP else lir

    def dealing_section(self, fcp: dict[str, str], lir: dict[str, str]) -> str:
        """The subsection of the dealing procedure in use (§ 64Xa.8, .9 or .10)."""
        by_dealing = fcp if self.game == FCP else lir
        return by_dealing.get(self.dealing, by_dealing["hand"])

    def finding(
        self,
        check: str,
        regulation: str,
        message: str,
        *,
        seat: int | None = None,
        bet: str | None = None,
        expected: int | None = None,
        actual: int | None = None,
        event_ids: tuple[str, ...] | list[str] = (),
    ) -> Finding:
        return Finding(
            table_id=self.rnd.table_id,
            round_id=self.rnd.round_id,
            check=check,
            regulation=regulation,
            message=message,
            seat=seat,
            bet=bet,
            expected=expected,
            actual=actual,
            event_ids=tuple(event_ids),
            ts=self.rnd.ts or None,
        )


def cents(amount: int | None) -> str:
    if amount is None:
        return "unknown"
    return f"${amount / 100:,.2f}"
