"""A reconstructed round as plain text (``tablewatch rounds show --format text``).

Fixed-width sections, no colour and no terminal width: the same report always gives the
same text (golden tests compare it), and a line wrapped by a narrow terminal stays whole
in a file. A wager line the findings mark as wrong, and an Envy Bonus not paid as owed,
starts with ``!!``.
"""

from __future__ import annotations

from collections.abc import Sequence

from tablewatch.finding_money import money_text
from tablewatch.rounds.report import RoundReport, WagerLine
from tablewatch.rounds.words import money


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(str(c)) for c in column) for column in zip(header, *rows, strict=True)]
    lines = []
    for row in [header, *rows]:
        cells = [str(c).ljust(w) for c, w in zip(row, widths, strict=True)]
        lines.append((indent + "  ".join(cells)).rstrip())
    return lines


def _or_dash(value: object) -> str:
    return "-" if value is None else str(value)


def render_text(report: RoundReport) -> str:
    r = report
    out = [f"Round {r.round_id} at {r.table_id} ({r.game}, pit {_or_dash(r.pit)})"]
    out.append(
        f"  begun by event {r.start_event_id}; dealer {_or_dash(r.dealer_id)}; "
        f"deck {_or_dash(r.deck_id)} ({r.dealing.replace('_', ' ')} dealing)"
    )
    state = "complete" if r.complete else "INCOMPLETE (no round_end)"
    voided = f"voided: {r.void_reason}" if r.voided else "not voided"
    out.append(f"  {r.start_ts} to {r.end_ts}; {state}; {voided}")
    out.append(f"  wagered {money(r.wagered)}, paid {money(r.paid)}")
    if r.same_round_id:
        out.append(
            "  this round_id also began other rounds of the table, at events: "
            + ", ".join(r.same_round_id)
        )
    out += ["", "Timeline"]
    out += _table(
        ("seq", "ts", "type", "event_id", "what"),
        [(str(t.seq), t.ts, t.type, t.event_id, t.text) for t in r.timeline],
    )
    out += ["", "Cards"]
    for seat in r.seats:
        text = f"  seat {seat.seat}: {' '.join(seat.cards) or '-'}"
        if seat.hand is not None:
            text += f": {seat.hand} ({' '.join(seat.hand_cards)})"
        else:
            text += ": no hand to rank"
        if seat.three_card_hand is not None:
            text += f"; its three cards: {seat.three_card_hand}"
        if seat.six_card_hand is not None:
            text += f"; six cards: {seat.six_card_hand}"
        out.append(text)
    if r.dealer is not None:
        out.append(f"  dealer: {' '.join(r.dealer.cards)}: {_or_dash(r.dealer.hand)}")
    if r.community:
        out.append(f"  community: {' '.join(r.community)}")
    if r.bonus:
        out.append(f"  bonus: {' '.join(r.bonus)}")
    out += ["", "Decisions"]
    out += [f"  {d.seq}  {d.ts}  {d.text}" for d in r.decisions] or ["  none"]
    out += ["", "Wagers"]
    out += (
        _table(
            (
                "",
                "seat",
                "bet",
                "stake",
                "expected",
                "paid",
                "actual",
                "paid",
                "pay table",
                "line",
                "odds",
                "section",
            ),
            [_wager_row(w) for w in r.wagers],
        )
        if r.wagers
        else ["  none"]
    )
    for e in r.envy:
        mark = "  " if e.correct else "!! "
        out.append(
            f"{mark}Envy Bonus to seat {e.seat} for seat {e.for_seat}'s "
            f"{e.hand.replace('_', ' ')}: owed {money(e.expected_paid)}, "
            f"paid {money(e.actual_paid)} ({e.section})"
        )
    for limit in r.payout_limits:
        out.append(
            f"  payout limit at seat {limit.seat}: {money(limit.limit)} a hand, the bets "
            f"would pay {money(limit.uncapped)} ({limit.section})"
        )
    source = "as stored" if r.findings_source == "store" else "judged from the events"
    out += ["", f"Findings ({len(r.findings)}, {source})"]
    for f in r.findings:
        where = " ".join(
            part
            for part in (
                f"seat {f.seat}" if f.seat is not None else "",
                f.bet or "",
            )
            if part
        )
        shown = money_text(f.check, f.expected, f.actual)
        money_part = f"; {shown}" if shown else ""
        out.append(
            f"  {f.check} [{f.severity}] {f.regulation}{' ' + where if where else ''}{money_part}"
        )
        out.append(f"    {f.message}")
        out.append(f"    evidence: {', '.join(f.event_ids) or '-'}")
    if not r.findings:
        out.append("  none")
    cameras = ", ".join(r.video.cameras) or "none configured"
    out += ["", "Video", f"  cameras: {cameras}", f"  from {r.video.from_ts} to {r.video.until_ts}"]
    return "\n".join(out) + "\n"


def _wager_row(w: WagerLine) -> tuple[str, ...]:
    mark = "!!" if w.correct is False else ""
    return (
        mark,
        str(w.seat),
        w.bet,
        money(w.stake),
        _or_dash(w.expected_result),
        money(w.expected_paid),
        _or_dash(w.actual_result),
        money(w.actual_paid),
        _or_dash(w.paytable),
        _or_dash(w.paytable_line),
        _or_dash(w.odds),
        _or_dash(w.section),
    )
