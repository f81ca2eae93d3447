"""`tablewatch audit`: exit codes, output formats, clear errors with no traceback."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tablewatch.commands.audit import audit

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CONFIG = str(EXAMPLES / "tables.yaml")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(audit, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_example_shift_findings_as_json() -> None:
    code, out, _ = run(str(EXAMPLES / "shift.jsonl"), "--config", CONFIG, "--format", "json")
    assert code == 1
    rows = [json.loads(line) for line in out.splitlines()]
    assert sorted(r["check"] for r in rows) == [
        "BET_AFTER_LOCKOUT",
        "ENVY_BONUS_WRONG",
        "JACKPOT_PAID_FROM_INVENTORY",
        "PLAY_WAGER_OUT_OF_RANGE",
        "STUB_COUNT_MISSING",
        "WRONG_PAYOUT",
    ]
    wrong = next(r for r in rows if r["check"] == "WRONG_PAYOUT")
    for key in (
        "table_id",
        "round_id",
        "check",
        "severity",
        "regulation",
        "seat",
        "bet",
        "expected",
        "actual",
        "message",
        "event_ids",
    ):
        assert key in wrong
    assert (wrong["table_id"], wrong["round_id"], wrong["expected"], wrong["actual"]) == (
        "LIR-07",
        "R-3",
        2500,
        5000,
    )


def test_table_format_and_summary() -> None:
    code, out, _ = run(str(EXAMPLES / "shift.jsonl"), "--config", CONFIG)
    assert code == 1
    assert "WRONG_PAYOUT" in out
    assert "Findings by check" in out
    assert "8 rounds, 6 findings" in out


def test_clean_file_exits_zero(tmp_path: Path) -> None:
    clean = tmp_path / "clean.jsonl"
    lines = (EXAMPLES / "shift.jsonl").read_text().splitlines()
    clean.write_text("\n".join(x for x in lines if '"LIR-07"' in x and '"R-1"' in x) + "\n")
    code, out, _ = run(str(clean), "--config", CONFIG)
    assert code == 0, out
    assert "No findings." in out


def test_bad_line_is_reported_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    lines = (EXAMPLES / "shift.jsonl").read_text().splitlines()
    lines[3] = lines[3].replace('"seq":', '"seq":"x", "old_seq":')
    bad.write_text("\n".join(lines) + "\n")
    code, _, err = run(str(bad), "--config", CONFIG)
    assert code == 2
    assert f"{bad}:4" in err
    assert "Traceback" not in err


def test_missing_file_and_bad_config(tmp_path: Path) -> None:
    code, _, err = run(str(tmp_path / "nope.jsonl"), "--config", CONFIG)
    assert code == 2
    assert "nope.jsonl" in err
    config = tmp_path / "tables.yaml"
    config.write_text("tables:\n  X:\n    game: let_it_ride\n    paytables: {main: Z}\n")
    code, _, err = run(str(EXAMPLES / "shift.jsonl"), "--config", str(config))
    assert code == 2
    assert "§ 643a.12(a)" in err
    assert "Traceback" not in err
