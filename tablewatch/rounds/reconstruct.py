"""A round reconstructed from its events and its table's configuration (pure: no I/O).

The round is folded and judged by the rules engine itself (:mod:`tablewatch.rules`): the
expected settlement of each wager, the hands, the findings are the ones the audit and the
worker give, never worked out again here. This module only reads what the judge read
(the round, its view, its settlement) and says it in words (:mod:`.words`).

- :func:`judge_alone`: judge one round's events without the rest of its table's history
  (a stored round: its deck's dealing and the meter before it are given);
- :func:`report_of`: a judged round, its events and its configuration -> :class:`RoundReport`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from tablewatch.rounds.report import (
    DealerHand,
    DecisionEntry,
    EnvyLine,
    FindingEntry,
    PayoutLimitLine,
    RoundReport,
    SeatHand,
    TimelineEntry,
    VideoRef,
    WagerLine,
)
from tablewatch.rounds.words import event_words, hand_key_words
from tablewatch.rules.checks.context import RoundContext
from tablewatch.rules.events import (
    ROUND_EVENT_TYPES,
    AnyEvent,
    AnyRoundEvent,
    DeviceFault,
    Meter,
    event_type,
    ms_to_ts,
    ts_to_ms,
)
from tablewatch.rules.findings import Finding
from tablewatch.rules.judge import RoundResult, SettlementLine, judge_round
from tablewatch.rules.round import Round
from tablewatch.rules.table_config import TableConfig

VIDEO_MARGIN_MS: Final = 10_000
# Checks that say a wager's money is wrong (the wager line is marked)
MONEY_CHECKS: Final = frozenset({"WRONG_PAYOUT", "VOID_NOT_RETURNED", "UNSETTLED_WAGER"})


def judge_alone(
    config: TableConfig,
    timeline: Sequence[AnyEvent],
    *,
    dealing: str | None = None,
    meter: int | None = None,
) -> RoundResult:
    """Judge the round whose events (and the table events seen while it was open) are
    ``timeline``, in ``seq`` order: folded as the table folds them (a meter reading or a
    device fault while it is open is observed), judged with ``dealing`` (its deck's, from
    its ``deck_in``; else the configuration's, else hand dealing) and the meter read
    before it began. Round-spanning findings (stub cadence, deck age, seq gaps) need the
    table's history: they are not found here."""
    first = next((e for e in timeline if type(e) in ROUND_EVENT_TYPES), None)
    if first is None:
        raise ValueError("no round event to judge")
    opening: AnyRoundEvent = first  # type: ignore[assignment]
    rnd = Round(opening.table_id, opening.round_id, meter=meter)
    for event in timeline:
        if type(event) in ROUND_EVENT_TYPES:
            rnd.apply(event)  # type: ignore[arg-type]
        elif isinstance(event, Meter):
            rnd.observe_meter(event)
        elif isinstance(event, DeviceFault):
            rnd.observe_fault(event)
    return judge_round(rnd, config, dealing or config.dealing or "hand")


def report_of(
    result: RoundResult,
    timeline: Sequence[AnyEvent],
    config: TableConfig,
    *,
    findings: Sequence[FindingEntry] | None = None,
    same_round_id: Sequence[str] = (),
) -> RoundReport:
    """The reconstruction of ``result`` (judged from ``timeline`` under ``config``).
    ``findings``: the round's findings as stored (``findings_source`` "store"); without
    them, the judgement's own ("events")."""
    ctx: RoundContext = result._context
    rnd = ctx.rnd
    entries = findings if findings is not None else [finding_entry(f) for f in result.findings]
    first_ms = ts_to_ms(timeline[0].ts) if timeline else ts_to_ms(result.start_ts)
    last_ms = ts_to_ms(timeline[-1].ts) if timeline else ts_to_ms(result.end_ts)
    return RoundReport(
        table_id=result.table_id,
        round_id=result.round_id,
        start_event_id=result.start_event_id,
        game=result.game,
        pit=config.pit,
        dealer_id=result.dealer_id,
        deck_id=result.deck_id,
        dealing=ctx.dealing,
        start_ts=result.start_ts,
        end_ts=result.end_ts,
        complete=result.complete,
        voided=result.voided,
        void_reason=rnd.void.reason if rnd.void is not None else None,
        wagered=result.wagered,
        paid=result.paid,
        timeline=[_timeline_entry(e) for e in timeline],
        seats=_seats(ctx),
        dealer=_dealer(ctx),
        community=_texts(ctx, "community"),
        bonus=_texts(ctx, "bonus"),
        decisions=[
            DecisionEntry(
                d.seq, d.ts, d.event_id, d.seat, d.action, d.bet, d.amount, event_words(d)
            )
            for d in rnd.decisions
        ],
        wagers=_wagers(result, ctx, entries),
        envy=_envy(ctx),
        payout_limits=[
            PayoutLimitLine(limit.seat, limit.limit, limit.uncapped, limit.section)
            for _, limit in sorted(ctx.settlement.limits.items())
        ],
        findings=list(entries),
        findings_source="events" if findings is None else "store",
        video=VideoRef(
            list(config.cameras),
            ms_to_ts(first_ms - VIDEO_MARGIN_MS),
            ms_to_ts(last_ms + VIDEO_MARGIN_MS),
        ),
        same_round_id=list(same_round_id),
    )


def finding_entry(finding: Finding, finding_id: str | None = None) -> FindingEntry:
    return FindingEntry(
        check=finding.check,
        severity=finding.severity,
        regulation=finding.regulation,
        message=finding.message,
        seat=finding.seat,
        bet=finding.bet,
        expected=finding.expected,
        actual=finding.actual,
        event_ids=list(finding.event_ids),
        ts=finding.ts,
        finding_id=finding_id,
    )


def _timeline_entry(event: AnyEvent) -> TimelineEntry:
    return TimelineEntry(
        seq=event.seq,
        ts=event.ts,
        type=event_type(event),
        event_id=event.event_id,
        text=event_words(event),
        round_event=type(event) in ROUND_EVENT_TYPES,
    )


def _texts(ctx: RoundContext, target: str) -> list[str]:
    return [dealt.card for dealt in ctx.view.card_events.get(target, [])]


def _areas(ctx: RoundContext) -> dict[str, list[str]]:
    """The cards of every area dealt that is not a seat's, by target."""
    return {
        target: [dealt.card for dealt in dealt_cards]
        for target, dealt_cards in ctx.view.card_events.items()
        if not target.startswith("seat:")
    }


def _seats(ctx: RoundContext) -> list[SeatHand]:
    """Each seat's cards, named as the game names them (its descriptor's ``words``): the
    game is the table's, never guessed from the cards."""
    view = ctx.view
    areas = _areas(ctx)
    words = ctx.rules.words
    out = []
    for seat in sorted(set(view.dealt_seats()) | set(view.seats())):
        cards = _texts(ctx, f"seat:{seat}")
        if words is None:
            out.append(SeatHand(seat, cards, None, []))
            continue
        named = words.seat(cards, areas)
        out.append(
            SeatHand(
                seat,
                cards,
                named.hand,
                list(named.hand_cards),
                named.three_card_hand,
                named.six_card_hand,
            )
        )
    return out


def _dealer(ctx: RoundContext) -> DealerHand | None:
    cards = _texts(ctx, "dealer")
    if not cards:
        return None
    words = ctx.rules.words
    return DealerHand(cards, None if words is None else words.dealer(cards, _areas(ctx)))


def _wagers(
    result: RoundResult, ctx: RoundContext, findings: Sequence[FindingEntry]
) -> list[WagerLine]:
    flagged = {(f.seat, f.bet) for f in findings if f.check in MONEY_CHECKS}
    config = ctx.config
    void_section = ctx.void_causes[0].section if ctx.void_causes else ctx.sections.void
    out = []
    for line in _with_withdrawn(result, ctx):
        expected = ctx.settlement.lines.get((line.seat, line.bet))
        paytable = paytable_line = odds = section = None
        if result.voided:
            section = void_section
        elif expected is not None:
            section = expected.section
            paytable = _letter(config, expected.section, expected.hand)
            if expected.result == "win":
                paytable_line = hand_key_words(expected.hand)
                odds = None if expected.odds is None else str(expected.odds)
        if (line.seat, line.bet) in flagged:
            correct: bool | None = False
        elif line.expected_result is None or line.expected_paid is None:
            correct = None
        else:
            correct = True
        out.append(
            WagerLine(
                seat=line.seat,
                bet=line.bet,
                stake=line.stake,
                expected_result=line.expected_result,
                expected_paid=line.expected_paid,
                actual_result=line.actual_result,
                actual_paid=line.actual_paid,
                correct=correct,
                paytable=paytable,
                paytable_line=paytable_line,
                odds=odds,
                section=section,
            )
        )
    return out


def _with_withdrawn(result: RoundResult, ctx: RoundContext) -> list[SettlementLine]:
    """The round's settlement lines, with each bet the player withdrew and that needs no
    ``settle`` (a bet pulled back by decision): owed its return, done as needed (no settle)."""
    lines = list(result.settlements)
    have = {(line.seat, line.bet) for line in lines}
    if result.voided:
        return lines
    for key, expected in ctx.settlement.lines.items():
        if key not in have and expected.optional and expected.result == "returned":
            lines.append(SettlementLine(key[0], key[1], expected.stake, "returned", 0, None, None))
    return sorted(lines, key=lambda line: (line.seat, line.bet))


def _letter(config: TableConfig, section: str, hand: str | None) -> str | None:
    """The letter of the configured pay table that priced a line: the one of its section
    (and, for a win, with its hand); None for a fixed table (a wager at fixed
    odds) or a rule that is no pay table (a forfeit)."""
    for table in config.paytables.values():
        if table.section == section and (hand is None or hand in table.rows):
            return table.letter
    return None


def _envy(ctx: RoundContext) -> list[EnvyLine]:
    paid: dict[tuple[int, int], int] = {}
    for payout in ctx.rnd.envy:
        key = (payout.seat, payout.for_seat)
        paid[key] = paid.get(key, 0) + payout.paid
    return [
        EnvyLine(e.seat, e.for_seat, e.hand, e.paid, paid.get((e.seat, e.for_seat)), e.section)
        for e in ctx.settlement.envy
    ]
