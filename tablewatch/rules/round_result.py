"""What judging a round gives: the round's summary, its findings, its settlement lines.

:class:`RoundResult` is a msgspec Struct (immutable, built in a fraction of a
frozen dataclass's time: one a round), so this module stays Python when the
rules are compiled (tablewatch.native: mypyc compiles classes of its own kind only).
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from tablewatch.rules.checks.context import RoundContext
from tablewatch.rules.checks.settled_lines import first_settles, meter_at_payment
from tablewatch.rules.findings import Finding


@dataclass(frozen=True, slots=True)
class SettlementLine:
    """One wager: what it was owed and what the table did (cents)."""

    seat: int
    bet: str
    stake: int
    expected_result: str | None
    expected_paid: int | None
    actual_result: str | None
    actual_paid: int | None


class RoundResult(msgspec.Struct, frozen=True, eq=False):
    """One judged round: what it was, its money, and every finding on it (in order).

    ``_context`` is what the judge read (round, view, settlement), kept for
    :attr:`settlements`; it takes no part in equality, hashing or ``repr``.
    """

    table_id: str
    round_id: str
    # the event_id of the event that began the round (its round_start, or its first event
    # when none came): (table_id, round_id, start_event_id) is a stored round's identity
    start_event_id: str
    game: str
    start_ts: str
    end_ts: str
    dealer_id: str | None
    deck_id: str | None
    seats: int
    wagered: int  # cents on the layout
    paid: int  # cents handed to players (settles and Envy Bonuses)
    voided: bool
    complete: bool
    findings: tuple[Finding, ...]
    _context: RoundContext

    def summary(self) -> tuple[object, ...]:
        """Every field but ``_context``, in order."""
        return tuple(getattr(self, name) for name in self.__struct_fields__[:-1])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RoundResult):
            return NotImplemented
        return self.summary() == other.summary()

    def __hash__(self) -> int:
        return hash(self.summary())

    def __repr__(self) -> str:
        fields = (f"{name}={getattr(self, name)!r}" for name in self.__struct_fields__[:-1])
        return f"RoundResult({', '.join(fields)})"

    @property
    def settlements(self) -> tuple[SettlementLine, ...]:
        """Each wager: what it was owed and what the table did.

        Computed on each access, not while judging: the verdict does not need
        them, and an audit reads them for no round (a store writes them once).
        """
        return settlement_lines(self._context)


def settlement_lines(ctx: RoundContext) -> tuple[SettlementLine, ...]:
    """Every wager of a judged round, in (seat, bet) order: owed and done."""
    settled = first_settles(ctx)
    keys = sorted(set(ctx.settlement.lines) | set(settled) | set(ctx.view.wagers))
    lines = []
    for key in keys:
        expected = ctx.settlement.lines.get(key)
        settle = settled.get(key)
        wager = ctx.view.wagers.get(key)
        if expected is not None and expected.optional and settle is None:
            continue
        if ctx.rnd.void is not None:
            exp_result: str | None = "returned"
            exp_paid: int | None = 0
        elif expected is not None:
            exp_result = expected.result
            exp_paid = expected.paid(meter_at_payment(ctx, settle))
        else:
            exp_result = exp_paid = None
        stake = expected.stake if expected else (wager.amount if wager else 0)
        lines.append(
            SettlementLine(
                key[0],
                key[1],
                stake,
                exp_result,
                exp_paid,
                settle.result if settle else None,
                settle.paid if settle else None,
            )
        )
    return tuple(lines)
