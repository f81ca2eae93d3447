"""The shift report's data over the hand-written store of ``shift_store.py``: the window in
the rules file's zone, the right findings with their cases as at the shift's end, the
totals and the cases carried over (every expected value counted by hand from the table
in that module's docstring); its JSON and CSV."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest

from tablewatch.alerts.rules_file import AlertRules, load_rules
from tablewatch.api.sources import ReaderPool, open_product_reader
from tablewatch.reports.shift import (
    ReportError,
    ReportTooLarge,
    ShiftReport,
    read_shift_report,
    report_json,
    shift_window,
)
from tablewatch.reports.shift_csv import shift_csv
from tests.reports.made_report import HOSTILE, make_report
from tests.reports.shift_store import NOTE_F1, fill_shift_store, write_rules

NOW_MS = 1_773_200_000_000  # 2026-03-11T03:33:20.000Z


@pytest.fixture(scope="module")
def rules(tmp_path_factory: pytest.TempPathFactory) -> AlertRules:
    return load_rules(write_rules(Path(tmp_path_factory.mktemp("rules"))))


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ReaderPool]:
    dsn = fill_shift_store(Path(tmp_path_factory.mktemp("shift")) / "store")
    readers = ReaderPool(lambda: open_product_reader(dsn), size=1)
    try:
        yield readers
    finally:
        readers.close()


def report(pool: ReaderPool, rules: AlertRules, shift: str, pit: str | None = None) -> ShiftReport:
    window = shift_window(rules, date(2026, 3, 10), shift, pit)
    return read_shift_report(pool, rules, window, casino="Keystone", now_ms=NOW_MS)


def test_windows_in_the_rules_zone(rules: AlertRules) -> None:
    day = shift_window(rules, date(2026, 3, 10), "day")
    assert (day.start, day.end) == ("2026-03-10T10:00:00.000Z", "2026-03-10T18:00:00.000Z")
    grave = shift_window(rules, date(2026, 3, 10), "grave")  # runs past midnight: starts 3/10
    assert (grave.start, grave.end) == ("2026-03-11T02:00:00.000Z", "2026-03-11T10:00:00.000Z")
    winter = shift_window(rules, date(2026, 1, 5), "day")  # EST, UTC-5
    assert winter.start == "2026-01-05T11:00:00.000Z"


def test_unknown_shift_and_pit_name_the_known_ones(rules: AlertRules) -> None:
    with pytest.raises(ReportError, match=r"shift: 'nite' .* \(known: day, swing, grave\)"):
        shift_window(rules, date(2026, 3, 10), "nite")
    with pytest.raises(ReportError, match=r"pit: 'Pit 9' .* \(known: Pit 1, Pit 2, unassigned\)"):
        shift_window(rules, date(2026, 3, 10), "day", "Pit 9")


def test_day_shift_findings_with_their_cases_at_its_end(
    pool: ReaderPool, rules: AlertRules
) -> None:
    got = report(pool, rules, "day")
    rows = [
        (x.finding_id, x.state, x.assignee, x.closed_by, x.disposition, x.recovered_cents,
         x.dealer_id, x.pit)
        for x in got.lines
    ]  # fmt: skip
    assert rows == [
        ("F1", "closed", "", "sam", "confirmed: corrected at the table", 2500, "D-7", "Pit 1"),
        ("F2", "in_review", "sue", "", "", 0, "D-8", "Pit 1"),  # closed after the shift
        ("F3", "open", "", "", "", 0, "D-7", "Pit 2"),
        ("F4", "open", "", "", "", 0, None, "Pit 1"),
        ("F5", "open", "", "", "", 0, "D-8", "Pit 1"),  # claimed then released
    ]
    f1, f5 = got.lines[0], got.lines[4]
    assert [(n.by, n.kind, n.text) for n in f1.notes] == [
        ("sam", "noted", NOTE_F1),
        ("sam", "closed", "closed at the table"),
    ]
    assert [(n.kind, n.text) for n in f5.notes] == [("released", "wrong table on the video")]
    assert (f1.expected_cents, f1.paid_cents, f1.money) == (
        2500, 5000, "owed $25.00, paid $50.00: overpaid by $25.00"
    )  # fmt: skip


def test_day_shift_totals(pool: ReaderPool, rules: AlertRules) -> None:
    got = report(pool, rules, "day")

    # key, findings, open, in_review, closed, expected, paid, recovered
    def row(t: object) -> tuple[object, ...]:
        return tuple(
            getattr(t, k)
            for k in (
                "key",
                "findings",
                "open",
                "in_review",
                "closed",
                "expected_cents",
                "paid_cents",
                "recovered_cents",
            )
        )

    assert row(got.summary) == ("all", 5, 3, 1, 1, 3600, 5500, 2500)
    assert [row(t) for t in got.by_check] == [
        ("BET_AFTER_LOCKOUT", 1, 1, 0, 0, 0, 500, 0),
        ("SEQUENCE_GAP", 1, 1, 0, 0, 0, 0, 0),
        ("VOID_NOT_RETURNED", 1, 0, 1, 0, 1000, 0, 0),
        ("WRONG_PAYOUT", 2, 1, 0, 1, 2600, 5000, 2500),
    ]
    assert [row(t) for t in got.by_table] == [
        ("T-1", 3, 2, 0, 1, 2600, 5000, 2500),
        ("T-2", 1, 0, 1, 0, 1000, 0, 0),
        ("T-3", 1, 1, 0, 0, 0, 500, 0),
    ]
    assert [row(t) for t in got.by_dealer] == [
        ("D-7", 2, 1, 0, 1, 2500, 5500, 2500),
        ("D-8", 2, 1, 1, 0, 1100, 0, 0),
        (None, 1, 1, 0, 0, 0, 0, 0),  # the table-level finding
    ]


def test_carried_over_as_at_the_shift_end(pool: ReaderPool, rules: AlertRules) -> None:
    day = report(pool, rules, "day")
    # F8 closed before; F10 reopened during the day; F7 closed only after the day's end
    assert [(x.finding_id, x.state, x.assignee, x.dealer_id) for x in day.carried_over] == [
        ("F10", "open", "", "D-9"), ("F7", "in_review", "sam", "D-9"), ("F9", "open", "", "D-9")
    ]  # fmt: skip
    assert [n.text for n in day.carried_over[0].notes] == ["video shows a second payout"]
    swing = report(pool, rules, "swing")
    assert [x.finding_id for x in swing.lines] == ["F6"]
    assert [(x.state, x.closed_by, x.disposition) for x in swing.lines] == [
        ("closed", "sue", "duplicate")
    ]
    # F2 and F7 were closed during the swing: not carried over past it
    assert [x.finding_id for x in swing.carried_over] == ["F10", "F9", "F3", "F4", "F5"]


def test_latest_carried_over_listed_all_counted(pool: ReaderPool, rules: AlertRules) -> None:
    window = shift_window(rules, date(2026, 3, 10), "day")
    got = read_shift_report(pool, rules, window, now_ms=NOW_MS, most_carried=2)
    assert [x.finding_id for x in got.carried_over] == ["F7", "F9"]
    assert got.carried_over_total == 3
    assert report_json(got)["carried_over_total"] == 3
    assert report(pool, rules, "day").carried_over_total == 3


def test_one_pit(pool: ReaderPool, rules: AlertRules) -> None:
    got = report(pool, rules, "day", "Pit 1")
    assert [x.finding_id for x in got.lines] == ["F1", "F2", "F4", "F5"]
    assert [x.finding_id for x in got.carried_over] == ["F10", "F9"]
    assert (got.summary.findings, got.summary.paid_cents) == (4, 5000)
    assert report(pool, rules, "day", "unassigned").lines == ()


def test_too_many_findings_refused(pool: ReaderPool, rules: AlertRules) -> None:
    window = shift_window(rules, date(2026, 3, 10), "day")
    with pytest.raises(ReportTooLarge, match="more than 4 findings of the shift"):
        read_shift_report(pool, rules, window, now_ms=NOW_MS, most=4)


def test_json(pool: ReaderPool, rules: AlertRules) -> None:
    got = report_json(report(pool, rules, "day"))
    assert {k: got[k] for k in ("casino", "date", "shift", "pit", "timezone", "generated_at")} == {
        "casino": "Keystone", "date": "2026-03-10", "shift": "day", "pit": None,
        "timezone": "America/New_York", "generated_at": "2026-03-11T03:33:20.000Z",
    }  # fmt: skip
    assert got["window"] == {"start": "2026-03-10T10:00:00.000Z", "end": "2026-03-10T18:00:00.000Z"}
    first = got["findings"][0]
    assert first["ts"] == "2026-03-10T11:00:00.000Z"
    assert first["notes"][0] == {
        "at": "2026-03-10T11:10:00.000Z", "by": "sam", "kind": "noted", "text": NOTE_F1
    }  # fmt: skip
    assert got["findings"][3]["round_id"] is None and got["findings"][3]["dealer_id"] is None
    assert got["summary"]["recovered_cents"] == 2500


def test_csv(pool: ReaderPool, rules: AlertRules) -> None:
    text = shift_csv(report(pool, rules, "day"))
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [(r["section"], r["finding_id"]) for r in rows] == [
        ("shift", "F1"), ("shift", "F2"), ("shift", "F3"), ("shift", "F4"), ("shift", "F5"),
        ("carried over", "F10"), ("carried over", "F7"), ("carried over", "F9"),
    ]  # fmt: skip
    f1 = rows[0]
    assert (f1["expected_cents"], f1["paid_cents"], f1["recovered_cents"]) == (
        "2500",
        "5000",
        "2500",
    )
    assert f1["notes"] == (
        f"2026-03-10T11:10:00.000Z sam noted: {NOTE_F1} | "
        "2026-03-10T11:20:00.000Z sam closed: closed at the table"
    )
    assert (f1["state"], f1["closed_by"], f1["ts"]) == ("closed", "sam", "2026-03-10T11:00:00.000Z")
    assert rows[3]["expected_cents"] == "" and rows[3]["dealer_id"] == ""


def test_csv_cells_formula_safe() -> None:
    rows = list(csv.DictReader(io.StringIO(shift_csv(make_report()))))
    assert rows[0]["notes"].endswith(f"sam noted: {HOSTILE}")  # within the cell: not first
    hostile = make_report()
    first = replace(hostile.lines[0], table_id='=HYPERLINK("http://x")', message="@SUM(A1)")
    cells = next(csv.DictReader(io.StringIO(shift_csv(replace(hostile, lines=(first,))))))
    assert cells["table_id"] == '\'=HYPERLINK("http://x")' and cells["message"] == "'@SUM(A1)"
