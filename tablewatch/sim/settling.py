"""Settling a round with the rules engine's own settlement, and the mistakes injected into it.

Every line is the expected settlement (:func:`expected_settlement` of the
round's events so far), paid seat by seat from the last, in the order of
the game's layout; meter payouts come from the cage with a floorperson's
validation, a hand over the payout limit is paid in bet order up to it. An
injected error changes one line (or one Envy Bonus) and is written to the
truth. A voided round hands every wager back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from tablewatch.rules.events import AnyRoundEvent, CardDealt, RoundEvent
from tablewatch.rules.game_rules import GameRules
from tablewatch.rules.round import fold_round
from tablewatch.rules.round_view import RoundView, view_round
from tablewatch.rules.settlement import Expected, Settlement, expected_settlement

if TYPE_CHECKING:
    from tablewatch.sim.dealing import Wagers
    from tablewatch.sim.injections import RoundPlan
    from tablewatch.sim.table_state import SimTable

FLOORPERSONS: Final = ("FL-11", "FL-12", "FL-13")
PICKED: Final = (  # the injected errors that change one settle line
    "WRONG_PAYOUT",
    "UNSETTLED_WAGER",
    "JACKPOT_PAID_FROM_INVENTORY",
    "JACKPOT_NOT_VALIDATED",
)
VOID_REASONS: Final = {
    "misdeal": "misdeal: wrong number of cards",
    "shoe_fault": "automated shoe fault",
}


def round_view(table: SimTable) -> RoundView:
    """The round as the audit will see it (its events so far)."""
    round_id = table.t.round_id
    events: list[AnyRoundEvent] = [
        e for e in table.t.events if isinstance(e, RoundEvent) and e.round_id == round_id
    ]
    return view_round(fold_round(table.config.table_id, round_id or "", events))


def settle(table: SimTable, plan: RoundPlan) -> None:
    view = round_view(table)
    settlement = expected_settlement(view, table.config)
    rng = table.rng
    inject = plan.inject
    code = plan.code
    lines = [e for e in settlement.lines.values() if not (e.optional and e.result != "returned")]
    pulled = [e for e in lines if e.result == "returned"]
    lines = [e for e in lines if e.result != "returned"]
    lines += [e for e in pulled if rng.random() < 0.5]  # a `returned` line is optional
    target = _pick_line(table, lines, settlement, code)
    order = _layout_order(table.rules)
    patterns = _pattern_lines(table, lines, settlement, order, target)
    for seat in sorted({e.seat for e in lines} | {e.seat for e in settlement.envy}, reverse=True):
        for line in sorted((e for e in lines if e.seat == seat), key=lambda e: order[e.bet]):
            pattern = patterns.get((line.seat, line.bet))
            _settle_line(table, line, settlement, code if line is target else None, pattern)
        for envy in settlement.envy:
            if envy.seat != seat:
                continue
            paid = envy.paid
            if code == "ENVY_BONUS_WRONG" and inject and inject.seat == seat and not inject.done:
                inject.done = True
                table.record("ENVY_BONUS_WRONG", seat)
                if rng.random() < 0.5:
                    continue  # forgotten
                paid = paid // 2 or paid + 100
            table.t.envy_payout(seat, envy.for_seat, paid)
    if code == "ENVY_BONUS_WRONG" and inject and not inject.done:
        seat = inject.seat or 1
        table.t.envy_payout(seat, seat, 1000)  # for the player's own hand
        table.record("ENVY_BONUS_WRONG", seat)
    for seat, bet in _unpriced(table.rules, view, settlement):
        table.t.settle(seat, bet, "returned")
    table.pause(500, 2_000)


def _pattern_lines(
    table: SimTable,
    lines: list[Expected],
    settlement: Settlement,
    order: dict[str, int],
    target: Expected | None,
) -> dict[tuple[int, str], str]:
    """The lines an injected pattern changes this round (sim/injections.py): every line the
    house wins, walked (``walk``), when the table's hold drifts this round; one line of the
    favoured seat overpaid (``favour``) when the colluding dealer pays him this round. Drawn
    from the injections' own random streams: a table with none draws nothing."""
    out: dict[tuple[int, str], str] = {}
    limited = table.rules.limited_bets
    free = [
        e
        for e in lines
        if e is not target
        and e.result != "returned"
        and not (e.odds is not None and e.odds.is_meter)
        and not (e.seat in settlement.limits and e.bet in limited)
    ]
    if table.hold_drift is not None:
        share, rng = table.hold_drift
        if rng.random() < share:
            out.update({(e.seat, e.bet): "walk" for e in free if e.result == "lose"})
    if table.favoured is not None and table.colluding:
        seat, share, rng = table.favoured
        mine = sorted((e for e in free if e.seat == seat), key=lambda e: order[e.bet])
        if mine and rng.random() < share:
            line = next((e for e in mine if e.result == "lose"), mine[0])
            out[(line.seat, line.bet)] = "favour"
    return out


def _layout_order(rules: GameRules) -> dict[str, int]:
    return {wager.bet: n for n, wager in enumerate(rules.wagers)}


def _pick_line(
    table: SimTable, lines: list[Expected], settlement: Settlement, code: str | None
) -> Expected | None:
    """The line an injected error changes (none for other errors)."""
    if code not in PICKED:
        return None
    if code.startswith("JACKPOT"):
        # a meter share for the inventory rule (other progressive wins may come from it)
        wins = [
            e
            for e in lines
            if e.bet == "progressive"
            and e.result == "win"
            and (code == "JACKPOT_NOT_VALIDATED" or e.not_from_inventory_section)
        ]
        return wins[0] if wins else None
    capped = set(settlement.limits)
    limited = table.rules.limited_bets
    bonuses = _bonus_bets(table.rules)
    pool = [
        e
        for e in lines
        if not (e.odds is not None and e.odds.is_meter and e.result == "win")
        and not (e.seat in capped and e.bet in limited)
        and not (code == "UNSETTLED_WAGER" and e.bet in bonuses)
        and e.result != "returned"
    ]
    return table.rng.choice(pool) if pool else None


def _bonus_bets(rules: GameRules) -> frozenset[str]:
    """Bets with neither a wager nor a decision of their own (an Ante bonus paid by the
    house): a missing line of one is a WRONG_PAYOUT, not an UNSETTLED_WAGER."""
    return rules.never_wagered - set(rules.decision_wagers.values())


def _settle_line(
    table: SimTable,
    line: Expected,
    settlement: Settlement,
    inject: str | None,
    pattern: str | None = None,
) -> None:
    rng = table.rng
    result = line.result
    meter = None
    extra: dict[str, object] = {}
    if line.result == "win" and line.odds is not None and line.odds.is_meter:
        meter = table.meter
        paid = line.odds.paid(line.stake, meter) or 0
        extra = {"paid_from": "cage", "meter": meter}
    else:
        paid = line.paid(None) or 0
    if line.validation_section and line.result == "win":
        extra["validated_by"] = rng.choice(FLOORPERSONS)
        extra.setdefault("paid_from", "table_inventory")
    limit = settlement.limits.get(line.seat)
    if limit is not None and line.bet in table.rules.limited_bets and result == "win":
        paid = _capped_share(table.rules, line, settlement)
    if pattern == "walk":  # chips walked: the stake handed back, nothing collected
        result, paid = "push", 0
        table.record("WRONG_PAYOUT", line.seat, line.bet)
    elif pattern == "favour":  # the colluding dealer pays the seat
        result, paid = ("win", paid + line.stake) if result == "win" else ("win", line.stake)
        table.record("WRONG_PAYOUT", line.seat, line.bet)
    if inject == "WRONG_PAYOUT":
        if result == "win":
            paid = paid + line.stake if rng.random() < 0.5 else paid // 2
        else:
            result, paid = "win", line.stake
        table.record("WRONG_PAYOUT", line.seat, line.bet)
    elif inject == "JACKPOT_PAID_FROM_INVENTORY":
        extra["paid_from"] = "table_inventory"
        table.record("JACKPOT_PAID_FROM_INVENTORY", line.seat, line.bet)
    elif inject == "JACKPOT_NOT_VALIDATED":
        extra.pop("validated_by", None)
        table.record("JACKPOT_NOT_VALIDATED", line.seat, line.bet)
    elif inject == "UNSETTLED_WAGER":
        table.record("UNSETTLED_WAGER", line.seat, line.bet)
        if rng.random() < 0.5:
            return  # never settled
        table.t.settle(line.seat, line.bet, result, paid, **extra)  # type: ignore[arg-type]
    table.t.settle(line.seat, line.bet, result, paid, **extra)  # type: ignore[arg-type]
    if meter is not None:
        table.meter = table.config.progressive_reset or 0


def _capped_share(rules: GameRules, line: Expected, settlement: Settlement) -> int:
    """The bets of a hand over the payout limit: paid in bet order until the limit."""
    limit = settlement.limits[line.seat].limit
    before = 0
    for bet in rules.limited_bets:
        if bet == line.bet:
            break
        other = settlement.lines.get((line.seat, bet))
        if other is not None and other.result == "win":
            before += other.paid(None) or 0
    return max(0, min(line.paid(None) or 0, limit - before))


def _unpriced(rules: GameRules, view: RoundView, settlement: Settlement) -> list[tuple[int, str]]:
    """Wagers with no expected line: a hand (or the dealer's) holding a card twice.

    Such a hand has no rank (an injected DUPLICATE_CARD); the dealer hands its
    wagers back, so that the round's only finding is the duplicate card.
    """
    wagers = set(view.wagers)
    made = rules.decision_wagers
    for seat, decisions in view.decisions.items():
        for decision in decisions:
            bet = made.get(decision.action)
            if bet is not None:
                wagers.add((seat, bet))
    return sorted(k for k in wagers if k not in settlement.lines)


def void(table: SimTable, wagers: Wagers, plan: RoundPlan) -> None:
    """The round voided: every wager returned (one collected for an injected
    VOID_NOT_RETURNED, whose round also had a card exposed early)."""
    code = plan.code
    if code == "VOID_NOT_RETURNED":
        _expose_early_void(table)
    table.pause(2_000, 6_000)
    table.t.void(VOID_REASONS.get(plan.natural or "", "card exposed before its reveal"))
    wrong = table.rng.choice(sorted(wagers)) if code == "VOID_NOT_RETURNED" else None
    for seat, bet in sorted(wagers, reverse=True):
        if (seat, bet) == wrong:
            table.t.settle(seat, bet, "lose")
            table.record("VOID_NOT_RETURNED", seat, bet)
        else:
            table.t.settle(seat, bet, "returned")


def _expose_early_void(table: SimTable) -> None:
    target = table.rules.exposures[0].target  # the first area the game keeps face down
    hidden = [
        e.card
        for e in table.t.events
        if isinstance(e, CardDealt)
        and e.round_id == table.t.round_id
        and e.to == target
        and not e.face_up
    ]
    table.t.card_exposed(target, table.rng.choice(hidden))
