"""Judging one folded round: its expected settlement and every round check.

Which checks run depends on what the round became:
- voided: every wager must come back (VOID_NOT_RETURNED);
- had to be voided and was not (misdeal, exposure, shoe fault, bad stub
  count): ROUND_NOT_VOIDED / STUB_COUNT_MISMATCH, and no payout is priced;
- otherwise: payouts, settlement lines, Envy Bonuses, jackpot procedure.
Wagering, dealing and decision checks run on every round.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Final

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
from tablewatch.rules.config import TableConfig
from tablewatch.rules.findings import Finding
from tablewatch.rules.round import Round
from tablewatch.rules.round_result import RoundResult, SettlementLine, settlement_lines
from tablewatch.rules.round_view import view_round
from tablewatch.rules.settlement import expected_settlement

_amount: Final = attrgetter("amount")
_paid: Final = attrgetter("paid")

__all__ = ["RoundResult", "SettlementLine", "judge_round", "settlement_lines"]

ALWAYS: Final = (
    bet_after_lockout.check,
    progressive_count_mismatch.check,
    duplicate_card.check,
    unequal_bets.check,
    play_wager_out_of_range.check,
    late_withdrawal.check,
    wager_not_offered.check,
)


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
