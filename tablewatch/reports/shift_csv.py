"""The shift report as CSV: one row per finding, the shift's then those carried over
(``section``), every cell formula-safe (:mod:`tablewatch.csv_cells`), money in cents."""

from __future__ import annotations

import csv
import io
from typing import Final

from tablewatch.csv_cells import csv_cell
from tablewatch.reports.shift import Line, ShiftReport
from tablewatch.rules.events import ms_to_ts

COLUMNS: Final = (
    "section", "ts", "table_id", "pit", "round_id", "dealer_id", "check", "severity",
    "money", "expected_cents", "paid_cents", "recovered_cents", "state", "disposition",
    "assignee", "closed_by", "notes", "message", "finding_id",
)  # fmt: skip


def notes_text(line: Line) -> str:
    """Every note of the case on one line: ``AT BY KIND: TEXT | ...``."""
    return " | ".join(f"{ms_to_ts(n.at_ms)} {n.by} {n.kind}: {n.text}" for n in line.notes)


def _row(section: str, line: Line) -> list[str | int]:
    values: list[object] = [
        section, ms_to_ts(line.at_ms), line.table_id, line.pit, line.round_id, line.dealer_id,
        line.check, line.severity, line.money, line.expected_cents, line.paid_cents,
        line.recovered_cents, line.state, line.disposition, line.assignee, line.closed_by,
        notes_text(line), line.message, line.finding_id,
    ]  # fmt: skip
    return [csv_cell(v) for v in values]


def shift_csv(report: ShiftReport) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for line in report.lines:
        writer.writerow(_row("shift", line))
    for line in report.carried_over:
        writer.writerow(_row("carried over", line))
    return out.getvalue()
