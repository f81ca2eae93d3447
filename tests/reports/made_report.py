"""A shift report made by hand (no store): 70 findings over several pages, the first closed
with two notes, one of them text a spreadsheet or a PDF's markup would run."""

from __future__ import annotations

from datetime import date

from tablewatch.reports.shift import Line, Note, ShiftReport, ShiftWindow, Total

NOTE = "Paid 2x on a pair — pit boss Ana Núñez recovered €25 at the table"
HOSTILE = "=cmd|'/c calc'!A0 <b>not bold</b> \x1b[31m"


def line(i: int, **changes: object) -> Line:
    base = Line(
        finding_id=f"F{i}", at_ms=1_773_136_800_000 + i * 60_000, table_id=f"T-{i % 3 + 1}",
        pit="Pit 1", round_id=f"R{i}", dealer_id=f"D-{i % 4}", check="WRONG_PAYOUT",
        severity="high", message=f"message {i}", expected_cents=2500, paid_cents=5000,
        money="owed $25.00, paid $50.00: overpaid by $25.00", state="open", disposition="",
        assignee="", closed_by="", recovered_cents=0,
    )  # fmt: skip
    return base if not changes else Line(**{**_fields(base), **changes})  # type: ignore[arg-type]


def _fields(x: Line) -> dict[str, object]:
    return {name: getattr(x, name) for name in Line.__slots__}


def make_report() -> ShiftReport:
    first = line(
        0, state="closed", closed_by="sam", disposition="confirmed: corrected at the table",
        recovered_cents=2500,
        notes=(Note(1_773_137_400_000, "sam", "noted", NOTE),
               Note(1_773_137_500_000, "sam", "noted", HOSTILE)),
    )  # fmt: skip
    lines = (first, *(line(i) for i in range(1, 70)))
    summary = Total("all", 70, 69, 0, 1, 70 * 2500, 70 * 5000, 2500)
    window = ShiftWindow(
        date(2026, 3, 10), "day", "Pit 1", "America/New_York", 1_773_136_800_000,
        1_773_165_600_000,
    )  # fmt: skip
    return ShiftReport(
        window=window, casino="Keystone Downs", generated_ms=1_773_166_000_000, lines=lines,
        carried_over=(line(900, finding_id="F-OLD", state="in_review", assignee="sue"),),
        carried_over_total=1200,
        summary=summary, by_check=(Total("WRONG_PAYOUT", 70),), by_table=(Total("T-1", 24),),
        by_dealer=(Total("D-0", 18), Total(None, 0)),
    )  # fmt: skip
