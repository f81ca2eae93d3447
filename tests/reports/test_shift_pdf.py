"""The shift report's PDF, read back as a printer would: every page rendered to PNG with
PDFium (pypdfium2; the screenshots go to test-artifacts/shift-report/), its text extracted:
the title, a finding's note, the findings table's header on every page it spans, the
carried-over cases, the signature block, ``page N of M``; no page blank; the fonts
embedded (TrueType programs, ``FontFile2``; none of the 14 standard fonts a printer
would substitute)."""

from __future__ import annotations

import re
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from tablewatch.reports.shift_pdf import shift_pdf
from tests.reports.made_report import NOTE, make_report

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "shift-report"


@pytest.fixture(scope="module")
def pdf() -> bytes:
    return shift_pdf(make_report())


def test_pages_render_with_the_note_and_numbers(pdf: bytes) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "shift-report.pdf").write_bytes(pdf)
    document = pdfium.PdfDocument(pdf)
    pages = len(document)
    assert pages >= 3  # 70 findings do not fit one page
    texts = []
    for number in range(pages):
        page = document[number]
        texts.append(page.get_textpage().get_text_range())
        image = page.render(scale=1.5).to_pil().convert("L")
        image.save(ARTIFACTS / f"page-{number + 1}.png")
        histogram = image.histogram()
        dark = sum(histogram[:128]) / (image.width * image.height)
        assert dark > 0.005, f"page {number + 1} is blank ({dark:.4%} dark pixels)"
    flat = [re.sub(r"\s+", " ", t) for t in texts]
    assert "Keystone Downs: shift report, shift day of 2026-03-10, pit: Pit 1" in flat[0]
    assert NOTE in flat[0]
    assert "=cmd|'/c calc'!A0 <b>not bold</b> \\x1b[31m" in flat[0]  # as text, escaped
    for number, text in enumerate(flat, start=1):
        assert f"page {number} of {pages}" in text
        assert "generated 2026-03-10 18:06:40.000 UTC" in text
    findings_pages = [t for t in flat if re.search(r"T-\d / R\d+ ", t)]
    assert len(findings_pages) >= 2
    for text in findings_pages:  # the header row repeated on every page of the table
        assert "Time (UTC) Table / round Dealer Check / severity" in text
    assert "Open cases carried over (1200)" in flat[-1]
    assert "The latest 1 of 1,200 listed; all of them: /cases." in flat[-1]
    assert "T-1 / R900" in flat[-1] and "in review: sue" in flat[-1]
    assert "Prepared by (name)" in flat[-1] and "Reviewed by (name)" in flat[-1]


def test_fonts_embedded(pdf: bytes) -> None:
    descriptors = re.findall(rb"/Type /FontDescriptor", pdf)
    programs = re.findall(rb"/FontFile2 \d+ 0 R", pdf)
    assert descriptors and len(programs) == len(descriptors)
    assert re.search(rb"/BaseFont /(Helvetica|Times|Courier|Symbol|ZapfDingbats)", pdf) is None
    names = set(re.findall(rb"/BaseFont /([A-Z]{6}\+[A-Za-z-]+)", pdf))
    assert {n.split(b"+")[1] for n in names} >= {b"DejaVuSans", b"DejaVuSans-Bold"}
