"""Judging one folded round: its expected settlement and every round check.

Which checks run depends on what the round became:
- voided: every wager must come back (VOID_NOT_RETURNED);
- had to be voided and was not (misdeal, exposure, shoe fault, bad stub
  count): ROUND_NOT_VOIDED / STUB_COUNT_MISMATCH, and no payout is priced;
- otherwise: payouts, settlement lines, Envy Bonuses, jackpot procedure.
Wagering, dealing and decision checks run on every round.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter

from tablewatch.rules.checks import (
    bet_after_lockout,
    duplicate_card,
    envy_bonus_wrong,
    jackpot_not_validated,
    jackpot_paid_from_inventory,
    late_withdrawal,
    play_wager_out_of_range,
    progressive_count_mismatch,
    round_incomplete,
    round_not_voided,
    stub_count_mismatch,
    unequal_bets,
    unsettled_wager,
    void_not_returned,
    wager_not_offered,
    wrong_payout,
)
from tablewatch.rules.checks.context import RoundContext
from tablewatch.rules.checks.settled_lines import first_settles, meter_at_payment
from tablewatch.rules.config import TableConfig
from tablewatch.rules.findings import Finding
from tablewatch.rules.round import Round
from tablewatch.rules.round_view import view_round
from tablewatch.rules.settlement import expected_settlement

_amount = attrgetter("amount")
_paid = attrgetter("paid")

ALWAYS = (
    bet_after_lockout.check,
    progressive_count_mismatch.check,
    duplicate_card.check,
    unequal_bets.check,
    play_wager_out_of_range.check,
    late_withdrawal.check,
    wager_not_offered.check,
)


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


@dataclass(frozen=True, slots=True)
class RoundResult:
    table_id: str
    round_id: str
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
    _context: RoundContext = field(repr=False, compare=False)

    @property
    def settlements(self) -> tuple[SettlementLine, ...]:
        """Each wager: what it was owed and what the table did.

        Computed on each access, not while judging: the verdict does not need
        them, and an audit reads them for no round (a store writes them once).
        """
        return settlement_lines(self._context)


def judge_round(
    rnd: Round,
    config: TableConfig,
    dealing: str,
    attached: tuple[Finding, ...] = (),
    incomplete_reason: str = "no round_end",
) -> RoundResult:
    """Judge ``rnd`` under ``config``; ``attached`` are table-level findings for this round."""
    view = view_round(rnd)
    ctx = RoundContext(rnd, view, config, dealing, expected_settlement(view, config))
    ctx.void_causes = round_not_voided.void_causes(ctx)
    complete = rnd.end is not None
    findings = list(attached)
    for run in ALWAYS:
        findings.extend(run(ctx))
    if rnd.void is not None:
        findings.extend(void_not_returned.check(ctx))
        findings.extend(unsettled_wager.check(ctx, complete=complete))
    elif ctx.void_causes or stub_count_mismatch.mismatched(ctx):
        findings.extend(round_not_voided.check(ctx))
        findings.extend(stub_count_mismatch.check(ctx))
    else:
        findings.extend(wrong_payout.check(ctx, complete=complete))
        findings.extend(unsettled_wager.check(ctx, complete=complete))
        findings.extend(envy_bonus_wrong.check(ctx, complete=complete))
        findings.extend(jackpot_paid_from_inventory.check(ctx))
        findings.extend(jackpot_not_validated.check(ctx))
    findings.extend(round_incomplete.check(ctx, incomplete_reason))
    start = rnd.start
    return RoundResult(  # in field order: table_id, round_id, game, start_ts, end_ts, ...
        rnd.table_id,
        rnd.round_id,
        config.game,
        rnd.ts,
        rnd.last_ts,
        start.dealer_id if start else None,  # dealer_id
        start.deck_id if start else None,  # deck_id
        len(view.seats()),  # seats
        sum(map(_amount, view.wagers.values())),  # wagered
        sum(map(_paid, rnd.settles)) + sum(map(_paid, rnd.envy)),  # paid
        rnd.void is not None,  # voided
        complete,
        tuple(findings),
        ctx,
    )


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
