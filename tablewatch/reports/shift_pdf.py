"""The shift report as a PDF laid out for printing and signing (ReportLab).

US Letter, landscape: the title (casino, shift, date, pit, the window in the site's zone
and in UTC), the summary totals, the findings table (its header row repeated on every
page), the totals by check, table and dealer, the cases carried over, and a signature
block (prepared by, reviewed by, dates). Every page's footer: the report named, when it
was generated (UTC) and ``page N of M``.

The text is set in DejaVu Sans, embedded (a TrueType subset: ``FontFile2``), so the PDF
prints the same everywhere and any name or note (accents, symbols) shows as written; a
control character in the store's text is shown as its escape (:mod:`tablewatch.terminal_text`).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final
from xml.sax.saxutils import escape
from zoneinfo import ZoneInfo

from reportlab.lib import colors
from reportlab.lib.pagesizes import landscape, letter
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    Flowable,
    KeepTogether,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)

from tablewatch.finding_money import dollars
from tablewatch.reports.shift import Line, ReportError, ShiftReport, Total
from tablewatch.rules.events import ms_to_ts
from tablewatch.terminal_text import printable

FONT_DIR: Final = Path("/usr/share/fonts/truetype/dejavu")
FONT: Final = "DejaVuSans"
BOLD: Final = "DejaVuSans-Bold"
PAGE: Final = landscape(letter)
MARGIN: Final = 0.5 * inch

_BODY = ParagraphStyle("body", fontName=FONT, fontSize=7.5, leading=9.5)
_HEAD = ParagraphStyle("head", parent=_BODY, fontName=BOLD)
_TITLE = ParagraphStyle("title", fontName=BOLD, fontSize=16, leading=20, spaceAfter=4)
_SUBTITLE = ParagraphStyle("subtitle", fontName=FONT, fontSize=9.5, leading=13)
_SECTION = ParagraphStyle(
    "section", fontName=BOLD, fontSize=11, leading=14, spaceBefore=10, spaceAfter=4
)
_GRID: list[tuple[Any, ...]] = [
    ("FONTNAME", (0, 0), (-1, -1), FONT),
    ("FONTSIZE", (0, 0), (-1, -1), 7.5),
    ("VALIGN", (0, 0), (-1, -1), "TOP"),
    ("GRID", (0, 0), (-1, -1), 0.4, colors.grey),
    ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e6e6e6")),
    ("FONTNAME", (0, 0), (-1, 0), BOLD),
    ("LEFTPADDING", (0, 0), (-1, -1), 3),
    ("RIGHTPADDING", (0, 0), (-1, -1), 3),
]


def register_fonts(directory: Path = FONT_DIR) -> None:
    """DejaVu Sans and its bold, embedded in every PDF that uses them."""
    for name, file in ((FONT, "DejaVuSans.ttf"), (BOLD, "DejaVuSans-Bold.ttf")):
        if name in pdfmetrics.getRegisteredFontNames():
            continue
        path = directory / file
        if not path.is_file():
            raise ReportError(
                f"pdf: font {file}: not found in {directory} (Debian: apt-get install "
                "fonts-dejavu-core)"
            )
        pdfmetrics.registerFont(TTFont(name, str(path)))


def _text(value: str) -> str:
    return escape(printable(value))


def _p(value: str, style: ParagraphStyle = _BODY) -> Paragraph:
    return Paragraph(_text(value), style)


def _money(cents: int | None) -> str:
    return "" if cents is None else dollars(cents)


def _canvas(*args: Any, **kwargs: Any) -> Canvas:
    """A canvas whose first font is DejaVu Sans: not Helvetica, a standard font a PDF
    names without embedding it."""
    return Canvas(*args, **{**kwargs, "initialFontName": FONT, "initialFontSize": 7.5})


def _footer(left: str, total: int | None) -> Callable[[Canvas, Any], None]:
    """Draws a page's footer: ``left``, then ``page N of M`` (M: ``total``, once known)."""

    def draw(canvas: Canvas, doc: Any) -> None:
        canvas.saveState()
        canvas.setFont(FONT, 7.5)
        canvas.setFillColor(colors.black)
        width, _ = PAGE
        canvas.drawString(MARGIN, MARGIN / 2, left)
        number = canvas.getPageNumber()
        canvas.drawRightString(width - MARGIN, MARGIN / 2, f"page {number} of {total or '?'}")
        canvas.restoreState()

    return draw


def _local(ms: int, zone: str) -> str:
    moment = datetime.fromtimestamp(ms / 1000, UTC).astimezone(ZoneInfo(zone))
    return moment.strftime("%Y-%m-%d %H:%M %Z")


def _totals_table(title: str, totals: Sequence[Total], none: str = "") -> list[Flowable]:
    head = ["", "Findings", "Open", "In review", "Closed", "Expected", "Paid", "Recovered"]
    rows: list[list[Any]] = [[_p(title, _HEAD), *head[1:]]]
    for t in totals:
        rows.append([
            _p(none if t.key is None else t.key), t.findings, t.open, t.in_review, t.closed,
            _money(t.expected_cents), _money(t.paid_cents), _money(t.recovered_cents),
        ])  # fmt: skip
    widths = [2.6 * inch, *(0.8 * inch,) * 4, *(1.0 * inch,) * 3]
    table = Table(rows, colWidths=widths, repeatRows=1)
    table.setStyle(TableStyle([*_GRID, ("ALIGN", (1, 0), (-1, -1), "RIGHT")]))
    return [table, Spacer(1, 6)]


_LINE_HEAD = (
    "Time (UTC)", "Table / round", "Dealer", "Check / severity", "Money", "Case", "Recovered",
    "Notes",
)  # fmt: skip
_LINE_WIDTHS = [0.95, 1.15, 0.6, 1.35, 1.5, 1.4, 0.8, 2.25]


def _counts(t: Total) -> tuple[int, ...]:
    return (t.findings, t.open, t.in_review, t.closed, t.expected_cents, t.paid_cents,
            t.recovered_cents)  # fmt: skip


def _case_text(line: Line) -> str:
    if line.state == "closed":
        return f"closed by {line.closed_by}: {line.disposition}"
    if line.state == "in_review":
        return f"in review: {line.assignee}"
    return "open"


def _lines_table(lines: Sequence[Line]) -> Table:
    rows: list[list[Any]] = [[_p(h, _HEAD) for h in _LINE_HEAD]]
    for x in lines:
        notes = "<br/>".join(
            f"{_text(ms_to_ts(n.at_ms)[11:16])} {_text(n.by)} ({_text(n.kind)}): {_text(n.text)}"
            for n in x.notes
        )
        rows.append([
            _p(ms_to_ts(x.at_ms).replace("T", " ")[:-1]),
            _p(f"{x.table_id} / {x.round_id or '(table)'}"),
            _p(x.dealer_id or ""),
            _p(f"{x.check} / {x.severity}"),
            _p(x.money),
            _p(_case_text(x)),
            _p(_money(x.recovered_cents) if x.state == "closed" else ""),
            Paragraph(notes, _BODY),
        ])  # fmt: skip
    table = Table(rows, colWidths=[w * inch for w in _LINE_WIDTHS], repeatRows=1)
    table.setStyle(TableStyle(_GRID))
    return table


def _signatures() -> Flowable:
    rows = [
        ["Prepared by (name)", "", "Signature", "", "Date", ""],
        ["Reviewed by (name)", "", "Signature", "", "Date", ""],
    ]
    table = Table(
        rows,
        colWidths=[1.3 * inch, 2.4 * inch, 0.8 * inch, 2.4 * inch, 0.5 * inch, 1.4 * inch],
        rowHeights=[0.45 * inch, 0.45 * inch],
    )
    style: list[tuple[Any, ...]] = [
        ("FONTNAME", (0, 0), (-1, -1), FONT),
        ("FONTSIZE", (0, 0), (-1, -1), 9),
        ("VALIGN", (0, 0), (-1, -1), "BOTTOM"),
        *[("LINEBELOW", (c, r), (c, r), 0.7, colors.black) for r in (0, 1) for c in (1, 3, 5)],
    ]
    table.setStyle(TableStyle(style))
    return KeepTogether([Paragraph("Signatures", _SECTION), table])


def shift_pdf(report: ShiftReport) -> bytes:
    """The PDF of ``report`` (module docstring): laid out twice, the second time with the
    page count the first gave, for ``page N of M``."""
    register_fonts()
    w = report.window
    where = f"pit: {w.pit}" if w.pit else "all pits"
    name = f"{report.casino}: shift report" if report.casino else "Shift report"
    generated = ms_to_ts(report.generated_ms).replace("T", " ")[:-1] + " UTC"
    left = printable(f"{name}, {w.day.isoformat()} {w.shift}, {where}; generated {generated}")
    total: int | None = None
    for _ in range(2):
        out = io.BytesIO()
        doc = SimpleDocTemplate(
            out, pagesize=PAGE, leftMargin=MARGIN, rightMargin=MARGIN, topMargin=MARGIN,
            bottomMargin=MARGIN, title=f"{name}: {w.day.isoformat()} {w.shift}",
            author="TableWatch", invariant=True,
        )  # fmt: skip
        draw = _footer(left, total)
        doc.build(
            _story(report, name, where, generated),
            onFirstPage=draw,
            onLaterPages=draw,
            canvasmaker=_canvas,
        )
        total = doc.page
    return out.getvalue()


def _story(report: ShiftReport, name: str, where: str, generated: str) -> list[Flowable]:
    w = report.window
    story: list[Flowable] = [
        Paragraph(_text(f"{name}, shift {w.shift} of {w.day.isoformat()}, {where}"), _TITLE),
        _p(
            f"The shift: {_local(w.start_ms, w.timezone)} to {_local(w.end_ms, w.timezone)} "
            f"({w.timezone}); {w.start} to {w.end}. Each case as it stood at the shift's "
            f"end. Money in dollars. Generated {generated}.",
            _SUBTITLE,
        ),
        Paragraph("Summary", _SECTION),
        *_totals_table("This shift", [Total("all findings", *_counts(report.summary))]),
        Paragraph(_text(f"Findings of the shift ({len(report.lines)})"), _SECTION),
    ]
    story.append(_lines_table(report.lines) if report.lines else _p("No finding."))
    story.append(Paragraph("Totals", _SECTION))
    story += _totals_table("By check", report.by_check)
    story += _totals_table("By table", report.by_table)
    story += _totals_table("By dealer", report.by_dealer, none="(no dealer: table-level)")
    listed = len(report.carried_over)
    total = max(report.carried_over_total, listed)
    carried = f"Open cases carried over ({total}): findings before the shift not closed at its end"
    story.append(Paragraph(_text(carried), _SECTION))
    if total > listed:
        story.append(_p(f"The latest {listed:,} of {total:,} listed; all of them: /cases."))
    story.append(
        _lines_table(report.carried_over) if report.carried_over else _p("No case carried over.")
    )
    story.append(Spacer(1, 12))
    story.append(_signatures())
    return story
