"""``tablewatch report shift`` over the hand-written store (``shift_store.py``): JSON, CSV
and a PDF whose text holds the closed case's note; the refusals, one line each naming the
option (exit 2)."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from click.testing import CliRunner, Result

from tablewatch.cli import main
from tests.reports.shift_store import NOTE_F1, fill_shift_store, write_rules


@dataclass(frozen=True)
class Store:
    dsn: str
    rules: Path
    directory: Path


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    directory = Path(tmp_path_factory.mktemp("shift-cli"))
    return Store(fill_shift_store(directory / "store"), write_rules(directory), directory)


def run(store: Store, *args: str) -> Result:
    return CliRunner().invoke(
        main,
        ["report", "shift", "--rules", str(store.rules), "--dsn", store.dsn, *args],
        prog_name="tablewatch",
    )


def test_json(store: Store) -> None:
    result = run(store, "--date", "2026-03-10", "--shift", "day", "--format", "json")
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    assert [f["finding_id"] for f in got["findings"]] == ["F1", "F2", "F3", "F4", "F5"]
    assert [f["finding_id"] for f in got["carried_over"]] == ["F10", "F7", "F9"]
    assert got["summary"] == {
        "key": "all", "findings": 5, "open": 3, "in_review": 1, "closed": 1,
        "expected_cents": 3600, "paid_cents": 5500, "recovered_cents": 2500,
    }  # fmt: skip


def test_csv_of_one_pit_to_a_file(store: Store) -> None:
    out = store.directory / "pit1.csv"
    result = run(store, "--date", "2026-03-10", "--shift", "day", "--pit", "Pit 1",
                 "--format", "csv", "--out", str(out), "--casino", "Keystone")  # fmt: skip
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert [r["finding_id"] for r in rows] == ["F1", "F2", "F4", "F5", "F10", "F9"]
    assert "4 findings, 2 carried over" in result.stderr


def test_pdf_holds_the_note(store: Store) -> None:
    out = store.directory / "day.pdf"
    result = run(store, "--date", "2026-03-10", "--shift", "day", "--out", str(out),
                 "--casino", "Keystone")  # fmt: skip
    assert result.exit_code == 0, result.output
    document = pdfium.PdfDocument(out.read_bytes())
    text = " ".join(
        document[i].get_textpage().get_text_range().replace("\r\n", " ")
        for i in range(len(document))
    )
    assert " ".join(NOTE_F1.split()) in " ".join(text.split())
    assert "Keystone: shift report, shift day of 2026-03-10, all pits" in " ".join(text.split())


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--date", "2026-03-10", "--shift", "nite"],
         "--shift: 'nite' is not a shift of {rules} (known: day, swing, grave)"),
        (["--date", "2026-03-10", "--shift", "day", "--pit", "Pit 9"],
         "--pit: 'Pit 9' is not a pit of {rules} (known: Pit 1, Pit 2, unassigned)"),
        (["--date", "10/03/2026", "--shift", "day"],
         "--date: '10/03/2026' is not a date YYYY-MM-DD"),
    ],
)  # fmt: skip
def test_refusals_name_the_option(store: Store, args: list[str], said: str) -> None:
    result = run(store, *args, "--format", "json")
    assert result.exit_code == 2
    assert result.stderr == f"tablewatch report shift: {said.format(rules=store.rules)}\n"
    assert result.stdout == ""


def test_rules_required(store: Store) -> None:
    result = CliRunner().invoke(
        main, ["report", "shift", "--date", "2026-03-10", "--shift", "day", "--dsn", store.dsn],
        prog_name="tablewatch", env={"TABLEWATCH_ALERT_RULES": ""},
    )  # fmt: skip
    assert result.exit_code == 2
    assert "--rules: required" in result.stderr
