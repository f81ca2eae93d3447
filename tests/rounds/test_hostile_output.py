"""``tablewatch findings``, ``rounds list`` and ``rounds show`` on a store of hostile ids and
text (tests/api/hostile_store.py): CSV cells a spreadsheet would run are neutralised and
numbers kept; control characters of stored text are escaped on the terminal; an --out
that cannot be written and a --table the store does not know are one line and exit 2."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewatch.commands import row_output
from tablewatch.commands.auditor_lists import findings
from tablewatch.commands.rounds import rounds
from tests.api.hostile_store import (
    CONTROL_MESSAGE_START,
    CONTROL_ROUND,
    FORMULA,
    SLASH,
    hostile_store,
)
from tests.rounds.conftest import json_lines

RAW_CONTROLS = ("\x1b", "\x07", "\x9b", "\u202e")


@pytest.fixture(scope="module")
def dsn(tmp_path_factory: pytest.TempPathFactory) -> str:
    return hostile_store(tmp_path_factory.mktemp("hostile-output"), controls=True)


def run(dsn: str, *args: str) -> tuple[int, str, str]:
    command = rounds if args[0] in ("list", "show") else findings
    result = CliRunner().invoke(command, [*args, "--dsn", dsn])
    return result.exit_code, result.stdout, result.stderr


def csv_rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_findings_csv_neutralises_formula_cells_and_keeps_numbers(dsn: str, tmp_path: Path) -> None:
    code, out, err = run(dsn, "--format", "csv")
    assert (code, err) == (0, "")
    formula = [r for r in csv_rows(out) if r["start_event_id"] == "FL-301"]
    assert [(r["table_id"], r["round_id"]) for r in formula] == [
        ("'" + FORMULA[0], "'" + FORMULA[1])
    ]
    assert (formula[0]["seat"], formula[0]["expected"], formula[0]["actual"]) == ("5", "500", "400")
    for row in csv_rows(out):
        assert not [v for v in row.values() if v.startswith(("=", "+", "-", "@", "\t", "\r"))]
    written = tmp_path / "findings.csv"
    assert run(dsn, "--format", "csv", "--out", str(written))[0] == 0
    assert written.read_text(encoding="utf-8") == out


def test_rounds_list_csv_neutralises_formula_cells_and_keeps_numbers(dsn: str) -> None:
    code, out, err = run(dsn, "list", "--format", "csv")
    assert (code, err) == (0, "")
    formula = [r for r in csv_rows(out) if r["start_event_id"] == "FL-301"]
    assert len(formula) == 1
    assert (formula[0]["table_id"], formula[0]["round_id"]) == ("'" + FORMULA[0], "'" + FORMULA[1])
    # the golden round: $55.00 wagered, $519.00 paid (tests/rounds/golden.py), in cents
    assert (formula[0]["wagered"], formula[0]["paid"], formula[0]["seats"]) == (
        "5500",
        "51900",
        "2",
    )


def test_control_characters_of_stored_text_are_escaped_in_the_table(dsn: str) -> None:
    code, out, err = run(dsn, "--limit", "10")
    assert (code, err) == (0, "")
    assert not [c for c in RAW_CONTROLS if c in out]
    assert "R-77\\x1b[2J\\x1b]0;owned\\x07" in out
    code, out, err = run(dsn, "list", "--table", "LIR-G")
    assert code == 0 and "R-77" in out


def test_control_characters_are_escaped_by_rounds_show(dsn: str) -> None:
    code, out, err = run(dsn, "show", "LIR-G", "R-77")
    assert code == 0, err
    assert not [c for c in RAW_CONTROLS if c in out]
    assert "\\x1b[31m\\u202e\\x9bseat 5 bet3" in out
    code, out, err = run(dsn, "show", "LIR-G", "R-77", "--format", "json")
    assert code == 0, err
    assert not [c for c in RAW_CONTROLS if c in out]  # JSON escapes, the same values
    messages = [f["message"] for f in json.loads(out)["findings"]]
    assert any(m.startswith(CONTROL_MESSAGE_START + "seat 5 bet3") for m in messages)


def test_json_lines_escape_c1_and_bidi_controls_and_keep_the_values(dsn: str) -> None:
    code, out, err = run(dsn, "--format", "json")
    assert (code, err) == (0, "")
    assert not [c for c in RAW_CONTROLS if c in out]
    rows = json_lines(out)
    assert CONTROL_ROUND in {r["round_id"] for r in rows}
    assert any(r["message"].startswith(CONTROL_MESSAGE_START) for r in rows)


def test_csv_on_a_terminal_escapes_control_characters(
    dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(row_output, "stdout_is_terminal", lambda: True)
    code, out, _ = run(dsn, "--format", "csv")
    assert code == 0
    assert not [c for c in RAW_CONTROLS if c in out]
    assert "R-77\\x1b[2J\\x1b]0;owned\\x07" in out


@pytest.mark.parametrize("fmt", ["table", "csv", "json", "parquet"])
@pytest.mark.parametrize("out", ["/proc/version", "/no/such/directory/findings.out"])
def test_an_out_that_cannot_be_written_is_one_line_and_exit_2(dsn: str, fmt: str, out: str) -> None:
    code, stdout, err = run(dsn, "--format", fmt, "--out", out)
    assert (code, stdout) == (2, "")
    assert err.startswith(f"tablewatch findings: --out {out}: cannot write: ")
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("args", [(), ("list",)])
def test_a_table_the_store_does_not_know_is_named_and_exit_2(
    dsn: str, args: tuple[str, ...]
) -> None:
    command = "rounds list" if args else "findings"
    code, out, err = run(dsn, *args, "--table", "LIR-1")
    assert (code, out) == (2, "")
    assert err == (
        f"tablewatch {command}: --table: no table 'LIR-1': the store holds no round, event "
        "or directory row of it\n"
    )
    code, out, err = run(dsn, *args, "--table", SLASH[0], "--format", "json")
    assert (code, err) == (0, "")
    assert {r["round_id"] for r in json_lines(out)} == {SLASH[1]}
