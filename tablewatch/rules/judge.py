"""Judging one folded round: its expected settlement and every round check.

Which checks run depends on what the round became:
- voided: every wager must come back (VOID_NOT_RETURNED);
- had to be voided and was not (misdeal, exposure, shoe fault, bad stub
  count): ROUND_NOT_VOIDED / STUB_COUNT_MISMATCH, and no payout is priced;
- otherwise: payouts, settlement lines, Envy Bonuses, jackpot procedure.
Wagering, dealing and decision checks run on every round: the lockout,
progressive count and duplicate card checks, then the game's own checks (its
descriptor's ``checks``), then WAGER_NOT_OFFERED. The expected settlement is
the game's (its descriptor's ``settle``).
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
    progressive_count_mismatch,
    round_incomplete,
    round_not_voided,
    stub_count_mismatch,
    unsettled_wager,
    void_not_returned,
    wager_not_offered,
    wrong_payout,
)
from tablewatch.rules.checks.context import RoundContext
from tablewatch.rules.findings import Finding
from tablewatch.rules.round import Round
from tablewatch.rules.round_result import RoundResult, SettlementLine, settlement_lines
from tablewatch.rules.round_view import view_round
from tablewatch.rules.table_config import TableConfig

_amount: Final = attrgetter("amount")
_paid: Final = attrgetter("paid")

__all__ = ["RoundResult", "SettlementLine", "judge_round", "settlement_lines"]

# Run on every round, before the game's own checks (WAGER_NOT_OFFERED after them).
ALWAYS: Final = (
    bet_after_lockout.check,
    progressive_count_mismatch.check,
    duplicate_card.check,
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
    rules = config.rules
    ctx = RoundContext(rnd, view, config, dealing, rules.settle(view, config))
    ctx.void_causes = round_not_voided.void_causes(ctx)
    complete = rnd.end is not None
    findings = list(attached)
    for run in ALWAYS:
        findings.extend(run(ctx))
    for own in rules.checks:
        findings.extend(own.run(ctx))
    findings.extend(wager_not_offered.check(ctx))
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
    return RoundResult(  # in field order: table_id, round_id, start_event_id, game, ...
        rnd.table_id,
        rnd.round_id,
        rnd.start_event_id,
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
